/**
 * KIP-848 consumer groups through Brook's broker: the two APIs advertised and served, Kafka's
 * group.consumer.* settings (start-up checks, --config, DescribeConfigs), the coordinator
 * kept up to date with the topics, and a consumer group surviving a restart.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook, tempDir } from '../support/brook.js';
import { RawConnection, type RequestBody } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';
import { parseProperties } from '../../src/util/java-properties.js';
import type { Broker } from '../../src/broker/broker.js';

const BROKER = 4;

function join(groupId: string, memberId: string, topics: string[]): RequestBody<'ConsumerGroupHeartbeat'> {
  return {
    groupId, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: topics, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  };
}

function beat(groupId: string, memberId: string, memberEpoch: number): RequestBody<'ConsumerGroupHeartbeat'> {
  return { ...join(groupId, memberId, []), memberEpoch, rebalanceTimeoutMs: -1, subscribedTopicNames: null, topicPartitions: null };
}

async function withBroker(options: Parameters<typeof startBrook>[0], body: (broker: Broker, conn: RawConnection) => Promise<void>): Promise<void> {
  const broker = await startBrook(options);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'kip848-unit' });
  try {
    await body(broker, conn);
  } finally {
    conn.close();
    await broker.stop();
  }
}

describe('broker: KIP-848 consumer groups', { timeout: 30_000 }, () => {
  it('advertises ConsumerGroupHeartbeat v0-1 and ConsumerGroupDescribe v0-1, and serves them', async () => {
    await withBroker({}, async (broker, conn) => {
      const versions = await conn.request('ApiVersions', 3, { clientSoftwareName: 'unit', clientSoftwareVersion: '1' });
      assert.deepEqual(versions.apiKeys.filter((k) => k.apiKey === 68 || k.apiKey === 69).map((k) => [k.apiKey, k.minVersion, k.maxVersion]), [[68, 0, 1], [69, 0, 1]]);
      broker.createTopic('t', 2);
      const r = await conn.request('ConsumerGroupHeartbeat', 1, join('g', 'm1', ['t']));
      assert.equal(r.errorCode, ErrorCode.NONE);
      assert.equal(r.memberEpoch, 2, 'a new group is at epoch 1; the first join bumps it (Kafka 4.4)');
      assert.equal(r.assignment?.topicPartitions[0]?.partitions.length, 2);
      const d = await conn.request('ConsumerGroupDescribe', 1, { groupIds: ['g'], includeAuthorizedOperations: true });
      assert.equal(d.groups[0]!.groupState, 'Stable');
      assert.equal(d.groups[0]!.members[0]!.memberType, 1, 'v1 (KIP-1099): a consumer-protocol member');
      assert.notEqual(d.groups[0]!.authorizedOperations, -2147483648);
    });
  });

  it('answers UNSUPPORTED_VERSION when group.coordinator.rebalance.protocols leaves out consumer, as Kafka\'s KafkaApis', async () => {
    await withBroker({ groupCoordinatorRebalanceProtocols: ['classic'] }, async (_broker, conn) => {
      assert.equal((await conn.request('ConsumerGroupHeartbeat', 1, join('g', 'm1', ['t']))).errorCode, ErrorCode.UNSUPPORTED_VERSION);
      const d = await conn.request('ConsumerGroupDescribe', 0, { groupIds: ['g', 'h'], includeAuthorizedOperations: false });
      assert.deepEqual(d.groups.map((g) => [g.groupId, g.errorCode]), [['g', ErrorCode.UNSUPPORTED_VERSION], ['h', ErrorCode.UNSUPPORTED_VERSION]]);
    });
  });

  it('a topic created through CreateTopics reaches the coordinator: a member subscribed to it gets it', async () => {
    // Assignments at every change (group.consumer.assignment.interval.ms=0), so that each
    // heartbeat sees the new topics at once.
    await withBroker({ groupConsumerAssignmentIntervalMs: 0 }, async (_broker, conn) => {
      const first = await conn.request('ConsumerGroupHeartbeat', 1, join('g', 'm1', ['later']));
      assert.deepEqual(first.assignment?.topicPartitions, []);
      const created = await conn.request('CreateTopics', 7, { topics: [{ name: 'later', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
      assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
      const next = await conn.request('ConsumerGroupHeartbeat', 1, { ...beat('g', 'm1', 2), topicPartitions: [] });
      assert.equal(next.memberEpoch, 3);
      assert.deepEqual(next.assignment?.topicPartitions.map((t) => [t.topicId, [...t.partitions].sort()]), [[created.topics[0]!.topicId, [0, 1, 2]]]);
      await conn.request('DeleteTopics', 6, { topics: [{ name: 'later', topicId: created.topics[0]!.topicId! }], timeoutMs: 1000 });
      const after = await conn.request('ConsumerGroupHeartbeat', 1, { ...beat('g', 'm1', 3), topicPartitions: [] });
      assert.deepEqual(after.assignment?.topicPartitions, [], 'a deleted topic leaves the assignment');
      assert.equal(after.memberEpoch, 4);
    });
  });

  it('a consumer group survives a restart: replayed from __consumer_offsets, described the same', async () => {
    const dir = tempDir('brook-kip848-');
    try {
      let before: unknown;
      await withBroker({ dataDir: dir.path }, async (broker, conn) => {
        broker.createTopic('t', 4);
        await conn.request('ConsumerGroupHeartbeat', 1, join('g', 'm1', ['t']));
        await conn.request('ConsumerGroupHeartbeat', 1, join('g', 'm2', ['t']));
        before = await conn.request('ConsumerGroupDescribe', 0, { groupIds: ['g'], includeAuthorizedOperations: false });
      });
      await withBroker({ dataDir: dir.path }, async (_broker, conn) => {
        const after = await conn.request('ConsumerGroupDescribe', 0, { groupIds: ['g'], includeAuthorizedOperations: false });
        assert.deepEqual(after, before);
        assert.equal((await conn.request('ConsumerGroupHeartbeat', 1, { ...beat('g', 'm2', 2), topicPartitions: [] })).errorCode, ErrorCode.NONE);
      });
    } finally {
      dir.remove();
    }
  });

  it('reports the group.consumer settings in DescribeConfigs, with Kafka\'s defaults as synonyms', async () => {
    await withBroker({ groupConsumerSessionTimeoutMs: 50_000, groupConsumerMaxSessionTimeoutMs: 60_000 }, async (broker, conn) => {
      const keys = ['group.consumer.session.timeout.ms', 'group.consumer.heartbeat.interval.ms', 'group.consumer.assignors', 'group.coordinator.rebalance.protocols', 'group.consumer.migration.policy'];
      const res = await conn.request('DescribeConfigs', 4, { resources: [{ resourceType: BROKER, resourceName: String(broker.config.nodeId), configurationKeys: keys }], includeSynonyms: false, includeDocumentation: false });
      const values = Object.fromEntries(res.results[0]!.configs.map((c) => [c.name, c.value]));
      assert.deepEqual(values, {
        'group.consumer.session.timeout.ms': '50000',
        'group.consumer.heartbeat.interval.ms': '5000',
        'group.consumer.assignors': 'uniform,range',
        'group.coordinator.rebalance.protocols': 'classic,consumer,streams',
        'group.consumer.migration.policy': 'bidirectional',
      });
    });
  });

  it('checks the settings at start as Kafka does, and reads them from a --config file', async () => {
    await assert.rejects(startBrook({ groupConsumerHeartbeatIntervalMs: 45_000 }), /heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms/);
    await assert.rejects(startBrook({ groupConsumerSessionTimeoutMs: 30_000 }), /session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms/);
    await assert.rejects(startBrook({ groupCoordinatorRebalanceProtocols: ['consumer'] }), /Disabling the 'classic' protocol is not supported/);
    await assert.rejects(startBrook({ groupConsumerAssignors: ['sticky'] }), /sticky/);
    const config = configFromProperties(parseProperties([
      'group.coordinator.rebalance.protocols=classic, consumer',
      'group.consumer.session.timeout.ms=50000',
      'group.consumer.heartbeat.interval.ms=3000',
      'group.consumer.min.heartbeat.interval.ms=1000',
      'group.consumer.max.size=10',
      'group.consumer.assignors=range,uniform',
      'group.consumer.migration.policy=DISABLED',
    ].join('\n')));
    assert.deepEqual(config, {
      groupCoordinatorRebalanceProtocols: ['classic', 'consumer'],
      groupConsumerSessionTimeoutMs: 50_000,
      groupConsumerHeartbeatIntervalMs: 3000,
      groupConsumerMinHeartbeatIntervalMs: 1000,
      groupConsumerMaxSize: 10,
      groupConsumerAssignors: ['range', 'uniform'],
      groupConsumerMigrationPolicy: 'disabled',
    });
    assert.deepEqual(configFromProperties(parseProperties('group.consumer.migration.policy=Upgrade')), { groupConsumerMigrationPolicy: 'upgrade' });
    // Kafka 4.4's messages (test/interop/broker-config-kafka.test.ts compares them with KafkaConfig's).
    assert.throws(() => configFromProperties(parseProperties('group.consumer.migration.policy=sideways')),
      /^Error: Invalid value sideways for configuration group.consumer.migration.policy: String must be one of \(case insensitive\): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL$/);
    assert.throws(() => configFromProperties(parseProperties('group.coordinator.rebalance.protocols=Classic')),
      /^Error: Invalid value Classic for configuration group.coordinator.rebalance.protocols: String must be one of: consumer, classic, share, streams$/);
  });
});
