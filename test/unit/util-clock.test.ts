import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';

test('ManualScheduler fires timers in due order, ties in scheduling order, only when advanced', async () => {
  const s = new ManualScheduler(1000);
  const fired: string[] = [];
  s.schedule(50, () => fired.push(`a@${s.nowMs()}`));
  s.schedule(10, () => fired.push(`b@${s.nowMs()}`));
  s.schedule(10, () => fired.push(`c@${s.nowMs()}`));
  const cancelled = s.schedule(20, () => fired.push('never'));
  cancelled.cancel();
  await s.advance(9);
  assert.deepEqual(fired, []);
  await s.advance(41);
  assert.deepEqual(fired, ['b@1010', 'c@1010', 'a@1050']);
  assert.equal(s.nowMs(), 1050);
  assert.equal(s.pendingTimers, 0);
});

test('ManualScheduler runs awaiting code between timers, so a timer may schedule the next one', async () => {
  const s = new ManualScheduler();
  const ticks: number[] = [];
  const loop = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await s.sleep(100);
      await Promise.resolve();
      ticks.push(s.nowMs());
    }
  };
  const done = loop();
  await s.advance(1000);
  await done;
  assert.deepEqual(ticks, [100, 200, 300]);
});

test('ManualScheduler sleep rejects with the abort reason', async () => {
  const s = new ManualScheduler();
  const controller = new AbortController();
  const sleeping = s.sleep(100, controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(sleeping, /stop/);
  assert.equal(s.pendingTimers, 0);
});
