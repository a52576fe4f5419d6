/**
 * The coordinators' keyed timers on a manual clock: a key fires once, at the last time it
 * was scheduled for, whether that moved it later (a heartbeat pushing a session timeout
 * out, which only moves the due time) or earlier; a cancelled or replaced key never fires
 * for its old time; nothing fires after stop.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedTimers } from '../../src/broker/keyed-timers.js';
import { ManualScheduler } from '../../src/util/clock.js';

function setup() {
  const clock = new ManualScheduler(1000);
  const fired: [string, number][] = [];
  const timers = new KeyedTimers<string>(clock, (key) => fired.push([key, clock.nowMs()]));
  return { clock, fired, timers };
}

describe('broker: keyed timers', { timeout: 10_000 }, () => {
  it('a key pushed later again and again fires once, at its last time', async () => {
    const { clock, fired, timers } = setup();
    timers.schedule('session', 1100);
    for (let t = 1010; t <= 1500; t += 10) {
      await clock.advance(10);
      timers.schedule('session', t + 100);
    }
    assert.deepEqual(fired, []);
    await clock.advance(99);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [['session', 1600]]);
    await clock.advance(1000);
    assert.equal(fired.length, 1);
    assert.equal(clock.pendingTimers, 0, 'no timer left armed');
  });

  it('a key moved earlier fires at the earlier time, and not again at the later one', async () => {
    const { clock, fired, timers } = setup();
    timers.schedule('k', 2000);
    timers.schedule('k', 1200);
    await clock.advance(1500);
    assert.deepEqual(fired, [['k', 1200]]);
    await clock.advance(1000);
    assert.equal(fired.length, 1);
  });

  it('keys fire in due-time order, whichever was pushed', async () => {
    const { clock, fired, timers } = setup();
    timers.schedule('a', 1100);
    timers.schedule('b', 1150);
    timers.schedule('a', 1200); // armed for 1100, due at 1200
    await clock.advance(300);
    assert.deepEqual(fired, [['b', 1150], ['a', 1200]]);
  });

  it('a cancelled key does not fire; a cleared or stopped set neither', async () => {
    const { clock, fired, timers } = setup();
    timers.schedule('a', 1100);
    timers.schedule('a', 1300);
    timers.cancel('a');
    await clock.advance(500);
    timers.schedule('b', 1600);
    timers.clear();
    await clock.advance(500);
    timers.schedule('c', 2100);
    timers.stop();
    timers.schedule('d', 2100);
    await clock.advance(500);
    assert.deepEqual(fired, []);
    assert.equal(clock.pendingTimers, 0);
  });
});
