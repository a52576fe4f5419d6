/**
 * `__consumer_offsets` has one writer, the group coordinator's runtime, and the transaction
 * coordinator's markers go through it. The invariant (src/broker/coordinator-runtime/
 * runtime.ts, "Order"): batches reach the partition in the order their records were given
 * to the runtime, lingering records first, so a transaction's marker lands after the
 * transaction's offsets and after everything the coordinator wrote before it, even when all
 * of it comes in one turn of the event loop (where plain commits linger). Kafka's
 * GroupCoordinatorService writes the marker through the same runtime
 * (completeTransaction, a write operation) for the same reason. Once the marker is durable
 * the transaction's offsets are the group's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brokerClock } from '../../src/broker/broker-context.js';
import { createAppendNotifier } from '../../src/broker/append-notifier.js';
import { CONSUMER_OFFSETS_TOPIC, GroupCoordinatorService } from '../../src/broker/group-coordinator-service.js';
import { TransactionCoordinatorService } from '../../src/broker/transaction-coordinator-service.js';
import type { RequestContext } from '../../src/broker/handler.js';
import { CoordinatorStateLostError } from '../../src/coordinator/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { OffsetCommitResponseData } from '../../src/protocol/messages/offset-commit.js';
import type { OffsetFetchResponseData } from '../../src/protocol/messages/offset-fetch.js';
import type { TxnOffsetCommitResponseData } from '../../src/protocol/messages/txn-offset-commit.js';
import { decodeControlRecordKey, decodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { silentLogger } from '../../src/util/log.js';

const PRODUCER_ID = 7000n;

function requestContext(signal: AbortSignal): RequestContext {
  return {
    header: { requestApiKey: 8, requestApiVersion: 8, correlationId: 1, clientId: 'test' },
    apiVersion: 8,
    clientHost: '/127.0.0.1',
    signal,
    broker: { acls: null },
  } as unknown as RequestContext;
}

test('a transaction marker for __consumer_offsets lands after the transaction\'s offsets and after the commits before it in the same turn; then the offsets are the group\'s', { timeout: 10_000 }, async (t) => {
  const storage = openMemoryStorage({ clock: () => 1000 });
  storage.createTopic('t', 1);
  const clock = brokerClock({ nowMs: () => 1000 });
  const groups = GroupCoordinatorService.start({ storage, clock, log: silentLogger, coordinator: {}, offsetsTopicSegmentBytes: 1 << 20 });
  const transactions = TransactionCoordinatorService.start({
    storage, clock, log: silentLogger, appends: createAppendNotifier(), groups, coordinator: {}, numPartitions: 1, segmentBytes: 1 << 20,
  });
  t.after(async () => {
    await transactions.stop();
    await groups.stop();
  });
  groups.ensureTopic();
  const signal = new AbortController().signal;
  const plainCommit = (groupId: string, offset: bigint): Promise<number> => groups.submit<OffsetCommitResponseData>(
    requestContext(signal),
    (c, cctx) => c.offsetCommit(cctx, {
      groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    }),
    (errorCode) => ({ throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode }] }] }),
  ).then((r) => r.topics[0]!.partitions[0]!.errorCode);
  const committed = (groupId: string): Promise<bigint> => groups.submit<OffsetFetchResponseData>(
    requestContext(signal),
    (c, cctx) => c.offsetFetch(cctx, { groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false }),
    (errorCode) => ({ throttleTimeMs: 0, topics: [], errorCode, groups: [] }),
  ).then((r) => r.groups![0]!.topics[0]!.partitions[0]!.committedOffset);

  // One turn: a plain commit (it lingers), the transaction's offsets (a transactional batch),
  // another plain commit (it lingers), and the COMMIT marker, sent as the transaction
  // coordinator sends it.
  const first = plainCommit('plain-1', 1n);
  const txnCommit = groups.submit<TxnOffsetCommitResponseData>(
    requestContext(signal),
    (c, cctx) => c.txnOffsetCommit(cctx, {
      transactionalId: 'tid', groupId: 'txn-group', producerId: PRODUCER_ID, producerEpoch: 0, generationIdOrMemberEpoch: -1, memberId: '',
      groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    }),
    (errorCode) => ({ throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode }] }] }),
  ).then((r) => r.topics[0]!.partitions[0]!.errorCode);
  const second = plainCommit('plain-2', 2n);
  const marker = transactions.writeMarkers(PRODUCER_ID, 0, true, 0, 0, [{ topic: CONSUMER_OFFSETS_TOPIC, partition: 0 }]);
  assert.deepEqual(await Promise.all([first, txnCommit, second]), [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.NONE]);
  assert.deepEqual(await marker, [ErrorCode.NONE]);

  const log = storage.partition(CONSUMER_OFFSETS_TOPIC, 0)!;
  const read = log.read(0n, 1 << 20, { minOneBatch: true });
  const batches = [...iterateBatches(Buffer.concat(read.records))].map((v) => decodeRecordBatch(v.buffer));
  assert.deepEqual(batches.map((b) => [b.header.isTransactional, b.header.isControl, b.records.length]), [
    [false, false, 1], // plain-1, flushed before the transactional batch
    [true, false, 1], // the transaction's offsets
    [false, false, 1], // plain-2, flushed before the marker
    [true, true, 1], // the COMMIT marker
  ]);
  assert.equal(batches[3]!.header.producerId, PRODUCER_ID);
  assert.equal(decodeControlRecordKey(batches[3]!.records[0]!.key).type, 1, 'a COMMIT marker');

  // The marker is durable: the transaction's offsets are the group's.
  assert.equal(await committed('txn-group'), 42n);
});

/**
 * Fail-stop holds for every shard: when the transaction coordinator throws
 * CoordinatorStateLostError while its record settles (its memory may no longer match
 * `__transaction_state`), the runtime unloads it (the parked request gets NOT_COORDINATOR,
 * as every request until the reload), waits for the appends it issued and loads a new
 * coordinator from the log, where the record it wrote is.
 */
test('the transaction coordinator fails stop like the group coordinator: NOT_COORDINATOR, then a new coordinator loaded from __transaction_state', { timeout: 10_000 }, async (t) => {
  const storage = openMemoryStorage({ clock: () => 1000 });
  const clock = brokerClock({ nowMs: () => 1000 });
  const groups = GroupCoordinatorService.start({ storage, clock, log: silentLogger, coordinator: {}, offsetsTopicSegmentBytes: 1 << 20 });
  const transactions = TransactionCoordinatorService.start({
    storage, clock, log: silentLogger, appends: createAppendNotifier(), groups, coordinator: {}, numPartitions: 3, segmentBytes: 1 << 20,
  });
  t.after(async () => {
    await transactions.stop();
    await groups.stop();
  });
  const ctx = requestContext(new AbortController().signal);
  const init = (transactionalId: string) => transactions.submit(ctx, (c, id, nowMs) => c.initProducerId(id, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, nowMs));

  const first = await init('a');
  assert.equal(first.errorCode, ErrorCode.NONE);
  const loaded = transactions.coordinator;
  const writeCompleted = loaded.writeCompleted.bind(loaded);
  loaded.writeCompleted = () => {
    throw new CoordinatorStateLostError('test: memory lost');
  };
  // The record of this bump is written, then its settle throws: the request is answered NOT_COORDINATOR.
  const lost = await init('a');
  assert.equal(lost.errorCode, ErrorCode.NOT_COORDINATOR);
  loaded.writeCompleted = writeCompleted;
  for (let i = 0; i < 50 && transactions.coordinator === loaded; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.notEqual(transactions.coordinator, loaded, 'a new coordinator is loaded');
  // The new coordinator has what the log has: the bump that was written (epoch 1), so the next one is epoch 2.
  assert.equal(transactions.coordinator.describe('a')!.producerEpoch, first.producerEpoch + 1);
  const next = await init('a');
  assert.deepEqual([next.errorCode, next.producerId, next.producerEpoch], [ErrorCode.NONE, first.producerId, first.producerEpoch + 2]);
});
