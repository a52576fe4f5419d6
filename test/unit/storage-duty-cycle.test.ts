import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DutyCycle } from '../../src/storage/duty-cycle.js';

/** A manual clock: work advances it by hand, sleeps advance it by what they slept. */
function setUp(workMs: number, restMs: number) {
  let now = 1_000;
  const sleeps: number[] = [];
  const cycle = new DutyCycle({ workMs, restMs, now: () => now, sleep: (ms) => { sleeps.push(ms); now += ms; } });
  return { cycle, sleeps, work: (ms: number) => { now += ms; cycle.pace(); } };
}

test('DutyCycle: no rest before a slice of work is used up, then one rest of restMs per slice', () => {
  const { work, sleeps } = setUp(2, 3);
  work(0.5);
  work(1.4);
  assert.deepEqual(sleeps, [], '1.9 ms of a 2 ms slice');
  work(0.1);
  assert.deepEqual(sleeps, [3], 'the slice is used up: one rest');
  work(1.9);
  assert.deepEqual(sleeps, [3], 'the rest does not count as work: a new slice began after it');
  work(0.2);
  assert.deepEqual(sleeps, [3, 3]);
});

test('DutyCycle: a long unit of work is followed by one rest, not one per slice it spanned', () => {
  const { work, sleeps } = setUp(2, 2);
  work(50);
  assert.deepEqual(sleeps, [2]);
});

test('DutyCycle: begin() after idle time starts a fresh slice (the idle time was rest)', () => {
  const { cycle, work, sleeps } = setUp(2, 2);
  work(1.5);
  cycle.begin();
  work(1.5);
  assert.deepEqual(sleeps, [], 'begin() reset the slice');
  work(0.5);
  assert.deepEqual(sleeps, [2]);
});

test('DutyCycle: the share of time at work is workMs / (workMs + restMs) over a long run of small units', () => {
  const { work, sleeps } = setUp(2, 2);
  let worked = 0;
  for (let i = 0; i < 10_000; i++) {
    work(0.01);
    worked += 0.01;
  }
  const rested = sleeps.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(worked / (worked + rested) - 0.5) < 0.01, `share at work ${worked / (worked + rested)}`);
});
