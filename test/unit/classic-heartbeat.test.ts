/**
 * ClassicHeartbeat on a manual clock: a join that completes after the consumer closed (it was
 * in flight) starts no heartbeat timer, which would otherwise hold the process after close().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { ClassicHeartbeat, type ClassicHeartbeatSubject } from '../../src/client/consumer/group/classic-heartbeat.js';
import type { MembershipContext } from '../../src/client/consumer/group/group-member.js';

function heartbeatOn(scheduler: ManualScheduler): ClassicHeartbeat {
  const ctx = { cluster: { scheduler }, options: { heartbeatIntervalMs: 3_000, maxPollIntervalMs: 300_000, retryBackoffMs: 100 } } as unknown as MembershipContext;
  const member: ClassicHeartbeatSubject = {
    memberId: 'm', generationId: 1, active: true,
    requestRejoin: () => undefined, resetGeneration: () => undefined, fail: () => undefined, maybeLeaveGroup: async () => undefined,
  };
  return new ClassicHeartbeat(ctx, member);
}

test('start() schedules the first heartbeat one interval ahead; after close() it schedules nothing', { timeout: 10_000 }, () => {
  const scheduler = new ManualScheduler(0);
  const open = heartbeatOn(scheduler);
  open.start();
  assert.equal(scheduler.pendingTimers, 1);
  open.close();
  assert.equal(scheduler.pendingTimers, 0);

  const closed = heartbeatOn(scheduler);
  closed.close();
  closed.start();
  assert.equal(scheduler.pendingTimers, 0);
});
