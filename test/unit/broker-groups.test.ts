/**
 * The group coordinator wired into the broker, driven by clients Brook did not write:
 * a KafkaJS consumer group (two members, one 4-partition topic) consumes every record once
 * between its members and commits; KafkaJS admin describes the group (Stable, 2 members);
 * after a restart on the same data dir the committed offsets come back from
 * `__consumer_offsets`. An @platformatic/kafka consumer (2.x, 1.x on Node before 22.22;
 * `consume()`, classic group protocol) reads a topic through the group and its autocommits are visible to KafkaJS admin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners, type Consumer } from 'kafkajs';
import { PLATFORMATIC_KAFKA, platformaticKafka } from '../support/clients/platformatic-kafka.js';
import { startBrook, tempDir } from '../support/brook.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { Admin } from '../../src/client/admin.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { kafkaJs, createTopicWithKafkaJs, topicOffsets } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until, within } from '../support/clients/run.js';

const PARTITIONS = 4;
const RECORDS = 200;

test('KafkaJS consumer group: 2 members share 4 partitions, consume every record once, commit; offsets survive a restart', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'groups-kafkajs';
  const groupId = 'brook-test-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);

  const kafka = kafkaJs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('admin disconnect', () => admin.disconnect());

  const seen: { member: number; partition: number; offset: string; value: string }[] = [];
  const consumers: Consumer[] = [];
  for (let i = 0; i < 2; i++) {
    const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 200 });
    consumers.push(consumer);
    cleanup.add(`consumer ${i} disconnect`, () => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        seen.push({ member: i, partition, offset: message.offset, value: message.value!.toString() });
      },
    });
  }

  // Both members in one Stable generation before anything is produced, so no record can be
  // read twice across a rebalance.
  const described = await until('a Stable group with 2 members, every partition assigned', 30_000, async () => {
    const { groups } = await admin.describeGroups([groupId]);
    const g = groups[0]!;
    if (g.state !== 'Stable' || g.members.length !== 2) return undefined;
    const assigned = g.members.reduce((n, m) => n + m.memberAssignment.length, 0);
    return assigned > 0 ? g : undefined;
  });
  assert.equal(described.protocolType, 'consumer');
  assert.equal(described.members.length, 2);

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  await producer.send({
    topic,
    acks: -1,
    messages: Array.from({ length: RECORDS }, (_, i) => ({ partition: i % PARTITIONS, key: `k${i}`, value: `v${i}` })),
  });

  await within(30_000, 'every record consumed', until('every record', 30_000, async () => (seen.length >= RECORDS ? true : undefined)));
  await new Promise((r) => setTimeout(r, 300)); // would-be duplicates have time to show up
  assert.equal(seen.length, RECORDS, 'each record once');
  assert.deepEqual(new Set(seen.map((s) => s.value)).size, RECORDS);
  const members = new Set(seen.map((s) => s.member));
  assert.equal(members.size, 2, 'both members consumed');
  for (const p of Array.from({ length: PARTITIONS }, (_, i) => i)) {
    assert.equal(new Set(seen.filter((s) => s.partition === p).map((s) => s.member)).size, 1, `partition ${p} read by one member`);
  }

  const high = await topicOffsets(broker.bootstrap, topic);
  const expected = Array.from({ length: PARTITIONS }, (_, p) => ({ partition: p, offset: String(high[p]!.high) }));
  const committed = async (): Promise<{ partition: number; offset: string }[]> => {
    const [fetched] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return fetched!.partitions.map((p) => ({ partition: p.partition, offset: p.offset })).sort((a, b) => a.partition - b.partition);
  };
  await until('offsets committed', 15_000, async () => (JSON.stringify(await committed()) === JSON.stringify(expected) ? true : undefined));

  for (const c of consumers) await c.disconnect();
  await until('the group Empty after both left', 10_000, async () => {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]!.state === 'Empty' ? true : undefined;
  });
  await admin.disconnect();

  // Restart on the same data dir: the offsets are replayed from __consumer_offsets.
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  const admin2 = kafkaJs(broker.bootstrap).admin();
  await admin2.connect();
  cleanup.add('admin2 disconnect', () => admin2.disconnect());
  const [fetched] = await admin2.fetchOffsets({ groupId, topics: [topic] });
  assert.deepEqual(fetched!.partitions.map((p) => ({ partition: p.partition, offset: p.offset })).sort((a, b) => a.partition - b.partition), expected);
  const { groups } = await admin2.describeGroups([groupId]);
  assert.equal(groups[0]!.state, 'Empty');
  const listed = await admin2.listGroups();
  assert.deepEqual(listed.groups.map((g) => g.groupId), [groupId]);
});

test(`${PLATFORMATIC_KAFKA} consumer group: consume() joins, reads every record, autocommits; KafkaJS admin sees the offsets`, { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'groups-platformatic';
  const groupId = 'brook-test-platformatic-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 3);
  const kafka = kafkaJs(broker.bootstrap);
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  const COUNT = 90;
  await producer.send({ topic, acks: -1, messages: Array.from({ length: COUNT }, (_, i) => ({ partition: i % 3, key: `k${i}`, value: `v${i}` })) });

  const consumer = new platformaticKafka.Consumer({
    clientId: 'brook-test-platformatic-group', groupId, bootstrapBrokers: [broker.bootstrap], deserializers: platformaticKafka.stringDeserializers,
    sessionTimeout: 6_000, heartbeatInterval: 500, retries: 2, retryDelay: 100, timeout: 10_000,
  });
  cleanup.add('consumer close', () => consumer.close(true));
  const stream = await consumer.consume({ topics: [topic], mode: platformaticKafka.MessagesStreamModes.COMMITTED, fallbackMode: 'earliest', autocommit: true, maxWaitTime: 200 });
  const values = new Set<string>();
  await within(30_000, 'platformatic consumed every record', (async () => {
    for await (const message of stream) {
      values.add(message.value);
      if (values.size === COUNT) break;
    }
  })());
  assert.equal(values.size, COUNT);
  assert.deepEqual(consumer.assignments?.flatMap((a) => a.partitions).sort(), [0, 1, 2]);

  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('admin disconnect', () => admin.disconnect());
  await until('autocommitted offsets', 15_000, async () => {
    const [fetched] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const offsets = fetched!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
    return JSON.stringify(offsets) === JSON.stringify(['30', '30', '30']) ? true : undefined;
  });
  await stream.close();
  await consumer.close();
});

test('OffsetCommit/OffsetDelete: the broker answers unknown topics and partitions itself and merges with the coordinator (KafkaApis); a restart replays the commits', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  await admin.createTopic({ name: 'known', partitions: 2 });
  admin.close();
  let conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'groups-test' });
  cleanup.add('close connection', () => conn.close());

  const fc = await conn.request(Api.FindCoordinator, { keyType: 0, coordinatorKeys: ['simple'] });
  assert.deepEqual((fc.coordinators ?? []).map((c) => [c.key, c.errorCode, c.nodeId, c.port]), [['simple', ErrorCode.NONE, 1, broker.port]]);
  assert.ok(broker.storage.topic('__consumer_offsets')?.isInternal, 'the first group FindCoordinator creates __consumer_offsets');

  const part = (partitionIndex: number, committedOffset: bigint) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: 'm' });
  const commit = await conn.request(Api.OffsetCommit, {
    groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [
      { name: 'known', partitions: [part(0, 5n), part(7, 1n), part(1, 9n)] },
      { name: 'absent', partitions: [part(0, 1n)] },
    ],
  }, { version: 8 });
  // The broker's answers first, then the coordinator's, partitions of a topic together.
  assert.deepEqual(commit.topics.map((tp) => [tp.name, tp.partitions.map((p) => [p.partitionIndex, p.errorCode])]), [
    ['known', [[7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION], [0, ErrorCode.NONE], [1, ErrorCode.NONE]]],
    ['absent', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
  ]);
  const onlyUnknown = await conn.request(Api.OffsetCommit, {
    groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'absent', partitions: [part(3, 1n)] }],
  }, { version: 8 });
  assert.deepEqual(onlyUnknown.topics[0]!.partitions[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

  const del = await conn.request(Api.OffsetDelete, { groupId: 'simple', topics: [{ name: 'known', partitions: [{ partitionIndex: 1 }, { partitionIndex: 9 }] }] });
  assert.equal(del.errorCode, ErrorCode.NONE);
  assert.deepEqual(del.topics.map((tp) => [tp.name, tp.partitions.map((p) => [p.partitionIndex, p.errorCode])]), [
    ['known', [[9, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION], [1, ErrorCode.NONE]]],
  ]);
  const noGroup = await conn.request(Api.OffsetDelete, { groupId: 'nobody', topics: [{ name: 'absent', partitions: [{ partitionIndex: 0 }] }] });
  assert.deepEqual([noGroup.errorCode, noGroup.topics], [ErrorCode.GROUP_ID_NOT_FOUND, []]);

  conn.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'groups-test' });
  const fetched = await conn.request(Api.OffsetFetch, { groups: [{ groupId: 'simple', memberId: null, memberEpoch: -1, topics: null }], requireStable: false }, { version: 8 });
  assert.deepEqual(fetched.groups![0]!.topics.map((tp) => [tp.name, tp.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.metadata])]), [
    ['known', [[0, 5n, 'm']]],
  ]);
  const listed = await conn.request(Api.ListGroups, { statesFilter: [], typesFilter: [] });
  assert.deepEqual(listed.groups.map((g) => [g.groupId, g.groupState]), [['simple', 'Empty']]);
});
