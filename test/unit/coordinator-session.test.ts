import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeGroupMetadataValue } from '../../src/protocol/coordinator-records/framing.js';
import { CoordinatorHarness, assignment, subscription } from '../support/coordinator/harness.js';
import { awaitJoins, formGroup, heartbeat, join, joinNew, leave, sync, type StableGroup } from '../support/coordinator/requests.js';

const G = 'g';

/** All members heartbeat every `everyMs` for `forMs`, except `silent`. */
function heartbeatFor(h: CoordinatorHarness, g: StableGroup, forMs: number, silent: string[] = [], everyMs = 3000): void {
  for (let t = 0; t < forMs; t += everyMs) {
    h.advance(everyMs);
    for (const m of g.members) if (!silent.includes(m)) heartbeat(h, { group: G, generationId: g.generationId, memberId: m });
  }
}

describe('coordinator: Heartbeat', () => {
  it('answers by state and member: NONE, REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const hb = (o: Partial<Parameters<typeof heartbeat>[1]>) =>
      heartbeat(h, { group: G, generationId: g.generationId, memberId: g.members[1], ...o }).answer.errorCode;
    assert.equal(hb({}), ErrorCode.NONE);
    assert.equal(hb({ generationId: g.generationId - 1 }), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(hb({ memberId: 'nobody' }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(hb({ group: 'nope' }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(hb({ group: '' }), ErrorCode.INVALID_GROUP_ID);
    join(h, { group: G, memberId: g.leader });
    assert.equal(hb({}), ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('heartbeats between the JoinGroup response and the SyncGroup are fine (CompletingRebalance)', () => {
    const h = new CoordinatorHarness();
    const [a] = awaitJoins(h, [joinNew(h, { group: G })]);
    assert.equal(h.coordinator.group(G)?.state, 'CompletingRebalance');
    assert.equal(heartbeat(h, { group: G, generationId: a.generationId, memberId: a.memberId }).answer.errorCode, ErrorCode.NONE);
  });
});

describe('coordinator: session expiry', () => {
  it('a member that stops heartbeating is removed after its session timeout and the group rebalances', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 3);
    const silent = g.members[2];
    heartbeatFor(h, g, 9000, [silent]);
    assert.equal(h.coordinator.group(G)?.members.length, 3);
    h.advance(1000); // 10 s since its last sign of life
    const snap = h.coordinator.group(G)!;
    assert.deepEqual(snap.members.map((m) => m.memberId), g.members.slice(0, 2));
    assert.equal(snap.state, 'PreparingRebalance');
    assert.equal(heartbeat(h, { group: G, generationId: g.generationId, memberId: silent }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('heartbeats keep a member alive indefinitely', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    heartbeatFor(h, g, 120_000);
    assert.equal(h.coordinator.group(G)?.state, 'Stable');
    assert.equal(h.coordinator.group(G)?.members.length, 2);
  });

  it('when the last member expires the group becomes Empty, which is persisted', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    h.advance(10_000);
    const snap = h.coordinator.group(G)!;
    assert.equal(snap.state, 'Empty');
    assert.equal(snap.generationId, g.generationId + 1);
    const last = decodeGroupMetadataValue(h.log[h.log.length - 1].value!);
    assert.equal(last.generation, g.generationId + 1);
    assert.deepEqual(last.members, []);
  });

  it('a new member whose JoinGroup stays parked is dropped after the new-member join timeout', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1, { rebalanceTimeoutMs: 600_000, sessionTimeoutMs: 60_000 });
    // The new member's join parks while the old member never rejoins (it just heartbeats).
    const newcomer = joinNew(h, { group: G, clientId: 'late', rebalanceTimeoutMs: 600_000, sessionTimeoutMs: 60_000 });
    for (let t = 0; t < 300_000; t += 30_000) {
      h.advance(30_000);
      heartbeat(h, { group: G, generationId: g.generationId, memberId: g.members[0] });
    }
    assert.equal(newcomer.answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(newcomer.answer.memberId, '');
  });
});

describe('coordinator: LeaveGroup', () => {
  it('v3+ removes a batch of members, with a result per member', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 3);
    const r = leave(h, { group: G, members: [{ memberId: g.members[1] }, { memberId: 'nobody' }, { memberId: g.members[2] }] });
    assert.equal(r.answer.errorCode, ErrorCode.NONE);
    assert.deepEqual(r.answer.members!.map((m) => m.errorCode), [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.NONE]);
    assert.deepEqual(h.coordinator.group(G)?.members.map((m) => m.memberId), [g.members[0]]);
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
  });

  it('v0-2 removes one member and reports its error at the top level', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    assert.equal(leave(h, { group: G, members: [{ memberId: 'nobody' }], version: 0 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(leave(h, { group: G, members: [{ memberId: g.members[1] }], version: 2 }).answer.errorCode, ErrorCode.NONE);
    assert.equal(leave(h, { group: 'nope', members: [{ memberId: 'x' }], version: 1 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    const unknownGroup = leave(h, { group: 'nope', members: [{ memberId: 'x' }] }).answer;
    assert.equal(unknownGroup.errorCode, ErrorCode.NONE);
    assert.equal(unknownGroup.members![0].errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a leave during the join phase completes it when everyone else already rejoined', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const rejoin = join(h, { group: G, memberId: g.members[0] });
    assert.equal(rejoin.response, undefined);
    leave(h, { group: G, members: [{ memberId: g.members[1] }] });
    assert.equal(rejoin.answer.generationId, g.generationId + 1);
    assert.equal(rejoin.answer.members.length, 1);
  });

  it('a pending member id can leave', () => {
    const h = new CoordinatorHarness();
    const first = join(h, { group: G });
    const r = leave(h, { group: G, members: [{ memberId: first.answer.memberId }] });
    assert.equal(r.answer.members![0].errorCode, ErrorCode.NONE);
    assert.deepEqual(h.coordinator.group(G)?.pendingMemberIds, []);
  });
});

describe('coordinator: cooperative rebalancing', () => {
  it('repeated rebalances (cooperative-sticky revokes, then rejoins) complete one after the other', () => {
    const h = new CoordinatorHarness();
    const coop = (topics: string[]) => [{ name: 'cooperative-sticky', metadata: subscription(topics) }];
    const [a] = awaitJoins(h, [joinNew(h, { group: G, clientId: 'a', protocols: coop(['orders']) })]);
    sync(h, { group: G, generationId: 1, memberId: a.memberId, protocolName: 'cooperative-sticky', assignments: { [a.memberId]: assignment({ orders: [0, 1] }) } });

    // b joins: rebalance 1 (a keeps its partitions; nothing for b yet), then a immediately
    // rejoins after revoking partition 1: rebalance 2 gives it to b.
    const b1 = joinNew(h, { group: G, clientId: 'b', protocols: coop(['orders']) });
    const a2 = join(h, { group: G, memberId: a.memberId, protocols: coop(['orders']) });
    assert.equal(a2.answer.generationId, 2);
    assert.equal(b1.answer.generationId, 2);
    const b = b1.answer.memberId;
    const sb = sync(h, { group: G, generationId: 2, memberId: b, protocolName: 'cooperative-sticky' });
    sync(h, { group: G, generationId: 2, memberId: a.memberId, protocolName: 'cooperative-sticky', assignments: { [a.memberId]: assignment({ orders: [0] }), [b]: assignment({}) } });
    assert.equal(sb.answer.errorCode, ErrorCode.NONE);

    const a3 = join(h, { group: G, memberId: a.memberId, protocols: coop(['orders']) });
    const b3 = join(h, { group: G, memberId: b, protocols: coop(['orders']) });
    assert.equal(a3.answer.generationId, 3);
    assert.equal(b3.answer.generationId, 3);
    const sb3 = sync(h, { group: G, generationId: 3, memberId: b, protocolName: 'cooperative-sticky' });
    sync(h, { group: G, generationId: 3, memberId: a.memberId, protocolName: 'cooperative-sticky', assignments: { [a.memberId]: assignment({ orders: [0] }), [b]: assignment({ orders: [1] }) } });
    assert.ok(sb3.answer.assignment.equals(assignment({ orders: [1] })));
    assert.equal(h.coordinator.group(G)?.state, 'Stable');
  });
});
