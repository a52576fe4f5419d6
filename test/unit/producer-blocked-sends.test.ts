/**
 * The producer's queue of waiting sends (columns in fixed-size chunks): first in, first
 * out across chunk boundaries, every field as pushed, and a drain that reports each send
 * once, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockedSends } from '../../src/client/producer/blocked-sends.js';
import type { DeliveryTarget } from '../../src/client/producer/delivery.js';

const target: DeliveryTarget = () => undefined;

function fill(q: BlockedSends, from: number, to: number): void {
  for (let i = from; i < to; i++) q.push({ topic: `t${i}` }, `k${i}`, Buffer.from([i & 0xff]), i % 2 === 0 ? undefined : { h: 'v' }, i * 3, 1e12 + i, 2e12 + i, target, i);
}

test('sends leave in the order they came, each with its fields, across chunks and after emptying', { timeout: 10_000 }, () => {
  const q = new BlockedSends();
  let next = 0;
  let pushed = 0;
  // Fill past several chunks, take some, add more, empty it, and fill it again.
  for (const [add, take] of [[10_000, 4_100], [3_000, 8_900], [0, 0], [5_000, 2_000]] as const) {
    fill(q, pushed, pushed + add);
    pushed += add;
    assert.equal(q.length, pushed - next);
    for (let i = 0; i < take; i++, next++) {
      assert.equal(q.record.topic, `t${next}`);
      assert.equal(q.key, `k${next}`);
      assert.deepEqual(q.value, Buffer.from([next & 0xff]));
      assert.deepEqual(q.headersInput, next % 2 === 0 ? undefined : { h: 'v' });
      assert.equal(q.upperBound, next * 3);
      assert.equal(q.timestamp, 1e12 + next);
      assert.equal(q.deadlineMs, 2e12 + next);
      assert.equal(q.target, target);
      assert.equal(q.tag, next);
      q.shift();
    }
  }
  const drained: unknown[] = [];
  q.drain((t, tag) => drained.push(t === target ? tag : 'wrong target'));
  assert.deepEqual(drained, Array.from({ length: pushed - next }, (_, i) => next + i));
  assert.equal(q.length, 0);
  fill(q, 0, 3);
  assert.equal(q.length, 3);
  assert.equal(q.record.topic, 't0');
});
