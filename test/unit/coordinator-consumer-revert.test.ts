import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CoordinatorHarness } from '../support/coordinator/harness.js';
import { assignments, cgDescribe, cgHeartbeat, cgJoin } from '../support/coordinator/consumer.js';

function describeAll(h: CoordinatorHarness, groups: string[]): unknown {
  return h.send('ConsumerGroupDescribe', 0, { groupIds: groups, includeAuthorizedOperations: false }).answer;
}

describe('coordinator: consumer-group results whose records fail are reverted', { timeout: 20_000 }, () => {
  it('a join that created the group: no group, no session timer, the member gets the error', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    h.holdAppends();
    const sent = cgHeartbeat(h, { memberId: 'A', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} });
    h.failAppends(ErrorCode.NOT_COORDINATOR);
    assert.equal(sent.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(cgDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(h.timers.has('consumer-session:g:A'), false);
    // The client retries the join: all as the first time.
    assert.equal(cgJoin(h, { memberId: 'A' }).memberEpoch, 2);
  });

  it('a reconciling heartbeat: epochs and assignments back, the session deadline not moved back', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    const before = describeAll(h, ['g']);
    h.advance(3000);
    h.holdAppends();
    const sent = cgHeartbeat(h, { memberId: 'A', epoch: 2, owned: { t: [0, 1] } });
    const due = h.timers.dueAt('consumer-session:g:A');
    h.failAppends();
    assert.equal(sent.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(describeAll(h, ['g']), before);
    assert.equal(h.timers.dueAt('consumer-session:g:A'), due, 'the heartbeat was a sign of life');
    assert.equal(h.timers.has('consumer-rebalance:g:A'), false, 'the revocation it asked for is undone');
  });

  it('pipelined results fail together, newest first: two joins after a held one are all undone', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 3 });
    cgJoin(h, { memberId: 'A' });
    const before = describeAll(h, ['g', 'g2']);
    h.holdAppends();
    const b = cgHeartbeat(h, { memberId: 'B', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} });
    const c = cgHeartbeat(h, { group: 'g2', memberId: 'C', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} });
    const leave = cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    h.failAppends();
    assert.deepEqual([b.failedWith, c.failedWith, leave.failedWith], [ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    assert.deepEqual(describeAll(h, ['g', 'g2']), before);
  });

  it('a session expiry whose fencing is not written: the member is back, and expires again after the retry backoff', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    cgJoin(h, { memberId: 'A' });
    h.holdAppends();
    h.advance(45_000);
    h.failAppends();
    assert.deepEqual(Object.keys(assignments(h)), ['A']);
    assert.equal(h.timers.dueAt('consumer-session:g:A'), h.nowMs + 500);
    h.advance(500);
    assert.equal(cgDescribe(h).groupState, 'Empty');
  });

  it('random operations under a failing append leave exactly the state before them', () => {
    let seed = 4848;
    const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4, u: 2, 'r-x': 2 });
    const instance = (id: string): string | null => (id === 'C' ? 'i-C' : null);
    /** One operation from what the groups were at `known` (answers are not read: they may be held). */
    const step = (known: Record<string, Record<string, { epoch: number; current: Record<string, number[]> }>>): void => {
      const group = pick(['g1', 'g2']);
      const id = pick(['A', 'B', 'C', 'D']);
      const m = known[group]![id];
      if (m === undefined) {
        if (random() < 0.3) cgHeartbeat(h, { group, memberId: id, epoch: 0, rebalanceTimeoutMs: 5000, regex: 'r-.*', owned: {} });
        else cgHeartbeat(h, { group, memberId: id, instanceId: instance(id), epoch: 0, rebalanceTimeoutMs: 5000, topics: ['t', 'u'].filter(() => random() < 0.7), owned: {} });
        return;
      }
      const r = random();
      if (r < 0.1) {
        cgHeartbeat(h, { group, memberId: id, instanceId: instance(id), epoch: instance(id) !== null && random() < 0.5 ? -2 : -1 });
      } else if (r < 0.2) {
        h.advance(10_000);
      } else {
        cgHeartbeat(h, { group, memberId: id, instanceId: instance(id), epoch: m.epoch, owned: m.current });
      }
    };
    const known = () => ({ g1: assignments(h, 'g1'), g2: assignments(h, 'g2') });
    const exists = (g: string): boolean => cgDescribe(h, g).errorCode === ErrorCode.NONE;
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 10; i++) step({ g1: exists('g1') ? assignments(h, 'g1') : {}, g2: exists('g2') ? assignments(h, 'g2') : {} });
      const state = known();
      const before = describeAll(h, ['g1', 'g2']);
      const timers = h.timers.keys().filter((k) => k.startsWith('consumer-session')).sort();
      h.holdAppends();
      // Something to fail first: a new member's join writes records.
      cgHeartbeat(h, { group: 'g3', memberId: `Z${round}`, epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} });
      for (let i = 0; i < 5; i++) step(state);
      h.failAppends();
      assert.deepEqual(describeAll(h, ['g1', 'g2']), before, `round ${round}`);
      assert.deepEqual(h.timers.keys().filter((k) => k.startsWith('consumer-session')).sort(), timers, `round ${round}: session timers`);
    }
  });
});
