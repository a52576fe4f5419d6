/**
 * Creating a streams group's missing internal topics on a started Brook broker
 * (src/broker/streams/internal-topics.ts), as Kafka 4.4's KafkaApis does after a
 * StreamsGroupHeartbeat (AutoTopicCreationManager.createStreamsInternalTopics): the topics
 * get the configured partition counts and configs; a failed creation is remembered for two
 * heartbeat intervals, is not retried meanwhile and shows in the MISSING_INTERNAL_TOPICS
 * status from the next heartbeat on (Kafka learns the outcome asynchronously); without CREATE
 * nothing is created and the status names the topics. The expected details are those Kafka's
 * KafkaApis builds ("; Creation failed: t (error), ... and N more.", "; Unauthorized to CREATE
 * on topics a, b."), and the partition counts those Kafka's InternalTopicManager decides for
 * these topologies (test/interop/streams-topology-java.test.ts checks the same cases).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Broker } from '../../src/broker/broker.js';
import type { RequestContext } from '../../src/broker/handler.js';
import { AclOperation, ResourceType, authorizes } from '../../src/broker/authorization.js';
import { AclStore } from '../../src/broker/authorizer/acl-store.js';
import { createStreamsInternalTopics } from '../../src/broker/streams/internal-topics.js';
import { configureTopology } from '../../src/coordinator/streams/topology/configure.js';
import { StreamsGroupStatus } from '../../src/coordinator/streams/topology/types.js';
import type { ConfiguredInternalTopic } from '../../src/coordinator/streams/topology/types.js';
import { nodeFileSystem } from '../../src/storage/index.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { startBrook } from '../support/brook.js';
import { topology } from '../support/streams-topology.js';

const T = { timeout: 30_000 };
const HEARTBEAT_INTERVAL_MS = 5000;
const AUTHORIZATION = authorizes({ CLUSTER: ['CREATE'], TOPIC: ['CREATE'] });

const missing = (detail: string) => [{ statusCode: StreamsGroupStatus.MISSING_INTERNAL_TOPICS, statusDetail: detail }];

function internalTopic(name: string, numberOfPartitions: number, replicationFactor: number | null = null): ConfiguredInternalTopic {
  return { name, numberOfPartitions, replicationFactor, topicConfigs: new Map() };
}

describe('streams internal topic creation on a Brook broker', () => {
  let broker: Broker;
  let clock: ManualScheduler;
  let ctx: RequestContext;

  before(async () => {
    clock = new ManualScheduler(1_000_000);
    broker = await startBrook({ clock });
    ctx = {
      broker: broker.context, principal: 'User:alice', clientHost: '/127.0.0.1', header: { requestApiKey: 88 }, authorization: AUTHORIZATION,
    } as unknown as RequestContext;
  });
  after(async () => {
    await broker.stop();
  });

  it('creates the configured topics, after which the topology is ready', T, () => {
    broker.createTopic('words', 3);
    const wordCount = topology(1, [
      { id: '0', sources: ['words'], sinks: ['wc-count-repartition'] },
      {
        id: '1',
        repartitionSources: [{ name: 'wc-count-repartition', configs: { 'cleanup.policy': 'delete', 'retention.ms': '-1' } }],
        changelogs: [{ name: 'wc-count-changelog', configs: { 'cleanup.policy': 'compact' } }],
      },
    ]);
    const lookup = (name: string) => broker.context.storage.topic(name)?.partitions;
    const configured = configureTopology(wordCount, lookup);
    assert.equal(configured.error?.status, StreamsGroupStatus.MISSING_INTERNAL_TOPICS);
    const status = createStreamsInternalTopics(ctx, configured.internalTopicsToBeCreated, missing(configured.error!.message), HEARTBEAT_INTERVAL_MS);
    assert.deepEqual(status, missing(configured.error!.message));

    const repartition = broker.context.storage.topic('wc-count-repartition');
    const changelog = broker.context.storage.topic('wc-count-changelog');
    assert.equal(repartition?.partitions, 3);
    assert.deepEqual({ ...repartition?.configs }, { 'cleanup.policy': 'delete', 'retention.ms': '-1' });
    assert.equal(changelog?.partitions, 3);
    assert.deepEqual({ ...changelog?.configs }, { 'cleanup.policy': 'compact' });
    const again = configureTopology(wordCount, lookup);
    assert.equal(again.error, null);
    assert.deepEqual([...again.subtopologies!.values()].map((s) => s.numberOfTasks), [3, 3]);
  });

  it('remembers a failed creation for two heartbeat intervals and reports it from the next heartbeat on', T, async () => {
    const topics = [internalTopic('rf-ok-changelog', 2), internalTopic('rf3-changelog', 2, 3)];
    const error = 'Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered.';
    const first = createStreamsInternalTopics(ctx, topics, missing('Internal topics are missing: rf-ok-changelog, rf3-changelog'), HEARTBEAT_INTERVAL_MS);
    assert.deepEqual(first, missing('Internal topics are missing: rf-ok-changelog, rf3-changelog'));
    assert.equal(broker.context.storage.topic('rf-ok-changelog')?.partitions, 2);
    assert.equal(broker.context.storage.topic('rf3-changelog'), undefined);

    await clock.advance(2 * HEARTBEAT_INTERVAL_MS - 1);
    const second = createStreamsInternalTopics(ctx, [topics[1]!], missing('Internal topics are missing: rf3-changelog'), HEARTBEAT_INTERVAL_MS);
    assert.deepEqual(second, missing(`Internal topics are missing: rf3-changelog; Creation failed: rf3-changelog (${error}).`));

    // Expired: retried (failing again), and not reported by the heartbeat that retries.
    await clock.advance(1);
    const third = createStreamsInternalTopics(ctx, [topics[1]!], missing('Internal topics are missing: rf3-changelog'), HEARTBEAT_INTERVAL_MS);
    assert.deepEqual(third, missing('Internal topics are missing: rf3-changelog'));
    const fourth = createStreamsInternalTopics(ctx, [topics[1]!], missing('Internal topics are missing: rf3-changelog'), HEARTBEAT_INTERVAL_MS);
    assert.deepEqual(fourth, missing(`Internal topics are missing: rf3-changelog; Creation failed: rf3-changelog (${error}).`));
    // Without a MISSING_INTERNAL_TOPICS status nothing is added.
    assert.deepEqual(createStreamsInternalTopics(ctx, [topics[1]!], [], HEARTBEAT_INTERVAL_MS), []);
  });

  it('lists at most three failures, in the order of Kafka\'s HashMap of them', T, () => {
    // Single-letter names hash to their character code: Java's HashMap walks them a, b, c, d, e
    // whatever the order they were put in.
    const topics = ['e', 'd', 'c', 'b', 'a'].map((name) => internalTopic(name, 1, 2));
    createStreamsInternalTopics(ctx, topics, missing('m'), HEARTBEAT_INTERVAL_MS);
    const reported = createStreamsInternalTopics(ctx, topics, missing('m'), HEARTBEAT_INTERVAL_MS);
    const error = 'Unable to replicate the partition 2 time(s): The target replication factor of 2 cannot be reached because only 1 broker(s) are registered.';
    assert.deepEqual(reported, missing(`m; Creation failed: a (${error}), b (${error}), c (${error}) and 2 more.`));
  });

  it('creates nothing without CREATE on every topic, and says which ones', T, async () => {
    const acls = AclStore.open({ superUsers: new Set(), allowEveryoneIfNoAclFound: false }, null, nodeFileSystem);
    await acls.createAcls([{
      resourceType: ResourceType.TOPIC, resourceName: 'auth-a-changelog', patternType: 3, principal: 'User:alice', host: '*',
      operation: AclOperation.CREATE, permissionType: 3,
    }]);
    const guarded = { ...ctx, broker: { ...broker.context, acls } } as RequestContext;
    const topics = [internalTopic('auth-a-changelog', 1), internalTopic('auth-b-changelog', 1), internalTopic('auth-c-changelog', 1)];
    assert.deepEqual(
      createStreamsInternalTopics(guarded, topics, missing('m'), HEARTBEAT_INTERVAL_MS),
      missing('m; Unauthorized to CREATE on topics auth-b-changelog, auth-c-changelog.'),
    );
    // No MISSING_INTERNAL_TOPICS status yet: Kafka adds one.
    assert.deepEqual(
      createStreamsInternalTopics(guarded, topics, [], HEARTBEAT_INTERVAL_MS),
      missing('Unauthorized to CREATE on topics auth-b-changelog, auth-c-changelog.'),
    );
    for (const t of topics) assert.equal(broker.context.storage.topic(t.name), undefined);
  });
});
