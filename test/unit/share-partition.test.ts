/**
 * A share-partition's record states, as KIP-932 defines them and Kafka's SharePartition
 * behaves (the interop tests check the same through Kafka's own KafkaShareConsumer):
 * acquisition with delivery counts and locks, acknowledgement types, the delivery count
 * limit, the start offset moving past finished records, the max record locks, and the
 * state batches written for each change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcknowledgeType, RecordState, SharePartition, ShareAcknowledgeError } from '../../src/broker/share/share-partition.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { DeliveryState } from '../../src/coordinator/share-state/state-batches.js';

const T = { timeout: 10_000 };
const settings = { deliveryCountLimit: 3, maxInFlightRecords: 100, recordLockDurationMs: 30_000 };
const { ACCEPT, RELEASE, REJECT, GAP, RENEW } = AcknowledgeType;

function batches(...ranges: [number, number][]): { baseOffset: number; lastOffset: number }[] {
  return ranges.map(([baseOffset, lastOffset]) => ({ baseOffset, lastOffset }));
}

function sb(first: number, last: number, deliveryState: number, deliveryCount: number) {
  return { firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState, deliveryCount };
}

test('new records are acquired whole batches at a time, with delivery count 1', T, () => {
  const sp = new SharePartition(settings, 0);
  // maxRecords 3 ends inside the second batch: batch-optimized mode takes that batch whole.
  const acquired = sp.acquire('m1', batches([0, 1], [2, 4], [5, 9]), 3, 500, false, 1000);
  assert.deepEqual(acquired, [{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
  assert.equal(sp.nextFetchOffset(), 5);
  assert.equal(sp.endOffset, 4);
  // Record-limit mode stops at maxRecords exactly.
  assert.deepEqual(sp.acquire('m2', batches([5, 9]), 2, 500, true, 1000), [{ firstOffset: 5, lastOffset: 6, deliveryCount: 1 }]);
  assert.equal(sp.nextFetchOffset(), 7);
});

test('runs of new records are cut at a batch boundary once they hold batchSize records', T, () => {
  const sp = new SharePartition(settings, 0);
  assert.deepEqual(sp.acquire('m1', batches([0, 2], [3, 5], [6, 8]), 100, 4, false, 0), [
    { firstOffset: 0, lastOffset: 5, deliveryCount: 1 }, { firstOffset: 6, lastOffset: 8, deliveryCount: 1 },
  ]);
});

test('ACCEPT, REJECT and GAP finish records and move the start offset; RELEASE makes them available again', T, () => {
  const sp = new SharePartition(settings, 10);
  sp.acquire('m1', batches([10, 14]), 100, 500, false, 0);
  const write = sp.acknowledge('m1', [{ firstOffset: 10, lastOffset: 14, acknowledgeTypes: [ACCEPT, REJECT, RELEASE, GAP, ACCEPT] }], 5);
  // Written with the start offset from before the acknowledgement (as Kafka): the next
  // write carries the move. Four of the five are done.
  assert.deepEqual(write, {
    startOffset: 10,
    stateBatches: [sb(10, 10, DeliveryState.ACKNOWLEDGED, 1), sb(11, 11, DeliveryState.ARCHIVED, 1), sb(12, 12, DeliveryState.AVAILABLE, 1), sb(13, 13, DeliveryState.ARCHIVED, 1), sb(14, 14, DeliveryState.ACKNOWLEDGED, 1)],
    deliveryCompleteCount: 4,
  });
  // 12 is not done, so the start offset stops there.
  assert.equal(sp.startOffset, 12);
  assert.equal(sp.nextFetchOffset(), 12);
  // Not acquired again before the release is durable (Kafka's ongoing state transition).
  assert.deepEqual(sp.acquire('m2', batches([10, 14]), 100, 500, false, 10), []);
  sp.completeTransitions(write!);
  // Redelivered with delivery count 2; only that record, the rest of the batch is done.
  assert.deepEqual(sp.acquire('m2', batches([10, 14]), 100, 500, false, 10), [{ firstOffset: 12, lastOffset: 12, deliveryCount: 2 }]);
  assert.deepEqual(sp.acknowledge('m2', [{ firstOffset: 12, lastOffset: 12, acknowledgeTypes: [ACCEPT] }], 20), {
    startOffset: 12, stateBatches: [sb(12, 12, DeliveryState.ACKNOWLEDGED, 2)], deliveryCompleteCount: 3,
  });
  assert.equal(sp.startOffset, 15);
  assert.equal(sp.inFlightRecords, 0);
});

test('acknowledgements are all or nothing: a record another member holds fails the whole call', T, () => {
  const sp = new SharePartition(settings, 0);
  sp.acquire('m1', batches([0, 4]), 100, 500, false, 0);
  sp.acquire('m2', batches([5, 9]), 100, 500, false, 0);
  assert.throws(() => sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] }, { firstOffset: 5, lastOffset: 5, acknowledgeTypes: [ACCEPT] }], 1),
    (err: unknown) => err instanceof ShareAcknowledgeError && err.errorCode === ErrorCode.INVALID_RECORD_STATE);
  assert.deepEqual(sp.inFlight().slice(0, 2).map((r) => r.state), [RecordState.ACQUIRED, RecordState.ACQUIRED]);
  // Past the end of what was acquired (INVALID_REQUEST, as Kafka), and an unknown acknowledge type.
  assert.throws(() => sp.acknowledge('m1', [{ firstOffset: 8, lastOffset: 12, acknowledgeTypes: [ACCEPT] }], 1),
    (err: unknown) => err instanceof ShareAcknowledgeError && err.errorCode === ErrorCode.INVALID_REQUEST && /last offset in request is past/.test(err.message));
  assert.throws(() => sp.acknowledge('m1', [{ firstOffset: 10, lastOffset: 12, acknowledgeTypes: [ACCEPT] }], 1),
    (err: unknown) => err instanceof ShareAcknowledgeError && err.errorCode === ErrorCode.INVALID_REQUEST && /first offset in request is past/.test(err.message));
  assert.throws(() => sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [9] }], 1),
    (err: unknown) => err instanceof ShareAcknowledgeError && err.errorCode === ErrorCode.INVALID_REQUEST);
  assert.throws(() => sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [ACCEPT, ACCEPT] }], 1),
    (err: unknown) => err instanceof ShareAcknowledgeError && err.errorCode === ErrorCode.INVALID_REQUEST);
  // Offsets before the start offset are skipped.
  sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] }], 2);
  assert.equal(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] }], 3), null);
});

test('a lock that runs out releases the records; at the delivery count limit they are archived', T, () => {
  const sp = new SharePartition(settings, 0);
  for (let delivery = 1; delivery <= 3; delivery++) {
    const now = delivery * 100_000;
    assert.deepEqual(sp.acquire('m1', batches([0, 1]), 100, 500, false, now), [{ firstOffset: 0, lastOffset: 1, deliveryCount: delivery }]);
    assert.equal(sp.nextLockDeadlineMs(), now + 30_000);
    assert.equal(sp.expireLocks(now + 29_999), null);
    const write = sp.expireLocks(now + 30_000);
    if (delivery < 3) {
      assert.deepEqual(write, { startOffset: 0, stateBatches: [sb(0, 1, DeliveryState.AVAILABLE, delivery)], deliveryCompleteCount: 0 });
    } else {
      assert.deepEqual(write, { startOffset: 0, stateBatches: [sb(0, 1, DeliveryState.ARCHIVED, 3)], deliveryCompleteCount: 2 });
      assert.equal(sp.startOffset, 2);
    }
  }
  assert.equal(sp.nextLockDeadlineMs(), null);
});

test('RENEW extends a lock; releasing a member makes its records available at once', T, () => {
  const sp = new SharePartition(settings, 0);
  sp.acquire('m1', batches([0, 3]), 100, 500, false, 0);
  assert.equal(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [RENEW] }], 20_000), null);
  assert.deepEqual(sp.expireLocks(30_000), { startOffset: 0, stateBatches: [sb(2, 3, DeliveryState.AVAILABLE, 1)], deliveryCompleteCount: 0 });
  assert.deepEqual(sp.releaseAcquiredRecords('m1'), { startOffset: 0, stateBatches: [sb(0, 1, DeliveryState.AVAILABLE, 1)], deliveryCompleteCount: 0 });
  // The renewed lock's own timer finds nothing left to release.
  assert.equal(sp.expireLocks(50_000), null);
  assert.equal(sp.releaseAcquiredRecords('m1'), null);
});

test('no new records are acquired beyond the max record locks, but available ones still are', T, () => {
  const sp = new SharePartition({ ...settings, maxInFlightRecords: 5 }, 0);
  assert.deepEqual(sp.acquire('m1', batches([0, 3], [4, 7], [8, 9]), 100, 500, false, 0), [{ firstOffset: 0, lastOffset: 7, deliveryCount: 1 }]);
  assert.equal(sp.canAcquireRecords(), false);
  assert.deepEqual(sp.acquire('m1', batches([8, 9]), 100, 500, false, 0), []);
  sp.completeTransitions(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [RELEASE] }], 1)!);
  assert.equal(sp.canAcquireRecords(), true);
  assert.equal(sp.nextFetchOffset(), 0);
  assert.deepEqual(sp.acquire('m2', batches([0, 3], [4, 7], [8, 9]), 100, 500, false, 2), [{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
});

test('state read back: available runs keep their delivery counts, finished ones are skipped, gaps were never delivered', T, () => {
  const sp = new SharePartition(settings, 5, [sb(3, 6, DeliveryState.ACKNOWLEDGED, 1), sb(7, 8, DeliveryState.AVAILABLE, 2), sb(10, 10, DeliveryState.ARCHIVED, 4)]);
  assert.equal(sp.startOffset, 7);
  assert.equal(sp.nextFetchOffset(), 7);
  assert.deepEqual(sp.acquire('m1', batches([6, 12]), 100, 500, false, 0), [
    { firstOffset: 7, lastOffset: 8, deliveryCount: 3 }, { firstOffset: 9, lastOffset: 9, deliveryCount: 1 }, { firstOffset: 11, lastOffset: 12, deliveryCount: 1 },
  ]);
});

test('the log start offset moving past the window archives what is available before it', T, () => {
  const sp = new SharePartition(settings, 0);
  sp.acquire('m1', batches([0, 9]), 100, 500, false, 0);
  sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [RELEASE] }], 1);
  assert.deepEqual(sp.logStartOffsetMoved(4), { startOffset: 4, stateBatches: [sb(0, 3, DeliveryState.ARCHIVED, 1)], deliveryCompleteCount: 0 });
  assert.equal(sp.nextFetchOffset(), 4);
  // Nothing in flight: the window starts over at the log start.
  const empty = new SharePartition(settings, 0);
  assert.deepEqual(empty.logStartOffsetMoved(50), { startOffset: 50, stateBatches: [], deliveryCompleteCount: 0 });
  assert.deepEqual(empty.acquire('m1', batches([50, 51]), 100, 500, false, 0), [{ firstOffset: 50, lastOffset: 51, deliveryCount: 1 }]);
});

test('a hole in the log (compacted offsets) is skipped', T, () => {
  const sp = new SharePartition(settings, 0);
  assert.deepEqual(sp.acquire('m1', batches([0, 1], [5, 6]), 100, 500, false, 0), [
    { firstOffset: 0, lastOffset: 1, deliveryCount: 1 }, { firstOffset: 5, lastOffset: 6, deliveryCount: 1 },
  ]);
  sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] }], 1);
  assert.equal(sp.startOffset, 5);
});

test('read_committed: the records of an aborted transaction are archived, never acquired; the start offset moves past them', T, () => {
  const sp = new SharePartition(settings, 0);
  const acquired = sp.acquire('m1', [
    { baseOffset: 0, lastOffset: 1 }, { baseOffset: 2, lastOffset: 4, aborted: true }, { baseOffset: 5, lastOffset: 5 }, { baseOffset: 6, lastOffset: 7 },
  ], 100, 500, false, 0);
  assert.deepEqual(acquired.map((a) => [a.firstOffset, a.lastOffset]), [[0, 1], [5, 7]]);
  assert.deepEqual(sp.inFlight().slice(2, 5).map((r) => r.state), [RecordState.ARCHIVED, RecordState.ARCHIVED, RecordState.ARCHIVED]);
  sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] }], 1);
  assert.equal(sp.startOffset, 5);
});
