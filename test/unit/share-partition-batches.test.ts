/**
 * How a share-partition answers as Kafka 4.4's SharePartition where Kafka's in-flight batches
 * show (the expected values are what test/interop/share-fetch-differential.test.ts saw Kafka
 * answer): AcquiredRecords cut by in-flight batch, the rest of a log batch kept in flight in
 * record-limit mode, released records not acquirable before their write is durable, and the
 * acknowledgement errors with Kafka's codes and wording. Also the request-level checks of
 * acknowledgement batches (Kafka's KafkaApis.validateAcknowledgementBatches).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcknowledgeType, SharePartition, ShareAcknowledgeError } from '../../src/broker/share/share-partition.js';
import { acknowledgementBatchesValid } from '../../src/broker/share/share-requests.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const T = { timeout: 10_000 };
const settings = { deliveryCountLimit: 2, maxInFlightRecords: 100, recordLockDurationMs: 2000 };
const { ACCEPT, RELEASE, RENEW } = AcknowledgeType;

function batches(...ranges: [number, number][]): { baseOffset: number; lastOffset: number }[] {
  return ranges.map(([baseOffset, lastOffset]) => ({ baseOffset, lastOffset }));
}

const LOG = batches([0, 3], [4, 8], [9, 14], [15, 17]);

function fails(f: () => unknown, errorCode: number, message: string): void {
  assert.throws(f, (err: unknown) => err instanceof ShareAcknowledgeError && err.errorCode === errorCode && err.message === message);
}

test('record-limit mode keeps the rest of a log batch in flight; AcquiredRecords follow the in-flight batches', T, () => {
  const sp = new SharePartition(settings, 0);
  assert.deepEqual(sp.acquire('m', LOG, 2, 500, true, 0), [{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
  assert.equal(sp.endOffset, 3, 'the whole log batch 0-3 is in flight');
  // 2-3 come from the in-flight batch, 4-6 are new: two AcquiredRecords although contiguous.
  assert.deepEqual(sp.acquire('m', LOG, 5, 500, true, 0), [{ firstOffset: 2, lastOffset: 3, deliveryCount: 1 }, { firstOffset: 4, lastOffset: 6, deliveryCount: 1 }]);
  assert.deepEqual(sp.acquire('m', LOG.slice(1), 1, 2, false, 0), [{ firstOffset: 7, lastOffset: 8, deliveryCount: 1 }]);
  // New records, batch-optimized, BatchSize 2: cut at the log batch boundary.
  assert.deepEqual(sp.acquire('m', LOG.slice(2), 100, 2, false, 0), [{ firstOffset: 9, lastOffset: 14, deliveryCount: 1 }, { firstOffset: 15, lastOffset: 17, deliveryCount: 1 }]);
  // Every lock runs out: acquired again one AcquiredRecords per in-flight batch, whatever BatchSize.
  sp.expireLocks(2000);
  assert.deepEqual(sp.acquire('m', LOG, 100, 100, false, 3000), [
    { firstOffset: 0, lastOffset: 3, deliveryCount: 2 }, { firstOffset: 4, lastOffset: 8, deliveryCount: 2 },
    { firstOffset: 9, lastOffset: 14, deliveryCount: 2 }, { firstOffset: 15, lastOffset: 17, deliveryCount: 2 },
  ]);
});

test('a release is not acquirable before its write completes', T, () => {
  const sp = new SharePartition(settings, 0);
  sp.acquire('a', batches([0, 4]), 100, 500, false, 0);
  const write = sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [RELEASE] }], 1)!;
  assert.deepEqual(sp.acquire('b', batches([0, 4], [5, 6]), 100, 500, false, 2), [{ firstOffset: 5, lastOffset: 6, deliveryCount: 1 }]);
  fails(() => sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [ACCEPT] }], 3), ErrorCode.INVALID_RECORD_STATE, 'The offset cannot be acknowledged. The offset is not acquired.');
  sp.completeTransitions(write);
  assert.deepEqual(sp.acquire('b', batches([0, 4]), 100, 500, false, 4), [{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }]);
});

test("acknowledgement errors: Kafka's codes and wording, all or nothing", T, () => {
  const sp = new SharePartition(settings, 0);
  fails(() => sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [ACCEPT] }], 0), ErrorCode.INVALID_RECORD_STATE, 'Batch record not found. The request batch offsets are not found in the cache.');
  sp.acquire('a', batches([0, 6]), 100, 500, false, 0);
  sp.acquire('b', batches([7, 11]), 100, 500, false, 0);
  // 7-11 is one in-flight batch held whole by b: checked as a batch.
  fails(() => sp.acknowledge('a', [{ firstOffset: 6, lastOffset: 9, acknowledgeTypes: [ACCEPT] }], 1), ErrorCode.INVALID_RECORD_STATE, 'Member is not the owner of batch record');
  fails(() => sp.acknowledge('a', [{ firstOffset: 12, lastOffset: 13, acknowledgeTypes: [ACCEPT] }], 1), ErrorCode.INVALID_REQUEST, 'Batch record not found. The first offset in request is past acquired records.');
  // Batches may touch at one offset; the second then finds it acknowledged already.
  fails(() => sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [RELEASE] }, { firstOffset: 1, lastOffset: 2, acknowledgeTypes: [RELEASE] }], 1),
    ErrorCode.INVALID_RECORD_STATE, 'The offset cannot be acknowledged. The offset is not acquired.');
  // Nothing changed: 0-6 are still a's. Accepting 0-1 splits a's batch, then checked per offset.
  sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] }], 2);
  fails(() => sp.acknowledge('b', [{ firstOffset: 2, lastOffset: 2, acknowledgeTypes: [ACCEPT] }], 3), ErrorCode.INVALID_RECORD_STATE, 'Member is not the owner of offset');
  // Before the start offset: done with, nothing to do.
  assert.equal(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] }], 4), null);
});

test("the request's checks of acknowledgement batches (KafkaApis.validateAcknowledgementBatches)", T, () => {
  const b = (first: number, last: number, ...types: number[]) => ({ firstOffset: BigInt(first), lastOffset: BigInt(last), acknowledgeTypes: types });
  const v1 = { renewVersion: false, isRenewAck: false };
  const v2 = { renewVersion: true, isRenewAck: true };
  assert.equal(acknowledgementBatchesValid([b(0, 1, ACCEPT), b(1, 2, ACCEPT)], v1), true, 'touching at one offset passes here');
  assert.equal(acknowledgementBatchesValid([b(2, 3, ACCEPT), b(1, 2, ACCEPT)], v1), false, 'out of order');
  assert.equal(acknowledgementBatchesValid([b(3, 2, ACCEPT)], v1), false, 'last before first');
  assert.equal(acknowledgementBatchesValid([b(0, 0)], v1), false, 'no types');
  assert.equal(acknowledgementBatchesValid([b(0, 2, ACCEPT, ACCEPT)], v1), false, 'a type count that does not match');
  assert.equal(acknowledgementBatchesValid([b(0, 0, 5)], v2), false, 'an unknown type');
  assert.equal(acknowledgementBatchesValid([b(0, 0, RENEW)], v1), false, 'RENEW before v2');
  assert.equal(acknowledgementBatchesValid([b(0, 0, RENEW)], { renewVersion: true, isRenewAck: false }), false, 'RENEW without IsRenewAck');
  assert.equal(acknowledgementBatchesValid([b(0, 1, RENEW, ACCEPT)], v2), true);
});
