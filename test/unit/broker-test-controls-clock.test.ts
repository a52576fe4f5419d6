/**
 * The manual clock (`Broker.start({ clock: 'manual' })`, `advanceTime`) and the read-only
 * helpers (`waitForGroupState`, `records`, `committed`). A classic group's member is removed
 * exactly when the clock passes its session timeout (Kafka's rule: no heartbeat within
 * session.timeout.ms), not a millisecond before, with no real waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupStateTimeoutError } from '../../src/index.js';
import { CompressionType, encodeRecordBatch } from '../../src/protocol/records/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 20_000 };
const SESSION_TIMEOUT_MS = 30_000;
const CONSUMER_METADATA = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

test('advanceTime moves the manual clock: a silent member leaves exactly at its session timeout', T, async (t) => {
  const broker = await startBrook({ clock: 'manual' });
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  const startedAt = broker.context.clock.nowMs();
  const joined = await conn.request('JoinGroup', 3, {
    groupId: 'clocked', sessionTimeoutMs: SESSION_TIMEOUT_MS, rebalanceTimeoutMs: SESSION_TIMEOUT_MS, memberId: '', groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: CONSUMER_METADATA }], reason: null,
  });
  assert.equal(joined.errorCode, 0);
  await conn.request('SyncGroup', 3, { groupId: 'clocked', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] });
  await broker.waitForGroupState('clocked', 'Stable', { timeoutMs: 5000 });
  const members = async (): Promise<string[]> => (await conn.request('DescribeGroups', 3, { groups: ['clocked'], includeAuthorizedOperations: false })).groups[0]!.members.map((m) => m.memberId);

  await broker.advanceTime(SESSION_TIMEOUT_MS - 1);
  assert.equal(broker.context.clock.nowMs(), startedAt + SESSION_TIMEOUT_MS - 1);
  assert.deepEqual(await members(), [joined.memberId]);
  await broker.waitForGroupState('clocked', 'Stable', { timeoutMs: 0 });

  await broker.advanceTime(1);
  assert.deepEqual(await members(), []);
  await broker.waitForGroupState('clocked', 'Empty', { timeoutMs: 0 });
});

test('advanceTime needs a manual clock; waitForGroupState rejects with GroupStateTimeoutError', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  await assert.rejects(broker.advanceTime(1), TypeError);
  const err = await broker.waitForGroupState('nobody', 'Stable', { timeoutMs: 20 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof GroupStateTimeoutError);
  assert.deepEqual([err.groupId, err.expectedState, err.lastState, err.timeoutMs], ['nobody', 'Stable', null, 20]);
});

test('records lists every record of a topic, decoded, partition by partition; committed lists a group offsets', T, async (t) => {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  broker.createTopic('seen', 2);
  const batch = (records: { key: string | null; value: string | null; ts: number; headers?: { key: string; value: string }[] }[]): Buffer =>
    encodeRecordBatch({ compression: CompressionType.Gzip, records: records.map((r) => ({ key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value), timestamp: r.ts, headers: (r.headers ?? []).map((h) => ({ key: h.key, value: Buffer.from(h.value) })) })) });
  await conn.request('Produce', 9, {
    transactionalId: null, acks: -1, timeoutMs: 5000,
    topicData: [{ name: 'seen', partitionData: [
      { index: 1, records: batch([{ key: 'k1', value: 'v1', ts: 1000, headers: [{ key: 'h', value: 'x' }] }, { key: null, value: null, ts: 1001 }]) },
      { index: 0, records: batch([{ key: 'k0', value: 'v0', ts: 2000 }]) },
    ] }],
  });
  await conn.request('Produce', 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'seen', partitionData: [{ index: 1, records: batch([{ key: 'k2', value: 'v2', ts: 3000 }]) }] }] });
  const text = (b: Buffer | null): string | null => (b === null ? null : b.toString());
  assert.deepEqual(broker.records('seen').map((r) => ({ partition: r.partition, offset: r.offset, key: text(r.key), value: text(r.value), ts: r.timestamp, headers: r.headers.map((h) => `${h.key}=${text(h.value)}`) })), [
    { partition: 0, offset: 0n, key: 'k0', value: 'v0', ts: 2000n, headers: [] },
    { partition: 1, offset: 0n, key: 'k1', value: 'v1', ts: 1000n, headers: ['h=x'] },
    { partition: 1, offset: 1n, key: null, value: null, ts: 1001n, headers: [] },
    { partition: 1, offset: 2n, key: 'k2', value: 'v2', ts: 3000n, headers: [] },
  ]);
  assert.deepEqual(broker.records('no-such-topic'), []);

  const commit = await conn.request('OffsetCommit', 8, {
    groupId: 'reader', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'seen', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }, { partitionIndex: 1, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  });
  assert.deepEqual(commit.topics[0]!.partitions.map((p) => p.errorCode), [0, 0]);
  assert.deepEqual(broker.committed('reader'), { seen: { 0: 1n, 1: 3n } });
  assert.deepEqual(broker.committed('nobody'), {});
});
