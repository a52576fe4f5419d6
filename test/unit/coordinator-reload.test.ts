import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CoordinatorHarness, assignment } from '../support/coordinator/harness.js';
import { commit, fetchedOffsets, fetchOffsets, formGroup, heartbeat, join, leave, sync } from '../support/coordinator/requests.js';

const G = 'g';

describe('coordinator: reload from __consumer_offsets', () => {
  it('committed offsets survive a restart, with metadata and leader epoch', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    commit(h, { group: G, generationId: g.generationId, memberId: g.leader, offsets: { orders: { 0: 42, 1: 43 } }, metadata: 'why', leaderEpoch: 7 });
    commit(h, { group: 'standalone', offsets: { t: { 3: 9 } } });

    const r = h.restart();
    const fetched = fetchOffsets(r, { group: G, topics: null }).answer;
    assert.deepEqual(fetchedOffsets(fetched), { 'orders/0': 42, 'orders/1': 43 });
    assert.equal(fetched.groups![0].topics[0].partitions[0].metadata, 'why');
    assert.equal(fetched.groups![0].topics[0].partitions[0].committedLeaderEpoch, 7);
    assert.deepEqual(fetchedOffsets(fetchOffsets(r, { group: 'standalone', topics: { t: [3] } }).answer), { 't/3': 9 });
    assert.equal(r.coordinator.group('standalone')?.state, 'Empty');
  });

  it('a Stable group comes back Stable with its generation, leader, protocol, members and assignments', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const r = h.restart();
    const snap = r.coordinator.group(G)!;
    assert.equal(snap.state, 'Stable');
    assert.equal(snap.generationId, g.generationId);
    assert.equal(snap.leaderId, g.leader);
    assert.equal(snap.protocolName, 'range');
    assert.deepEqual(snap.members.map((m) => m.memberId), g.members);
    // Members carry on where they were: heartbeats and syncs of the same generation work.
    assert.equal(heartbeat(r, { group: G, generationId: g.generationId, memberId: g.members[1] }).answer.errorCode, ErrorCode.NONE);
    const s = sync(r, { group: G, generationId: g.generationId, memberId: g.members[1] });
    assert.ok(s.answer.assignment.equals(assignment({ orders: [1] })));
  });

  it('loaded members must heartbeat within their session timeout or are removed', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const r = h.restart();
    for (let t = 0; t < 12_000; t += 3000) {
      r.advance(3000);
      heartbeat(r, { group: G, generationId: g.generationId, memberId: g.members[0] });
    }
    const snap = r.coordinator.group(G)!;
    assert.deepEqual(snap.members.map((m) => m.memberId), [g.members[0]]);
    assert.equal(snap.state, 'PreparingRebalance');
    // The rebalance proceeds as usual on the reloaded group.
    const rejoin = join(r, { group: G, memberId: g.members[0] });
    assert.equal(rejoin.answer.generationId, g.generationId + 1);
  });

  it('an Empty group comes back Empty with its generation; deleted groups stay deleted', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    leave(h, { group: G, members: [{ memberId: g.members[0] }] });
    formGroup(h, 'doomed', 1);
    leave(h, { group: 'doomed', members: [{ memberId: h.coordinator.group('doomed')!.members[0].memberId }] });
    commit(h, { group: 'doomed', offsets: { t: { 0: 1 } } });
    h.send('DeleteGroups', 1, { groupsNames: ['doomed'] });

    const r = h.restart();
    assert.equal(r.coordinator.group(G)?.state, 'Empty');
    assert.equal(r.coordinator.group(G)?.generationId, g.generationId + 1);
    assert.equal(r.coordinator.group('doomed'), undefined);
    assert.deepEqual(fetchedOffsets(fetchOffsets(r, { group: 'doomed', topics: null }).answer), {});
  });

  it('a group created by a JoinGroup that never completed a generation comes back Empty at generation 0', () => {
    const h = new CoordinatorHarness();
    join(h, { group: G });
    const r = h.restart();
    assert.equal(r.coordinator.group(G)?.state, 'Empty');
    assert.equal(r.coordinator.group(G)?.generationId, 0);
  });

  it('a static member replacement is persisted: the new member id survives', () => {
    const h = new CoordinatorHarness();
    const j = join(h, { group: G, instanceId: 'i1', sessionTimeoutMs: 30_000 });
    h.advance(3000);
    sync(h, { group: G, generationId: 1, memberId: j.answer.memberId, instanceId: 'i1', assignments: { [j.answer.memberId]: assignment({ orders: [0] }) } });
    const restarted = join(h, { group: G, instanceId: 'i1', sessionTimeoutMs: 30_000 }).answer;
    const r = h.restart();
    assert.deepEqual(r.coordinator.group(G)?.members, [{ memberId: restarted.memberId, groupInstanceId: 'i1' }]);
    assert.equal(heartbeat(r, { group: G, generationId: 1, memberId: j.answer.memberId, instanceId: 'i1' }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
  });

  it('offsets deleted or expired before the restart stay gone', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: 's', offsets: { t: { 0: 1, 1: 2 } } });
    h.send('OffsetDelete', 0, { groupId: 's', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] });
    const r = h.restart();
    assert.deepEqual(fetchedOffsets(fetchOffsets(r, { group: 's', topics: null }).answer), { 't/1': 2 });
  });

  it('a loaded group larger than group.max.size rebalances', () => {
    const h = new CoordinatorHarness();
    formGroup(h, G, 3);
    const r = h.restart({ maxGroupSize: 2 });
    assert.equal(r.coordinator.group(G)?.state, 'PreparingRebalance');
  });

  it('unload answers parked requests NOT_COORDINATOR and cancels every timer', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const parked = join(h, { group: G, memberId: g.leader });
    const result = h.apply(h.coordinator.unload(h.nowMs));
    assert.equal(parked.answer.errorCode, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(h.timers.keys(), []);
    assert.ok(result.timers.length > 0);
    assert.equal(join(h, { group: G }).answer.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // A Dead group takes no commits either.
    const c = commit(h, { group: G, generationId: g.generationId, memberId: g.members[1], offsets: { orders: { 0: 1 } } });
    assert.equal(c.answer.topics[0].partitions[0].errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });
});
