/**
 * The share consumer's acknowledgement batches (Kafka's Acknowledgements): consecutive
 * offsets in one batch, one type when they all agree, one type per offset when not; the
 * last acknowledgement of an offset wins; the application's types and their wire codes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcknowledgeTypeCode, PartitionAcknowledgements, acknowledgeTypeCode } from '../../src/client/share/acknowledgements.js';

const { GAP, ACCEPT, RELEASE, REJECT, RENEW } = AcknowledgeTypeCode;

test('consecutive offsets form one batch: one type when they agree, one per offset when not; gaps in offsets start a new batch', () => {
  const acks = new PartitionAcknowledgements('t', 'id', 0, 1);
  for (const o of [5, 3, 4]) acks.add(o, ACCEPT);
  acks.add(7, RELEASE);
  acks.add(8, GAP);
  acks.add(9, REJECT);
  acks.add(12, ACCEPT);
  assert.deepEqual(acks.batches(), [
    { firstOffset: 3n, lastOffset: 5n, acknowledgeTypes: [ACCEPT] },
    { firstOffset: 7n, lastOffset: 9n, acknowledgeTypes: [RELEASE, GAP, REJECT] },
    { firstOffset: 12n, lastOffset: 12n, acknowledgeTypes: [ACCEPT] },
  ]);
  assert.deepEqual(acks.offsets(), [3n, 4n, 5n, 7n, 8n, 9n, 12n]);
  assert.equal(acks.size, 7);
  assert.equal(acks.hasRenew, false);
});

test('the last acknowledgement of an offset wins; RENEW is noticed', () => {
  const acks = new PartitionAcknowledgements('t', 'id', 0, 1);
  acks.add(1, RENEW);
  assert.equal(acks.hasRenew, true);
  acks.add(1, ACCEPT);
  assert.equal(acks.hasRenew, false);
  assert.deepEqual(acks.batches(), [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }]);
});

test('the application acknowledges with ACCEPT, RELEASE, REJECT or RENEW; GAP and anything else are refused', () => {
  assert.deepEqual((['ACCEPT', 'RELEASE', 'REJECT', 'RENEW'] as const).map(acknowledgeTypeCode), [1, 2, 3, 4]);
  assert.throws(() => acknowledgeTypeCode('GAP' as never), TypeError);
  assert.throws(() => acknowledgeTypeCode('accept' as never), TypeError);
});
