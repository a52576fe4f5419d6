/**
 * Authorization, differentially: Apache Kafka 4.4 (single-node KRaft, StandardAuthorizer)
 * and Brook get the same ACLs and then the same requests from the same restricted principal,
 * User:alice (SCRAM-SHA-256 on a SASL_PLAINTEXT listener); the answers' error codes per
 * topic, partition, group and resource, and which topics and groups are visible, must agree.
 * The super user User:ANONYMOUS (the PLAINTEXT listener, also Kafka's controller and
 * inter-broker principal) sets up topics, records, a committed offset and a KIP-848 member
 * on both brokers, then grants one ACL configuration at a time, each on its own names
 * (prefix c1-, c2-, ...):
 *   none            no ACLs for alice at all;
 *   literal         literal ALLOWs: READ/WRITE and ALTER_CONFIGS on one topic, DESCRIBE on another,
 *                   READ on two groups, DESCRIBE (not WRITE) on the transactional id, DESCRIBE,
 *                   DESCRIBE_CONFIGS and CLUSTER_ACTION on the cluster;
 *   prefixed+deny   ALL on a topic prefix and a group prefix, with literal DENYs inside them
 *                   (READ on one topic, ALL on another, DESCRIBE on a group), CREATE on the
 *                   cluster, WRITE on a transactional-id prefix with a literal DENY of DESCRIBE
 *                   inside it;
 *   wildcard        ALL on `*` topics, groups and transactional ids, ALL on the cluster;
 *   cluster         IDEMPOTENT_WRITE, ALTER and ALTER_CONFIGS on the cluster, WRITE on the
 *                   transactional id, READ (not WRITE) on one topic and READ on one group.
 * The request catalogue is test/support/differential/acl-requests.ts and, for the transaction
 * APIs (a real transaction on both), AlterConfigs and the client quota APIs,
 * acl-transaction-requests.ts. Requests go out with
 * Brook's codecs at the same versions to both (the highest both support, capped where later
 * versions name topics by id).
 *
 * Needs Java 17+ with Kafka's classpath (test/support/kafka/build.sh).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';
import { aclSteps, names, produceBody, type AclSide, type VersionOf } from '../support/differential/acl-requests.js';
import { transactionSteps } from '../support/differential/acl-transaction-requests.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api, type ApiCodecs } from '../../src/protocol/messages/index.js';
import type { AclCreation } from '../../src/protocol/messages/create-acls.js';

const skip = kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)';
const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const SCRAM_LOGIN = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
const ALICE = { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-secret' } as const;

// AclOperation, ResourceType, PatternType and AclPermissionType codes.
const ALL = 2, READ = 3, WRITE = 4, CREATE = 5, ALTER = 7, DESCRIBE = 8, CLUSTER_ACTION = 9, DESCRIBE_CONFIGS = 10, ALTER_CONFIGS = 11, IDEMPOTENT_WRITE = 12;
const TOPIC = 2, GROUP = 3, CLUSTER = 4, TRANSACTIONAL_ID = 5;
const LITERAL = 3, PREFIXED = 4;
const DENY = 2, ALLOW = 3;

const acl = (resourceType: number, resourceName: string, resourcePatternType: number, operation: number, permissionType = ALLOW): AclCreation =>
  ({ resourceType, resourceName, resourcePatternType, principal: 'User:alice', host: '*', operation, permissionType });

/** The ACL configurations, each on the names of its prefix. */
function configurations(): { name: string; acls(p: string): AclCreation[] }[] {
  return [
    { name: 'none', acls: () => [] },
    { name: 'literal', acls: (p) => {
      const n = names(p);
      return [
        acl(TOPIC, n.A, LITERAL, READ), acl(TOPIC, n.A, LITERAL, WRITE), acl(TOPIC, n.A, LITERAL, ALTER_CONFIGS), acl(TOPIC, n.B, LITERAL, DESCRIBE),
        acl(GROUP, n.GA, LITERAL, READ), acl(GROUP, n.G848, LITERAL, READ), acl(TRANSACTIONAL_ID, n.TX, LITERAL, DESCRIBE),
        acl(CLUSTER, 'kafka-cluster', LITERAL, DESCRIBE), acl(CLUSTER, 'kafka-cluster', LITERAL, DESCRIBE_CONFIGS), acl(CLUSTER, 'kafka-cluster', LITERAL, CLUSTER_ACTION),
      ];
    } },
    { name: 'prefixed+deny', acls: (p) => {
      const n = names(p);
      return [
        acl(TOPIC, n.A, PREFIXED, ALL), acl(TOPIC, n.C, LITERAL, READ, DENY), acl(TOPIC, n.D, LITERAL, ALL, DENY),
        acl(GROUP, p, PREFIXED, ALL), acl(GROUP, n.GB, LITERAL, DESCRIBE, DENY),
        acl(CLUSTER, 'kafka-cluster', LITERAL, CREATE), acl(TRANSACTIONAL_ID, p, PREFIXED, WRITE), acl(TRANSACTIONAL_ID, `${n.TX}-none`, LITERAL, DESCRIBE, DENY),
      ];
    } },
    { name: 'wildcard', acls: () => [
      acl(TOPIC, '*', LITERAL, ALL), acl(GROUP, '*', LITERAL, ALL), acl(TRANSACTIONAL_ID, '*', LITERAL, ALL), acl(CLUSTER, 'kafka-cluster', LITERAL, ALL),
    ] },
    { name: 'cluster', acls: (p) => {
      const n = names(p);
      return [
        acl(CLUSTER, 'kafka-cluster', LITERAL, IDEMPOTENT_WRITE), acl(CLUSTER, 'kafka-cluster', LITERAL, ALTER), acl(CLUSTER, 'kafka-cluster', LITERAL, ALTER_CONFIGS),
        acl(TRANSACTIONAL_ID, n.TX, LITERAL, WRITE), acl(TOPIC, n.A, LITERAL, READ), acl(GROUP, n.GA, LITERAL, READ),
      ];
    } },
  ];
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('ACLs: the same requests as a restricted SASL principal get the same answers from Kafka 4.4 and Brook', { timeout: 300_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-acls-differential-');
  cleanup.add('remove data dir', () => dir.remove());
  const added = await brookCli(['users', 'add', 'alice', '--mechanism', 'SCRAM-SHA-256', '--password', ALICE.password, '--data-dir', dir.path]);
  assert.equal(added.code, 0, added.stderr);
  const [kafka, brook] = await Promise.all([
    startKafka({
      saslListeners: ['SASL_PLAINTEXT'],
      formatArgs: ['--add-scram', `SCRAM-SHA-256=[name=alice,password=${ALICE.password}]`],
      config: {
        'authorizer.class.name': STANDARD,
        'super.users': 'User:ANONYMOUS',
        'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'SCRAM-SHA-256',
        'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_LOGIN,
        'num.partitions': '1',
        // As Brook: one partition each, so a group's offsets are in __consumer_offsets-0 on both.
        'offsets.topic.num.partitions': '1', 'transaction.state.log.num.partitions': '1',
      },
    }),
    startBrook({
      dataDir: dir.path, listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-256',
      authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS',
    }),
  ]);
  cleanup.add('stop kafka', () => kafka.stop());
  cleanup.add('stop brook', () => brook.stop());
  const port = (protocol: string): number => brook.listeners.find((l) => l.securityProtocol === protocol)!.port;
  const connect = async (p: number, sasl: boolean): Promise<KafkaConnection> => {
    const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: p, clientId: 'acls-differential', requestTimeoutMs: 10_000, ...(sasl ? { sasl: ALICE } : {}) });
    cleanup.add('close connection', () => conn.close());
    return conn;
  };
  const sides: AclSide[] = [
    { name: 'kafka', admin: await connect(kafka.port, false), alice: await connect(kafka.listenerPorts['SASL_PLAINTEXT']!, true) },
    { name: 'brook', admin: await connect(port('PLAINTEXT'), false), alice: await connect(port('SASL_PLAINTEXT'), true) },
  ];
  // Later versions of these name topics by id, and the ids differ between the brokers.
  const BY_NAME: ReadonlyMap<ApiCodecs, number> = new Map<ApiCodecs, number>([[Api.Produce, 12], [Api.Fetch, 12], [Api.OffsetCommit, 9], [Api.OffsetFetch, 9]]);
  const v: VersionOf = (api) => Math.min(...sides.map((s) => s.alice.supportedVersion(api) ?? -1), BY_NAME.get(api) ?? Infinity);
  const [k, b] = sides as [AclSide, AclSide];

  const diffs: string[] = [];
  for (const [index, config] of configurations().entries()) {
    const p = `c${index + 1}-`;
    const n = names(p);
    for (const side of sides) {
      const created = await side.admin.request(Api.CreateTopics, {
        topics: [n.A, n.B, n.C, n.D].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 10_000, validateOnly: false,
      }, { version: v(Api.CreateTopics) });
      assert.deepEqual(created.topics.map((x) => x.errorCode), [0, 0, 0, 0], `${side.name}: ${JSON.stringify(created.topics)}`);
      await waitFor(`${side.name} leaders of ${p}*`, async () => {
        const produced = await side.admin.request(Api.Produce, produceBody([n.A, n.B, n.C, n.D]), { version: v(Api.Produce) });
        return produced!.responses.every((r) => r.partitionResponses.every((x) => x.errorCode === 0));
      });
      // Kafka creates __consumer_offsets on the first FindCoordinator and answers NOT_COORDINATOR while it loads.
      await waitFor(`${side.name} group coordinator`, async () => {
        await side.admin.request(Api.FindCoordinator, { keyType: 0, coordinatorKeys: [n.GB] }, { version: v(Api.FindCoordinator) });
        const committed = await side.admin.request(Api.OffsetCommit, {
          groupId: n.GB, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
          topics: [{ name: n.A, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }] }],
        }, { version: v(Api.OffsetCommit) });
        return committed.topics[0]!.partitions[0]!.errorCode === 0;
      });
      // A member the super user runs, assigned A and B: ConsumerGroupDescribe shows its topics.
      const member = await side.admin.request(Api.ConsumerGroupHeartbeat, {
        groupId: n.G848, memberId: `admin-member-${p}000000000001`, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: [n.A, n.B], subscribedTopicRegex: null, serverAssignor: 'range', topicPartitions: [],
      }, { version: v(Api.ConsumerGroupHeartbeat) });
      assert.equal(member.errorCode, 0, `${side.name}: ${member.errorMessage}`);
      const acls = config.acls(p);
      if (acls.length > 0) {
        const r = await side.admin.request(Api.CreateAcls, { creations: acls }, { version: v(Api.CreateAcls) });
        assert.deepEqual(r.results.map((x) => x.errorCode), acls.map(() => 0), side.name);
      }
      await waitFor(`${side.name} ACLs of ${config.name}`, async () => {
        const d = await side.admin.request(Api.DescribeAcls, {
          resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:alice', hostFilter: null, operation: 1, permissionType: 1,
        }, { version: v(Api.DescribeAcls) });
        return d.resources.reduce((sum, r) => sum + r.acls.length, 0) === acls.length;
      });
    }

    for (const step of aclSteps(transactionSteps())) {
      const label = `${config.name}: ${step.name}`;
      const run = async (side: AclSide, reconnectPort: number): Promise<unknown> => {
        if (side.alice.closed) side.alice = await connect(reconnectPort, true);
        try {
          return await step.run(side, p, v);
        } catch (err) {
          return { failed: err instanceof Error ? err.message.replace(/127\.0\.0\.1:\d+/g, 'BROKER') : String(err) };
        }
      };
      const [kafkaAnswer, brookAnswer] = await Promise.all([run(k, kafka.listenerPorts['SASL_PLAINTEXT']!), run(b, port('SASL_PLAINTEXT'))]);
      const kj = JSON.stringify(kafkaAnswer, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
      if (!isDeepStrictEqual(kafkaAnswer, brookAnswer)) diffs.push(`${label}:\n    kafka ${kj}\n    brook ${JSON.stringify(brookAnswer, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`);
      else t.diagnostic(`${label}: ${kj}`);
    }

    for (const side of sides) {
      await side.admin.request(Api.DeleteAcls, {
        filters: [{ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:alice', hostFilter: null, operation: 1, permissionType: 1 }],
      }, { version: v(Api.DeleteAcls) });
    }
  }
  assert.deepEqual(diffs, [], `Brook answers differently from Kafka:\n  ${diffs.join('\n  ')}`);
});
