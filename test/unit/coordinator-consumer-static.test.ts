import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CoordinatorHarness } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named } from '../support/coordinator/consumer.js';

/** Static member S1 (instance "i1") and dynamic member D in a group on t (2 partitions), settled. */
function settledGroup(): CoordinatorHarness {
  const h = new CoordinatorHarness();
  h.setTopics({ t: 2 });
  cgJoin(h, { memberId: 'S1', instanceId: 'i1' });
  cgJoin(h, { memberId: 'D' });
  cgBeat(h, 'S1', 2, { t: [0, 1] });
  const kept = assignments(h)['S1']!.target.t!;
  cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: 2, owned: { t: kept } });
  cgBeat(h, 'D', 3, {});
  assert.equal(cgDescribe(h).groupState, 'Stable');
  return h;
}

describe('coordinator: static members of consumer groups', { timeout: 10_000 }, () => {
  it('a static member leaving with epoch -2 keeps its assignment and the group epoch (GroupMetadataManagerTest static leave)', () => {
    const h = settledGroup();
    const before = assignments(h)['S1']!;
    const r = cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: -2 }).answer;
    assert.deepEqual([r.errorCode, r.memberId, r.memberEpoch], [ErrorCode.NONE, 'S1', -2]);
    const d = cgDescribe(h);
    assert.equal(d.groupEpoch, 3);
    assert.equal(d.members.find((m) => m.memberId === 'S1')!.memberEpoch, -2);
    assert.deepEqual(assignments(h)['S1']!.current, before.current);
  });

  it('comes back under a new member id with its assignment and no new group epoch (testStaticMemberGetsBackAssignmentUponRejoin)', () => {
    const h = settledGroup();
    const before = assignments(h)['S1']!;
    cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: -2 });
    const r = cgJoin(h, { memberId: 'S2', instanceId: 'i1' });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.memberEpoch, 3);
    assert.deepEqual(named(h, r.assignment?.topicPartitions), before.current);
    const after = assignments(h);
    assert.deepEqual(Object.keys(after).sort(), ['D', 'S2']);
    assert.equal(cgDescribe(h).groupEpoch, 3);
    assert.equal(cgDescribe(h).groupState, 'Stable');
    // The old member id is gone: its heartbeats are fenced by the new holder of the instance.
    assert.equal(cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: 3 }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    // Its session timer fires later and finds nobody: nothing changes.
    for (let t = 0; t < 60_000; t += 5000) {
      h.advance(5000);
      for (const id of ['D', 'S2']) cgHeartbeat(h, { memberId: id, instanceId: id === 'S2' ? 'i1' : null, epoch: 3, owned: assignments(h)[id]!.current });
    }
    assert.deepEqual(Object.keys(assignments(h)).sort(), ['D', 'S2']);
    assert.equal(cgDescribe(h).groupEpoch, 3);
  });

  it('a rejoin with a new subscription bumps the group epoch (testStaticMemberRejoinsWithNewSubscribedTopics)', () => {
    const h = settledGroup();
    h.setTopics({ t: 2, u: 1 });
    cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: -2 });
    const r = cgJoin(h, { memberId: 'S2', instanceId: 'i1', topics: ['t', 'u'] });
    assert.equal(r.memberEpoch, 4);
    assert.equal(cgDescribe(h).groupEpoch, 4);
  });

  it('refuses a second member for an instance id still in use: UNRELEASED_INSTANCE_ID (testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId)', () => {
    const h = settledGroup();
    assert.equal(cgHeartbeat(h, { memberId: 'S9', instanceId: 'i1', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} }).answer.errorCode, ErrorCode.UNRELEASED_INSTANCE_ID);
  });

  it('answers UNKNOWN_MEMBER_ID for an unknown instance and FENCED_INSTANCE_ID for another member\'s (testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins, testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins, ...Leaves)', () => {
    const h = settledGroup();
    assert.equal(cgHeartbeat(h, { memberId: 'S1', instanceId: 'nope', epoch: 3 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(cgHeartbeat(h, { memberId: 'X', instanceId: 'i1', epoch: 3 }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(cgHeartbeat(h, { memberId: 'S1', instanceId: 'nope', epoch: -2 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(cgHeartbeat(h, { memberId: 'X', instanceId: 'i1', epoch: -1 }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: 9 }).answer.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
  });

  it('a static member leaving with epoch -1 is removed and bumps the group epoch (testLeavingStaticMemberBumpsGroupEpoch)', () => {
    const h = settledGroup();
    cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: -1 });
    assert.deepEqual(Object.keys(assignments(h)), ['D']);
    assert.equal(cgDescribe(h).groupEpoch, 4);
  });

  it('a static member away (-2) is removed when its session expires (testSessionTimeoutExpirationStaticMember)', () => {
    const h = settledGroup();
    cgHeartbeat(h, { memberId: 'S1', instanceId: 'i1', epoch: -2 });
    for (let t = 0; t < 50_000; t += 5000) {
      h.advance(5000);
      cgBeat(h, 'D', cgDescribe(h).members.find((m) => m.memberId === 'D')!.memberEpoch, assignments(h)['D']!.current);
    }
    assert.deepEqual(Object.keys(assignments(h)), ['D']);
    assert.ok(cgDescribe(h).groupEpoch >= 4);
  });
});
