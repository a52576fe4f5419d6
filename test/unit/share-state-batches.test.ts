/**
 * Combining a share-partition's state batches with an update's. The expected batches are
 * what Apache Kafka 4.4's PersisterStateBatchCombiner returned for the same input (through the
 * Java oracle, test/support/java ShareStateOracle); the interop test share-state-java.test.ts
 * compares the two on random input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combineStateBatches, DeliveryState, type StateBatch } from '../../src/coordinator/share-state/state-batches.js';

const { AVAILABLE, ACKNOWLEDGED, ARCHIVED } = DeliveryState;

function b(first: number, last: number, deliveryState: number, deliveryCount: number): StateBatch {
  return { firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState, deliveryCount };
}

test('an acknowledgement inside an available run splits it', () => {
  assert.deepEqual(combineStateBatches([b(0, 9, AVAILABLE, 1)], [b(3, 5, ACKNOWLEDGED, 1)], 0n),
    [b(0, 2, AVAILABLE, 1), b(3, 5, ACKNOWLEDGED, 1), b(6, 9, AVAILABLE, 1)]);
});

test('an update never takes a state back at the same delivery count', () => {
  assert.deepEqual(combineStateBatches([b(0, 9, ACKNOWLEDGED, 1)], [b(3, 5, AVAILABLE, 1)], 0n), [b(0, 9, ACKNOWLEDGED, 1)]);
});

test('the start offset cuts, the higher delivery count wins, then the higher state', () => {
  assert.deepEqual(
    combineStateBatches([b(0, 4, ARCHIVED, 2), b(5, 9, AVAILABLE, 1)], [b(2, 7, ACKNOWLEDGED, 1), b(8, 12, AVAILABLE, 3)], 3n),
    [b(3, 4, ARCHIVED, 2), b(5, 7, ACKNOWLEDGED, 1), b(8, 12, AVAILABLE, 3)],
  );
});

test('adjacent equal runs join; without a start offset nothing is cut; all before the start offset goes', () => {
  assert.deepEqual(combineStateBatches([b(0, 3, AVAILABLE, 1)], [b(4, 6, AVAILABLE, 1)], -1n), [b(0, 6, AVAILABLE, 1)]);
  assert.deepEqual(combineStateBatches([b(0, 3, AVAILABLE, 1)], [], 5n), []);
});
