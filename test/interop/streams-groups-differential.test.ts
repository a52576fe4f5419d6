/**
 * Differential conformance of streams groups (KIP-1071, Kafka Streams' `group.protocol=streams`):
 * scripted StreamsGroupHeartbeat (v1) and StreamsGroupDescribe (v1) sequences, and ListGroups
 * (the `streams` type filter) and DescribeGroups of a streams group, as raw requests to a real
 * Apache Kafka 4.4 broker and to Brook (test/support/differential/pair.ts).
 *
 * Each broker runs the same script on its own connection ("on Kafka 4.4", "on Brook"): the
 * script asserts what Kafka 4.4 does (so the Kafka run validates the script) and records every
 * answer, normalised, in a transcript; "Brook answers as Kafka" then compares the two
 * transcripts step by step, field by field. Running the sides one after the other, not in
 * lock step, lets each broker's asynchronous work (Kafka creates the internal topics through
 * its controller; a new target assignment waits for the assignment interval) settle by
 * polling, and only settled answers are recorded.
 *
 * What may differ, and how it is made comparable (on top of normalize.ts's NORMALISATIONS):
 *   - member ids, process ids and topic ids are the script's own (streams members choose their
 *     ids; each source topic is created on Kafka, then on Brook with Kafka's id), so nothing
 *     of them is normalised; internal topics are named, never identified, in these APIs;
 *   - task lists are sorted by subtopology id and partition, members by member id, and
 *     subtopologies by id: Kafka builds them from hash maps and sets, and clients index them;
 *     described groups are sorted by group id (Kafka answers them in the order of their
 *     __consumer_offsets partitions);
 *   - errorMessage becomes a placeholder in the field-by-field diff (normalize.ts), but every
 *     step also compares the error message text exactly, as Kafka words it;
 *   - the ASSIGNMENT_DELAYED status that says the assignment interval (1 s) has not passed is
 *     dropped: whether it has depends on the script's speed (see sortHeartbeat); before each
 *     member joining a group that has a target, the script waits for the interval to pass,
 *     so that what the join settles to does not depend on that speed either;
 *   - nothing else: heartbeat interval, task offset interval, acceptable recovery lag,
 *     statuses and their details, epochs and states are compared as they are.
 *
 * Kafka runs with its streams-group defaults (initial rebalance delay 3 s, assignment
 * interval 1 s, heartbeat interval 5 s, session timeout 45 s), which Brook must share.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Side } from '../support/differential/pair.js';
import { diffValues } from '../support/differential/normalize.js';
import type { RawConnection, RequestBody } from '../support/kafka/raw-client.js';
import type { StreamsGroupHeartbeatResponseData, StreamsGroupHeartbeatRequestTopology, StreamsGroupHeartbeatRequestTaskIds } from '../../src/protocol/messages/streams-group-heartbeat.js';
import type { StreamsGroupDescribeResponseData } from '../../src/protocol/messages/streams-group-describe.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;
const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x));

type Heartbeat = RequestBody<'StreamsGroupHeartbeat'>;
type Tasks = StreamsGroupHeartbeatRequestTaskIds[];

/** Status codes of StreamsGroupHeartbeatResponse.Status (its schema). */
const STALE_TOPOLOGY = 0;
const MISSING_SOURCE_TOPICS = 1;
const MISSING_INTERNAL_TOPICS = 3;
const ASSIGNMENT_DELAYED = 5;

const codes = (r: StreamsGroupHeartbeatResponseData): number[] => (r.status ?? []).map((s) => s.statusCode);

/** Kafka's group.streams.assignment.interval.ms (its default), and a margin. */
const ASSIGNMENT_INTERVAL_MS = 1000;
/**
 * Waits until the group's last target assignment is older than the assignment interval, so
 * that the next member joining gets a new target at once, on either broker, however fast the
 * script ran before (otherwise the joining member's epoch and tasks would depend on it).
 */
const assignmentIntervalPassed = (): Promise<void> => sleep(ASSIGNMENT_INTERVAL_MS + 200);

const SOURCE = 'sgd-in';
const SOURCE_PARTITIONS = 2;

/**
 * Kafka Streams' word count as its client describes it: subtopology 0 reads the source topic
 * and writes the repartition topic; subtopology 1 reads the repartition topic into a store
 * with a changelog. Internal topics carry the application id as prefix and no partition
 * count (Kafka derives it from the source topics).
 */
function wordCount(app: string, epoch: number, source = SOURCE): StreamsGroupHeartbeatRequestTopology {
  const internal = (name: string): { name: string; partitions: number; replicationFactor: number; topicConfigs: [] } => ({ name, partitions: 0, replicationFactor: 0, topicConfigs: [] });
  return {
    epoch,
    subtopologies: [
      { subtopologyId: '0', sourceTopics: [source], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [`${app}-words-repartition`], repartitionSourceTopics: [], copartitionGroups: [] },
      {
        subtopologyId: '1', sourceTopics: [], sourceTopicRegex: [], stateChangelogTopics: [internal(`${app}-counts-changelog`)], repartitionSinkTopics: [],
        repartitionSourceTopics: [internal(`${app}-words-repartition`)], copartitionGroups: [],
      },
    ],
  };
}

/** A joining heartbeat (member epoch 0), as Kafka Streams sends it. */
function joining(groupId: string, memberId: string, processId: string, topology: StreamsGroupHeartbeatRequestTopology | null, extra: Partial<Heartbeat> = {}): Heartbeat {
  return {
    groupId, memberId, memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, topology,
    activeTasks: [], standbyTasks: [], warmupTasks: [], processId, userEndpoint: null, clientTags: [], taskOffsets: [], taskEndOffsets: [], shutdownApplication: false,
    ...extra,
  };
}

/** A heartbeat of a member in the group; `owned` null means "unchanged since the last one". */
function beat(groupId: string, memberId: string, memberEpoch: number, owned: { active: Tasks; standby: Tasks; warmup: Tasks } | null = null, extra: Partial<Heartbeat> = {}): Heartbeat {
  return {
    groupId, memberId, memberEpoch, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, topology: null,
    activeTasks: owned?.active ?? null, standbyTasks: owned?.standby ?? null, warmupTasks: owned?.warmup ?? null,
    processId: null, userEndpoint: null, clientTags: null, taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
    ...extra,
  };
}

function sortTasks<T extends { subtopologyId: string; partitions: number[] }>(tasks: T[] | null): T[] | null {
  if (tasks === null) return null;
  return tasks.map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a - b) })).sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0));
}

const byKey = <T>(key: (t: T) => string) => (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * Sorts the task lists, and drops the ASSIGNMENT_DELAYED status that says the assignment
 * interval has not passed since the group's last target assignment: whether it has depends on
 * how fast the script runs. (The one that says the initial rebalance delay has not passed
 * stays: a new group's first members always get it.)
 */
function sortHeartbeat(r: StreamsGroupHeartbeatResponseData): StreamsGroupHeartbeatResponseData {
  const status = r.status === null ? null : r.status.filter((s) => !(s.statusCode === ASSIGNMENT_DELAYED && /assignment interval/.test(s.statusDetail)));
  return { ...r, status, activeTasks: sortTasks(r.activeTasks), standbyTasks: sortTasks(r.standbyTasks), warmupTasks: sortTasks(r.warmupTasks) };
}

function sortDescribe(r: StreamsGroupDescribeResponseData): StreamsGroupDescribeResponseData {
  const assignment = <A extends { activeTasks: { subtopologyId: string; partitions: number[] }[]; standbyTasks: { subtopologyId: string; partitions: number[] }[]; warmupTasks: { subtopologyId: string; partitions: number[] }[] }>(a: A): A =>
    ({ ...a, activeTasks: sortTasks(a.activeTasks)!, standbyTasks: sortTasks(a.standbyTasks)!, warmupTasks: sortTasks(a.warmupTasks)! });
  return {
    ...r,
    groups: [...r.groups].sort(byKey((g) => g.groupId)).map((g) => ({
      ...g,
      topology: g.topology === null ? null : { ...g.topology, subtopologies: g.topology.subtopologies === null ? null : [...g.topology.subtopologies].sort(byKey((s) => s.subtopologyId)) },
      members: [...g.members].sort(byKey((m) => m.memberId)).map((m) => ({ ...m, assignment: assignment(m.assignment), targetAssignment: assignment(m.targetAssignment) })),
    })),
  };
}

/** The number of tasks in task lists. */
const count = (tasks: { partitions: number[] }[] | null | undefined): number => (tasks ?? []).reduce((n, t) => n + t.partitions.length, 0);
/** "subtopology_partition" names of the tasks, sorted. */
const names = (tasks: { subtopologyId: string; partitions: number[] }[] | null | undefined): string[] =>
  (tasks ?? []).flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`)).sort();
const asRequest = (tasks: { subtopologyId: string; partitions: number[] }[] | null): Tasks => (tasks ?? []).map((t) => ({ subtopologyId: t.subtopologyId, partitions: [...t.partitions] }));

interface Step {
  readonly what: string;
  /** The normalised answer. */
  readonly answer: unknown;
  /** Error messages as the broker worded them (compared exactly). */
  readonly messages: (string | null)[];
}

describe('streams groups: StreamsGroupHeartbeat and StreamsGroupDescribe as Kafka 4.4 answers them', { timeout: 300_000 }, () => {
  let pair: DiffPair;
  const transcripts: Partial<Record<Side, Step[]>> = {};

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start({ 'group.initial.rebalance.delay.ms': '0', 'auto.create.topics.enable': 'false' }, { groupInitialRebalanceDelayMs: 0, autoCreateTopics: false });
    // Kafka creates __consumer_offsets at the first FindCoordinator and loads it asynchronously.
    for (let i = 0; ; i++) {
      const fc = await pair.conn.kafka.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['warm-up'] });
      const d = await pair.conn.kafka.request('ConsumerGroupDescribe', 1, { groupIds: ['warm-up'], includeAuthorizedOperations: false });
      if ((fc.coordinators ?? []).every((c) => c.errorCode === 0) && d.groups[0]?.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) break;
      if (i > 300) throw new Error(`Kafka's group coordinator did not load\n${pair.kafkaBroker.logTail(30)}`);
      await sleep(50);
    }
    // The source topic: on Kafka, then on Brook with Kafka's topic id.
    const res = await pair.conn.kafka.request('CreateTopics', 7, {
      topics: [{ name: SOURCE, numPartitions: SOURCE_PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
    });
    const created = res.topics[0]!;
    assert.equal(created.errorCode, 0, `kafka: creating ${SOURCE}: ${created.errorMessage}`);
    await pair.waitForKafkaTopic(SOURCE, SOURCE_PARTITIONS);
    pair.brookBroker.createTopic(SOURCE, SOURCE_PARTITIONS, { topicId: created.topicId });
    // A standby replica per task, for the group 'sgd-standby' only (a group config).
    const configs = await pair.both('IncrementalAlterConfigs', 1, {
      resources: [{ resourceType: 32, resourceName: 'sgd-standby', configs: [{ name: 'streams.num.standby.replicas', configOperation: 0, value: '1' }] }], validateOnly: false,
    });
    for (const side of ['kafka', 'brook'] as const) assert.equal(configs[side].responses[0]!.errorCode, ErrorCode.NONE, `${side}: ${configs[side].responses[0]!.errorMessage}`);
  });

  after(async () => {
    await pair?.stop();
  });

  /** The script on one side: asserts Kafka 4.4's behaviour and returns the transcript. */
  async function script(side: Side): Promise<Step[]> {
    const conn: RawConnection = await pair.connect(side);
    const steps: Step[] = [];
    const normaliser = pair.normaliser[side];
    try {
      const heartbeat = async (what: string, body: Heartbeat): Promise<StreamsGroupHeartbeatResponseData> => {
        const r = await conn.request('StreamsGroupHeartbeat', 1, body);
        steps.push({ what, answer: normaliser.normalize(sortHeartbeat(r)), messages: [r.errorMessage] });
        return r;
      };
      const refused = async (what: string, body: Heartbeat, errorCode: number, message?: string): Promise<StreamsGroupHeartbeatResponseData> => {
        const r = await heartbeat(what, body);
        assert.equal(errorName(r.errorCode), errorName(errorCode), `${side}: ${what}: ${r.errorMessage}`);
        if (message !== undefined) assert.equal(r.errorMessage, message, `${side}: ${what}`);
        return r;
      };
      const ok = async (what: string, body: Heartbeat): Promise<StreamsGroupHeartbeatResponseData> => refused(what, body, ErrorCode.NONE);
      const describeGroups = async (what: string, groupIds: string[]): Promise<StreamsGroupDescribeResponseData> => {
        const r = await conn.request('StreamsGroupDescribe', 1, { groupIds, includeAuthorizedOperations: false, includeTopologyDescription: false });
        const sorted = sortDescribe(r);
        steps.push({ what, answer: normaliser.normalize(sorted), messages: sorted.groups.map((g) => g.errorMessage) });
        return r;
      };
      /**
       * Heartbeats (unrecorded) from `from`, each at the member epoch the previous answer gave,
       * until `done` holds; records that answer with the tasks the member then holds: an
       * answer's task lists are null when unchanged, so the latest non-null ones are carried
       * forward (how many answers an assignment takes to arrive depends on timing, what it
       * settles to does not).
       */
      const until = async (
        what: string, from: number, body: (epoch: number) => Heartbeat, done: (r: StreamsGroupHeartbeatResponseData) => boolean,
        heldBefore: Pick<StreamsGroupHeartbeatResponseData, 'activeTasks' | 'standbyTasks' | 'warmupTasks'> = { activeTasks: null, standbyTasks: null, warmupTasks: null },
      ): Promise<StreamsGroupHeartbeatResponseData> => {
        let epoch = from;
        let held = heldBefore;
        for (let i = 0; ; i++) {
          const answer = await conn.request('StreamsGroupHeartbeat', 1, body(epoch));
          assert.equal(answer.errorCode, 0, `${side}: ${what}: ${answer.errorMessage}`);
          epoch = answer.memberEpoch;
          held = {
            activeTasks: answer.activeTasks ?? held.activeTasks, standbyTasks: answer.standbyTasks ?? held.standbyTasks, warmupTasks: answer.warmupTasks ?? held.warmupTasks,
          };
          const r = { ...answer, ...held };
          if (done(r)) {
            steps.push({ what, answer: normaliser.normalize(sortHeartbeat(r)), messages: [r.errorMessage] });
            return r;
          }
          if (i > 100) throw new Error(`${side}: ${what}: never settled; last answer ${json(answer)}, tasks held ${json(held)}`);
          await sleep(200);
        }
      };

      // --- A topology whose source topic does not exist.
      const missing = await ok('a member joins with a missing source topic', joining('sgd-missing', 'member-m', 'process-m', wordCount('sgd-missing', 0, 'sgd-nope')));
      assert.ok(codes(missing).includes(MISSING_SOURCE_TOPICS), `${side}: ${json(missing.status)}`);
      assert.equal(missing.status?.find((s) => s.statusCode === MISSING_SOURCE_TOPICS)?.statusDetail, 'Source topics sgd-nope are missing.');
      assert.deepEqual([missing.memberId, count(missing.activeTasks)], ['member-m', 0]);
      await describeGroups('the group with a missing source topic', ['sgd-missing']);
      await ok('the member with the missing source topic leaves', beat('sgd-missing', 'member-m', -1));

      // --- A joins the word count: Kafka reports the internal topics missing, then creates them.
      const G = 'sgd-wc';
      const a1 = await ok('A joins', joining(G, 'member-a', 'process-a', wordCount(G, 1)));
      assert.ok(codes(a1).includes(MISSING_INTERNAL_TOPICS), `${side}: ${json(a1.status)}`);
      assert.equal(a1.status?.find((s) => s.statusCode === ASSIGNMENT_DELAYED)?.statusDetail, 'Assignment delayed due to the configured initial rebalance delay.');
      assert.equal(a1.status?.find((s) => s.statusCode === MISSING_INTERNAL_TOPICS)?.statusDetail, `Internal topics are missing: ${G}-counts-changelog, ${G}-words-repartition`);
      assert.deepEqual([a1.memberEpoch, a1.heartbeatIntervalMs, count(a1.activeTasks)], [1, 5000, 0], `${side}: ${json(a1)}`);
      let aEpoch = a1.memberEpoch;
      const a2 = await until('A, once the internal topics exist and the initial rebalance delay passed', aEpoch, (e) => beat(G, 'member-a', e), (r) => count(r.activeTasks) === 4);
      assert.deepEqual(a2.status, [], `${side}: no status once the internal topics exist`);
      assert.deepEqual(names(a2.activeTasks), ['0_0', '0_1', '1_0', '1_1']);
      aEpoch = a2.memberEpoch;
      const md = await conn.request('Metadata', 12, { topics: [{ name: `${G}-words-repartition` }, { name: `${G}-counts-changelog` }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      steps.push({ what: 'the internal topics the coordinator created', answer: md.topics.map((t) => [t.name, t.errorCode, t.partitions.length]).sort(), messages: [] });
      assert.deepEqual(md.topics.map((t) => [t.name, t.errorCode, t.partitions.length]).sort(), [[`${G}-counts-changelog`, 0, 2], [`${G}-words-repartition`, 0, 2]]);
      const aOwned = { active: asRequest(a2.activeTasks), standby: [], warmup: [] };
      await ok('A reports its tasks', beat(G, 'member-a', aEpoch, aOwned));
      await describeGroups('A alone, stable', [G]);

      // --- B joins: A must give tasks up before B gets them.
      await assignmentIntervalPassed();
      const b1 = await ok('B joins', joining(G, 'member-b', 'process-b', wordCount(G, 1)));
      assert.equal(count(b1.activeTasks), 0, `${side}: B gets nothing before A revoked: ${json(b1)}`);
      let bEpoch = b1.memberEpoch;
      const a3 = await until('A is asked to revoke half of its tasks', aEpoch, (e) => beat(G, 'member-a', e, aOwned), (r) => count(r.activeTasks) === 2);
      assert.equal(a3.memberEpoch, aEpoch, 'A stays at its epoch until it revoked');
      const b2 = await ok('B before A revoked', beat(G, 'member-b', bEpoch));
      assert.equal(count(b2.activeTasks ?? []), 0, `${side}: B gets nothing while A still owns the tasks: ${json(b2)}`);
      bEpoch = b2.memberEpoch;
      const aKept = { active: asRequest(a3.activeTasks), standby: [], warmup: [] };
      const a4 = await ok('A reports the revocation', beat(G, 'member-a', aEpoch, aKept));
      assert.ok(a4.memberEpoch > aEpoch, `${side}: A moves to the new epoch: ${json(a4)}`);
      aEpoch = a4.memberEpoch;
      const b3 = await until('B gets the released tasks', bEpoch, (e) => beat(G, 'member-b', e), (r) => count(r.activeTasks) === 2);
      bEpoch = b3.memberEpoch;
      assert.deepEqual([...names(a3.activeTasks), ...names(b3.activeTasks)].sort(), ['0_0', '0_1', '1_0', '1_1'], `${side}: the tasks are split`);
      assert.equal(bEpoch, aEpoch);
      await ok('B reports its tasks', beat(G, 'member-b', bEpoch, { active: asRequest(b3.activeTasks), standby: [], warmup: [] }));
      await describeGroups('A and B, and unknown groups', [G, 'sgd-unknown']);

      // --- Topology epochs.
      await assignmentIntervalPassed();
      const stale = await ok('C joins with an older topology epoch', joining(G, 'member-c', 'process-c', wordCount(G, 0)));
      assert.ok(stale.status?.some((s) => s.statusCode === STALE_TOPOLOGY), `${side}: ${json(stale)}`);
      await ok('C leaves', beat(G, 'member-c', -1));
      await heartbeat('D joins with a newer topology epoch', joining(G, 'member-d', 'process-d', wordCount(G, 2)));
      await heartbeat('D leaves', beat(G, 'member-d', -1));

      // --- Fencing.
      await refused('an unknown member', beat(G, 'member-x', aEpoch), ErrorCode.UNKNOWN_MEMBER_ID);
      await refused('A with an epoch ahead', beat(G, 'member-a', aEpoch + 5), ErrorCode.FENCED_MEMBER_EPOCH);
      await refused('A with an old epoch', beat(G, 'member-a', aEpoch - 2), ErrorCode.FENCED_MEMBER_EPOCH);
      await refused('an unknown group', beat('sgd-none', 'member-a', 1), ErrorCode.GROUP_ID_NOT_FOUND);

      // --- Invalid requests: GroupCoordinatorService's validation (throwIfStreamsGroupHeartbeatRequestIsInvalid
      // and throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures), in its order.
      const V = 'sgd-invalid';
      const join = (extra: Partial<Heartbeat> = {}): Heartbeat => joining(V, 'member-v', 'process-v', wordCount(V, 0), extra);
      const changelogWithPartitions = wordCount(V, 0);
      changelogWithPartitions.subtopologies[1]!.stateChangelogTopics[0]!.partitions = 3;
      const withRegex = wordCount(V, 0);
      withRegex.subtopologies[0]!.sourceTopicRegex = ['sgd-.*'];
      await refused('an empty member id', join({ memberId: '' }), ErrorCode.INVALID_REQUEST, 'MemberId can\'t be empty.');
      await refused('an empty group id', join({ groupId: '' }), ErrorCode.INVALID_REQUEST, 'GroupId can\'t be empty.');
      await refused('an empty instance id', join({ instanceId: '' }), ErrorCode.INVALID_REQUEST, 'InstanceId can\'t be empty.');
      await refused('an empty rack id', join({ rackId: '' }), ErrorCode.INVALID_REQUEST, 'RackId can\'t be empty.');
      await refused('a join without a rebalance timeout', join({ rebalanceTimeoutMs: -1 }), ErrorCode.INVALID_REQUEST, 'RebalanceTimeoutMs must be provided in first request.');
      await refused('a join with active tasks', join({ activeTasks: [{ subtopologyId: '0', partitions: [0] }] }), ErrorCode.INVALID_REQUEST, 'ActiveTasks must be empty when (re-)joining.');
      await refused('a join with standby tasks', join({ standbyTasks: [{ subtopologyId: '0', partitions: [0] }] }), ErrorCode.INVALID_REQUEST, 'StandbyTasks must be empty when (re-)joining.');
      await refused('a join with warm-up tasks', join({ warmupTasks: [{ subtopologyId: '0', partitions: [0] }] }), ErrorCode.INVALID_REQUEST, 'WarmupTasks must be empty when (re-)joining.');
      await refused('a join without a topology', join({ topology: null }), ErrorCode.INVALID_REQUEST, 'Topology must be non-null when (re-)joining.');
      await refused('a changelog topic with a partition count', join({ topology: changelogWithPartitions }), ErrorCode.STREAMS_INVALID_TOPOLOGY);
      // KafkaApis' own checks of the topology's topic names, before the coordinator's.
      await refused('a Kafka internal topic as a source', join({ topology: wordCount(V, 0, '__consumer_offsets') }), ErrorCode.STREAMS_INVALID_TOPOLOGY,
        'Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited.');
      await refused('an invalid topic name as a source', join({ topology: wordCount(V, 0, 'bad topic!') }), ErrorCode.STREAMS_INVALID_TOPOLOGY,
        'Topic names bad topic! are not valid topic names.');
      await refused('a source topic regex (not supported yet)', join({ topology: withRegex }), ErrorCode.INVALID_REQUEST, 'Regular expressions for source topics are not supported yet.');
      await refused('a static member rejoining (-2) without an instance id', beat(V, 'member-v', -2), ErrorCode.INVALID_REQUEST, 'InstanceId can\'t be null.');
      await refused('member epoch -3', beat(V, 'member-v', -3), ErrorCode.INVALID_REQUEST, 'MemberEpoch is -3, but must be greater than or equal to -2.');
      await refused('active tasks without standby and warm-up tasks', beat(G, 'member-a', aEpoch, null, { activeTasks: [] }), ErrorCode.INVALID_REQUEST, 'If one task-type is non-null, all must be non-null.');
      await refused('a topology when not joining', beat(G, 'member-a', aEpoch, null, { topology: wordCount(G, 1) }), ErrorCode.INVALID_REQUEST, 'Topology can only be provided when (re-)joining.');

      // --- Standby tasks (the group config streams.num.standby.replicas=1): each on the other
      // process, and only of stateful tasks (subtopology 1 has the store; 0 has none).
      const S = 'sgd-standby';
      const s1 = await ok('standby group: A joins', joining(S, 'member-a', 'process-a', wordCount(S, 0)));
      let sa = s1.memberEpoch;
      const s2 = await until('standby group: A gets all tasks, no standby (one process)', sa, (e) => beat(S, 'member-a', e), (r) => count(r.activeTasks) === 4);
      sa = s2.memberEpoch;
      assert.equal(count(s2.standbyTasks), 0, `${side}: no standby on the only process`);
      const saOwned = { active: asRequest(s2.activeTasks), standby: [], warmup: [] };
      await ok('standby group: A reports its tasks', beat(S, 'member-a', sa, saOwned));
      await assignmentIntervalPassed();
      const s3 = await ok('standby group: B joins', joining(S, 'member-b', 'process-b', wordCount(S, 0)));
      let sb = s3.memberEpoch;
      const s4 = await until('standby group: A is asked to revoke', sa, (e) => beat(S, 'member-a', e, saOwned), (r) => count(r.activeTasks) === 2);
      const s5 = await ok('standby group: A reports the revocation', beat(S, 'member-a', sa, { active: asRequest(s4.activeTasks), standby: [], warmup: [] }));
      sa = s5.memberEpoch;
      const s6 = await until('standby group: B gets its active and standby tasks', sb, (e) => beat(S, 'member-b', e), (r) => count(r.activeTasks) === 2 && count(r.standbyTasks) === 1);
      sb = s6.memberEpoch;
      const s7 = await until('standby group: A gets its standby tasks', sa, (e) => beat(S, 'member-a', e, { active: asRequest(s4.activeTasks), standby: [], warmup: [] }), (r) => count(r.standbyTasks) === 1, {
        activeTasks: s5.activeTasks ?? s4.activeTasks, standbyTasks: s5.standbyTasks ?? s4.standbyTasks, warmupTasks: s5.warmupTasks ?? s4.warmupTasks,
      });
      sa = s7.memberEpoch;
      const stateful = (tasks: string[]): string[] => tasks.filter((t) => t.startsWith('1_'));
      assert.deepEqual(names(s7.standbyTasks), stateful(names(s6.activeTasks)), `${side}: A's standby task is B's active stateful task`);
      assert.deepEqual(names(s6.standbyTasks), stateful(names(s7.activeTasks)), `${side}: B's standby task is A's active stateful task`);
      await ok('standby group: B reports its tasks', beat(S, 'member-b', sb, { active: asRequest(s6.activeTasks), standby: asRequest(s6.standbyTasks), warmup: [] }));
      await ok('standby group: A reports its tasks', beat(S, 'member-a', sa, { active: asRequest(s7.activeTasks), standby: asRequest(s7.standbyTasks), warmup: [] }));
      const sd = await describeGroups('standby group: described', [S]);
      assert.deepEqual(sd.groups[0]!.members.map((m) => [m.memberId, count(m.assignment.activeTasks), count(m.assignment.standbyTasks)]).sort(), [['member-a', 2, 1], ['member-b', 2, 1]]);

      // --- The other group APIs know streams groups.
      const consumer = await conn.request('ConsumerGroupHeartbeat', 1, {
        groupId: 'sgd-consumer', memberId: 'member-k', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: [SOURCE], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
      });
      assert.equal(consumer.errorCode, 0, `${side}: ${consumer.errorMessage}`);
      await describeGroups('StreamsGroupDescribe of a consumer group', ['sgd-consumer']);
      await refused('a streams member joining a consumer group', joining('sgd-consumer', 'member-a', 'process-a', wordCount('sgd-consumer', 0)), ErrorCode.GROUP_ID_NOT_FOUND);
      const cgd = await conn.request('ConsumerGroupDescribe', 1, { groupIds: [G], includeAuthorizedOperations: false });
      steps.push({ what: 'ConsumerGroupDescribe of a streams group', answer: normaliser.normalize(cgd), messages: cgd.groups.map((g) => g.errorMessage ?? null) });
      const listed = await conn.request('ListGroups', 5, { statesFilter: [], typesFilter: ['streams'] });
      const streamsGroups = listed.groups.filter((g) => g.groupId.startsWith('sgd-')).sort(byKey((g) => g.groupId));
      steps.push({ what: 'ListGroups of type streams', answer: normaliser.normalize({ ...listed, groups: streamsGroups }), messages: [] });
      assert.deepEqual(streamsGroups.map((g) => [g.groupId, g.groupType, g.protocolType]), [['sgd-missing', 'streams', 'streams'], [G, 'streams', 'streams'], [S, 'streams', 'streams']].sort(), json(listed));
      const dg = await conn.request('DescribeGroups', 6, { groups: [G], includeAuthorizedOperations: false });
      steps.push({ what: 'DescribeGroups of a streams group', answer: normaliser.normalize(dg), messages: dg.groups.map((g) => g.errorMessage ?? null) });

      // --- Leaving.
      await ok('B leaves', beat(G, 'member-b', -1));
      await until('A gets all tasks back', aEpoch, (e) => beat(G, 'member-a', e, aKept), (r) => count(r.activeTasks) === 4);
      await ok('A leaves', beat(G, 'member-a', -1));
      await refused('A leaves again', beat(G, 'member-a', -1), ErrorCode.UNKNOWN_MEMBER_ID);
      const empty = await describeGroups('nobody left', [G]);
      assert.equal(empty.groups[0]!.groupState, 'Empty');
      return steps;
    } finally {
      conn.close();
    }
  }

  it('on Kafka 4.4', async () => {
    transcripts.kafka = await script('kafka');
    if (process.env.BROOK_TEST_VERBOSE) for (const s of transcripts.kafka) console.log(s.what, json(s.answer), json(s.messages));
  });

  it('on Brook', async () => {
    transcripts.brook = await script('brook');
  });

  it('Brook answers as Kafka, step by step', () => {
    const { kafka, brook } = transcripts;
    assert.ok(kafka, 'the script ran on Kafka');
    assert.ok(brook, 'the script ran on Brook');
    assert.deepEqual(brook.map((s) => s.what), kafka.map((s) => s.what));
    kafka.forEach((k, i) => {
      const b = brook[i]!;
      assert.deepEqual(diffValues(k.answer, b.answer), [], `${k.what}\nkafka: ${json(k.answer)}\nbrook: ${json(b.answer)}`);
      assert.deepEqual(b.messages, k.messages, `${k.what}: Kafka's error messages`);
    });
  });
});
