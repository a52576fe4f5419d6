/**
 * DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets and DeleteGroups
 * of a share group on a broker, over the wire: start offsets and lag from the share
 * coordinator, an alter or delete refused while the group has members, and the broker's
 * in-memory share-partitions dropped after an alter or delete, so that the next ShareFetch
 * starts from the new state. (test/interop/share-group-offsets-differential.test.ts compares
 * the answers with Kafka 4.4's.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { startBrook } from '../support/brook.js';
import { produce } from '../support/consumer-helpers.js';

const T = { timeout: 60_000 };
const MEMBER = 'AAAAAAAAAAAAAAAAAAAAAA';
const ACCEPT = 1;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function join(conn: KafkaConnection, groupId: string, topic: string, partitions: number): Promise<number> {
  let epoch = 0;
  for (let i = 0; i < 100; i++) {
    const r = await conn.request(Api.ShareGroupHeartbeat, { groupId, memberId: MEMBER, memberEpoch: epoch, rackId: null, subscribedTopicNames: epoch === 0 ? [topic] : null });
    assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
    epoch = r.memberEpoch;
    if ((r.assignment?.topicPartitions ?? []).reduce((n, t) => n + t.partitions.length, 0) === partitions) return epoch;
    await sleep(20);
  }
  throw new Error('never assigned');
}

async function leave(conn: KafkaConnection, groupId: string): Promise<void> {
  const r = await conn.request(Api.ShareGroupHeartbeat, { groupId, memberId: MEMBER, memberEpoch: -1, rackId: null, subscribedTopicNames: null });
  assert.equal(r.errorCode, ErrorCode.NONE);
}

async function describe(conn: KafkaConnection, groupId: string, topic: string): Promise<{ startOffset: bigint; lag: bigint | undefined }> {
  const r = await conn.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId, topics: [{ topicName: topic, partitions: [0] }] }] }, { version: 1 });
  const p = r.groups[0]!.topics[0]!.partitions[0]!;
  assert.equal(p.errorCode, ErrorCode.NONE);
  return { startOffset: p.startOffset, lag: p.lag };
}

async function fetchFirst(conn: KafkaConnection, groupId: string, topicId: string): Promise<{ firstOffset: bigint; lastOffset: bigint }> {
  const r = await conn.request(Api.ShareFetch, {
    groupId, memberId: MEMBER, shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
  });
  const acquired = r.responses[0]!.partitions[0]!.acquiredRecords[0];
  assert.ok(acquired !== undefined, JSON.stringify(r.responses, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  return acquired;
}

test('share-group offsets: describe with lag, alter and delete only when Empty, the next fetch starts from the new state', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const created = await conn.request(Api.CreateTopics, { topics: [{ name: 'so', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, { version: 7 });
  const topicId = created.topics[0]!.topicId!;
  await produce(broker.bootstrap, 'so', 0, ['a', 'b', 'c', 'd', 'e']);

  const epoch = await join(conn, 'g', 'so', 1);
  const refused = await conn.request(Api.AlterShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'so', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] });
  assert.deepEqual([refused.errorCode, refused.errorMessage, refused.responses], [ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.', []]);
  const refusedDelete = await conn.request(Api.DeleteShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'so' }] });
  assert.equal(refusedDelete.errorCode, ErrorCode.NON_EMPTY_GROUP);

  // share.auto.offset.reset=latest: the share-partition starts at the log end; nothing to
  // acquire until later records. Two more, the first accepted: start offset 6.
  const idle = await conn.request(Api.ShareFetch, {
    groupId: 'g', memberId: MEMBER, shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
  });
  assert.deepEqual(idle.responses[0]?.partitions[0]?.acquiredRecords ?? [], []);
  await produce(broker.bootstrap, 'so', 0, ['f', 'g']);
  const more = await conn.request(Api.ShareFetch, {
    groupId: 'g', memberId: MEMBER, shareSessionEpoch: 1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, topics: [], forgottenTopicsData: [],
  });
  assert.deepEqual(more.responses[0]!.partitions[0]!.acquiredRecords, [{ firstOffset: 5n, lastOffset: 6n, deliveryCount: 1 }]);
  const ack = await conn.request(Api.ShareAcknowledge, {
    groupId: 'g', memberId: MEMBER, shareSessionEpoch: 2, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 5n, lastOffset: 5n, acknowledgeTypes: [ACCEPT] }] }] }],
  });
  assert.equal(ack.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  // As Kafka, the acknowledgement is written with the start offset it had (5) and one record
  // done; the next write would carry the move to 6. Lag: 7 - 5 - 1.
  assert.deepEqual(await describe(conn, 'g', 'so'), { startOffset: 5n, lag: 1n });
  assert.ok(epoch > 0);
  await leave(conn, 'g');
  assert.equal(broker.context.shares.partitionsOf('g').length, 1, 'the share-partition stays in memory');

  // Empty: back to offset 1. The in-memory share-partition goes; the next fetch reads from 1.
  const altered = await conn.request(Api.AlterShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'so', partitions: [{ partitionIndex: 0, startOffset: 1n }] }] });
  assert.deepEqual(altered.responses, [{ topicName: 'so', topicId, partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE, errorMessage: null }] }]);
  assert.equal(broker.context.shares.partitionsOf('g').length, 0, 'dropped after the alter');
  assert.deepEqual(await describe(conn, 'g', 'so'), { startOffset: 1n, lag: 6n });
  const all = await conn.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId: 'g', topics: null }] }, { version: 1 });
  assert.deepEqual(all.groups[0]!.topics.map((x) => [x.topicName, x.partitions.map((p) => p.startOffset)]), [['so', [1n]]]);
  await join(conn, 'g', 'so', 1);
  assert.deepEqual(await fetchFirst(conn, 'g', topicId), { firstOffset: 1n, lastOffset: 6n, deliveryCount: 1 });
  await leave(conn, 'g');

  // Delete: the state goes, and so does the share-partition in memory.
  const deleted = await conn.request(Api.DeleteShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'so' }] });
  assert.deepEqual(deleted.responses, [{ topicName: 'so', topicId, errorCode: ErrorCode.NONE, errorMessage: null }]);
  assert.equal(broker.context.shares.partitionsOf('g').length, 0, 'dropped after the delete');
  assert.deepEqual(await describe(conn, 'g', 'so'), { startOffset: -1n, lag: -1n });

  // DeleteGroups of a share group deletes its share state first.
  await conn.request(Api.AlterShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'so', partitions: [{ partitionIndex: 0, startOffset: 4n }] }] });
  assert.deepEqual(await describe(conn, 'g', 'so'), { startOffset: 4n, lag: 3n });
  const gone = await conn.request(Api.DeleteGroups, { groupsNames: ['g'] });
  assert.deepEqual(gone.results.map((r) => [r.groupId, r.errorCode]), [['g', ErrorCode.NONE]]);
  const summary = await conn.request(Api.ReadShareGroupStateSummary, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] });
  assert.equal(summary.results[0]!.partitions[0]!.startOffset, -1n, 'no share state left');
});
