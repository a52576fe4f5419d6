import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CoordinatorHarness } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named } from '../support/coordinator/consumer.js';

const SESSION = 'consumer-session:g:A';
const REBALANCE = 'consumer-rebalance:g:A';

describe('coordinator: consumer-group session and rebalance timeouts', { timeout: 10_000 }, () => {
  it('every heartbeat pushes the session deadline to now + group.consumer.session.timeout.ms; a leave cancels it (testSessionTimeoutLifecycle)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    cgJoin(h, { memberId: 'A' });
    assert.equal(h.timers.dueAt(SESSION), h.nowMs + 45_000);
    h.advance(10_000);
    cgBeat(h, 'A', 2, { t: [0] });
    assert.equal(h.timers.dueAt(SESSION), h.nowMs + 45_000);
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    assert.equal(h.timers.has(SESSION), false);
  });

  it('a member silent for the session timeout is fenced and the group epoch bumped (testSessionTimeoutExpiration)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    const logBefore = h.log.length;
    for (let t = 0; t < 45_000; t += 5000) {
      h.advance(5000);
      const b = assignments(h)['B']!;
      cgBeat(h, 'B', b.epoch, b.current);
    }
    assert.deepEqual(Object.keys(assignments(h)), ['B']);
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 2 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    // A's records went: current assignment, target and metadata tombstones.
    assert.ok(h.log.slice(logBefore).filter((r) => r.value === null).length >= 3);
    // B's next heartbeat (the loop's last) got A's partitions at a new epoch.
    assert.deepEqual(assignments(h)['B'], { epoch: 4, current: { t: [0, 1] }, target: { t: [0, 1] } });
  });

  it('a member that must revoke gets its rebalance timeout; revoking cancels it (testRebalanceTimeoutLifecycle)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A', rebalanceTimeoutMs: 12_000 });
    cgJoin(h, { memberId: 'B' });
    const a = cgBeat(h, 'A', 2, { t: [0, 1] });
    assert.equal(h.timers.dueAt(REBALANCE), h.nowMs + 12_000);
    cgBeat(h, 'A', 2, named(h, a.assignment?.topicPartitions)!);
    assert.equal(h.timers.has(REBALANCE), false);
  });

  it('a member that does not revoke within its rebalance timeout is fenced; the partitions go on (testRebalanceTimeoutExpiration)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A', rebalanceTimeoutMs: 12_000 });
    cgJoin(h, { memberId: 'B' });
    cgBeat(h, 'A', 2, { t: [0, 1] });
    // A keeps heartbeating but never revokes.
    for (let t = 0; t < 12_000; t += 3000) {
      h.advance(3000);
      if (assignments(h)['A'] !== undefined) cgBeat(h, 'A', 2, { t: [0, 1] });
      cgBeat(h, 'B', assignments(h)['B']!.epoch, assignments(h)['B']!.current);
    }
    assert.deepEqual(Object.keys(assignments(h)), ['B']);
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 2, owned: { t: [0, 1] } }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.deepEqual(assignments(h)['B'], { epoch: 4, current: { t: [0, 1] }, target: { t: [0, 1] } });
    assert.equal(cgDescribe(h).groupState, 'Stable');
  });

  it('the session timeout comes from group.consumer.session.timeout.ms and the interval from group.consumer.heartbeat.interval.ms', async () => {
    const { GroupCoordinator } = await import('../../src/coordinator/coordinator.js');
    const { testConfig } = await import('../support/coordinator/harness.js');
    const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ consumerGroupSessionTimeoutMs: 6000, consumerGroupHeartbeatIntervalMs: 1000 })));
    h.setTopics({ t: 1 });
    assert.equal(cgJoin(h, { memberId: 'A' }).heartbeatIntervalMs, 1000);
    assert.equal(h.timers.dueAt(SESSION), h.nowMs + 6000);
  });
});
