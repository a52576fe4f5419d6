import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeGroupMetadataValue } from '../../src/protocol/coordinator-records/framing.js';
import { CoordinatorHarness, assignment, subscription } from '../support/coordinator/harness.js';
import { awaitJoins, commit, heartbeat, join, leave, sync } from '../support/coordinator/requests.js';

const G = 'g';

/** Two static members (instances "i1", "i2") in a Stable group. */
function staticGroup(h: CoordinatorHarness, version = 9) {
  const j1 = join(h, { group: G, instanceId: 'i1', clientId: 'c1', version, sessionTimeoutMs: 30_000 });
  const j2 = join(h, { group: G, instanceId: 'i2', clientId: 'c2', version, sessionTimeoutMs: 30_000 });
  const [r1, r2] = awaitJoins(h, [j1, j2]);
  const assignments = { [r1.memberId]: assignment({ orders: [0] }), [r2.memberId]: assignment({ orders: [1] }) };
  sync(h, { group: G, generationId: r1.generationId, memberId: r1.memberId, instanceId: 'i1', assignments });
  sync(h, { group: G, generationId: r1.generationId, memberId: r2.memberId, instanceId: 'i2' });
  assert.equal(h.coordinator.group(G)?.state, 'Stable');
  return { leader: r1.memberId, follower: r2.memberId, generationId: r1.generationId };
}

describe('coordinator: static membership (KIP-345)', () => {
  it('static members need no MEMBER_ID_REQUIRED round and get "<group.instance.id>-<uuid>" ids', () => {
    const h = new CoordinatorHarness();
    const { leader, follower } = staticGroup(h);
    assert.match(leader, /^i1-uuid-\d+$/);
    assert.match(follower, /^i2-uuid-\d+$/);
  });

  it('a restarted follower takes its place without a rebalance and gets its old assignment back', () => {
    const h = new CoordinatorHarness();
    const { leader, follower, generationId } = staticGroup(h);
    const records = h.log.length;
    const restarted = join(h, { group: G, instanceId: 'i2', clientId: 'c2' });
    const r = restarted.answer;
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.notEqual(r.memberId, follower);
    assert.equal(r.generationId, generationId, 'no new generation');
    assert.equal(r.leader, leader);
    assert.equal(r.skipAssignment, false);
    assert.equal(h.coordinator.group(G)?.state, 'Stable');
    // The new member id is persisted (the reply waits for that record).
    assert.equal(h.log.length, records + 1);
    assert.deepEqual(decodeGroupMetadataValue(h.log[records].value!).members.map((m) => m.memberId), [leader, r.memberId]);

    const s = sync(h, { group: G, generationId, memberId: r.memberId, instanceId: 'i2' });
    assert.ok(s.answer.assignment.equals(assignment({ orders: [1] })));
  });

  it('fences the old member id: heartbeat, sync, commit and rejoin get FENCED_INSTANCE_ID', () => {
    const h = new CoordinatorHarness();
    const { follower, generationId } = staticGroup(h);
    join(h, { group: G, instanceId: 'i2', clientId: 'c2' });
    const old = { group: G, generationId, memberId: follower, instanceId: 'i2' };
    assert.equal(heartbeat(h, old).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(sync(h, old).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(commit(h, { ...old, offsets: { orders: { 1: 5 } } }).answer.topics[0].partitions[0].errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(join(h, { group: G, memberId: follower, instanceId: 'i2' }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(leave(h, { group: G, members: [{ memberId: follower, instanceId: 'i2' }] }).answer.members![0].errorCode, ErrorCode.FENCED_INSTANCE_ID);
    // An unknown instance id with a member id is UNKNOWN_MEMBER_ID.
    assert.equal(heartbeat(h, { ...old, instanceId: 'i9' }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a parked request of the replaced member id is answered FENCED_INSTANCE_ID', () => {
    const h = new CoordinatorHarness();
    const j = join(h, { group: G, instanceId: 'i1', sessionTimeoutMs: 30_000 });
    const restarted = join(h, { group: G, instanceId: 'i1', sessionTimeoutMs: 30_000 });
    assert.equal(j.answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    h.advance(3000);
    assert.equal(restarted.answer.errorCode, ErrorCode.NONE);
  });

  it('v9: a restarted static leader is told it leads but skips the assignment', () => {
    const h = new CoordinatorHarness();
    const { follower, generationId } = staticGroup(h);
    const r = join(h, { group: G, instanceId: 'i1', clientId: 'c1' }).answer;
    assert.equal(r.leader, r.memberId);
    assert.equal(r.skipAssignment, true);
    assert.deepEqual(r.members.map((m) => m.memberId).sort(), [r.memberId, follower].sort());
    assert.equal(r.generationId, generationId);
  });

  it('before v9: a restarted static leader is given the old leader id, so it does not assign', () => {
    const h = new CoordinatorHarness();
    const { leader } = staticGroup(h, 5);
    const r = join(h, { group: G, instanceId: 'i1', clientId: 'c1', version: 5 }).answer;
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.leader, leader);
    assert.notEqual(r.memberId, leader);
    assert.deepEqual(r.members, []);
  });

  it('a restart that changes the chosen protocol triggers a rebalance', () => {
    const h = new CoordinatorHarness();
    const both = [
      { name: 'range', metadata: subscription(['orders']) },
      { name: 'roundrobin', metadata: subscription(['orders']) },
    ];
    const [r1, r2] = awaitJoins(h, [
      join(h, { group: G, instanceId: 'i1', protocols: both }),
      join(h, { group: G, instanceId: 'i2', protocols: both }),
    ]);
    assert.equal(r1.protocolName, 'range');
    sync(h, { group: G, generationId: r1.generationId, memberId: r1.memberId, instanceId: 'i1' });
    sync(h, { group: G, generationId: r1.generationId, memberId: r2.memberId, instanceId: 'i2' });
    // i1 comes back supporting roundrobin only: the next generation would use roundrobin.
    const restarted = join(h, { group: G, instanceId: 'i1', protocols: [both[1]] });
    assert.equal(restarted.response, undefined, 'parked: the group rebalances');
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
    const rejoin = join(h, { group: G, memberId: r2.memberId, instanceId: 'i2', protocols: both });
    assert.equal(rejoin.answer.protocolName, 'roundrobin');
    assert.equal(restarted.answer.generationId, r1.generationId + 1);
  });

  it('static members that do not rejoin keep their place when the join phase completes', () => {
    const h = new CoordinatorHarness();
    const { leader, follower } = staticGroup(h);
    // The follower's metadata changes: rebalance. The static leader does not rejoin in time.
    const f = join(h, { group: G, memberId: follower, instanceId: 'i2', topics: ['orders', 'more'], sessionTimeoutMs: 30_000 });
    for (let t = 0; t < 30_000; t += 10_000) {
      // The leader's session stays alive: it heartbeats (REBALANCE_IN_PROGRESS) but never rejoins.
      heartbeat(h, { group: G, generationId: 1, memberId: leader, instanceId: 'i1' });
      h.advance(10_000);
    }
    assert.equal(f.answer.errorCode, ErrorCode.NONE);
    assert.deepEqual(h.coordinator.group(G)?.members.map((m) => m.memberId).sort(), [leader, follower].sort());
  });

  it('an admin can remove a static member by group.instance.id alone', () => {
    const h = new CoordinatorHarness();
    const { follower } = staticGroup(h);
    const r = leave(h, { group: G, members: [{ memberId: '', instanceId: 'i2' }, { memberId: '', instanceId: 'i9' }] });
    assert.deepEqual(r.answer.members!.map((m) => m.errorCode), [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
    assert.ok(!h.coordinator.group(G)?.members.some((m) => m.memberId === follower));
  });
});
