import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { CoordinatorHarness, subscription, testConfig } from '../support/coordinator/harness.js';
import { awaitJoins, formGroup, join, joinNew, leave, sync } from '../support/coordinator/requests.js';

const G = 'g';
const DELAY = 3000;

describe('coordinator: JoinGroup protocol choice', () => {
  it('chooses by vote among the protocols every member supports', () => {
    const h = new CoordinatorHarness();
    const meta = subscription(['orders']);
    const p = (...names: string[]) => names.map((name) => ({ name, metadata: meta }));
    // Preferences: a: roundrobin > range > sticky; b: sticky > range; c: range > sticky.
    // Candidates (all support): range, sticky. Votes: a→range, b→sticky, c→range.
    const a = joinNew(h, { group: G, clientId: 'a', protocols: p('roundrobin', 'range', 'sticky') });
    const b = joinNew(h, { group: G, clientId: 'b', protocols: p('sticky', 'range') });
    const c = joinNew(h, { group: G, clientId: 'c', protocols: p('range', 'sticky') });
    awaitJoins(h, [a, b, c]);
    for (const j of [a, b, c]) assert.equal(j.answer.protocolName, 'range');
    assert.equal(a.answer.protocolType, 'consumer');
  });

  it('answers INCONSISTENT_GROUP_PROTOCOL to a member sharing no protocol with the group', () => {
    const h = new CoordinatorHarness();
    joinNew(h, { group: G, clientId: 'a', protocols: [{ name: 'range', metadata: subscription(['t']) }] });
    const b = join(h, { group: G, clientId: 'b', protocols: [{ name: 'roundrobin', metadata: subscription(['t']) }] });
    assert.equal(b.answer.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(b.answer.memberId, '');
  });

  it('answers INCONSISTENT_GROUP_PROTOCOL for another protocol type, or no protocols at all', () => {
    const h = new CoordinatorHarness();
    formGroup(h, G, 1);
    assert.equal(join(h, { group: G, protocolType: 'connect' }).answer.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const empty = join(h, { group: 'other', protocols: [] });
    assert.equal(empty.answer.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const noType = join(h, { group: 'third', protocolType: '' });
    assert.equal(noType.answer.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });
});

describe('coordinator: JoinGroup request checks', () => {
  it('rejects session timeouts outside the broker bounds', () => {
    const h = new CoordinatorHarness();
    assert.equal(join(h, { group: G, sessionTimeoutMs: 5999 }).answer.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
    assert.equal(join(h, { group: G, sessionTimeoutMs: 1_800_001 }).answer.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
    assert.equal(join(h, { group: G, sessionTimeoutMs: 6000 }).answer.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  });

  it('rejects an empty group id, and a member id the coordinator never gave', () => {
    const h = new CoordinatorHarness();
    assert.equal(join(h, { group: '' }).answer.errorCode, ErrorCode.INVALID_GROUP_ID);
    const stranger = join(h, { group: 'nobody', memberId: 'made-up' });
    assert.equal(stranger.answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(stranger.answer.memberId, 'made-up');
    assert.equal(h.coordinator.group('nobody'), undefined);
  });

  it('persists a group created by a JoinGroup at once (an empty GroupMetadata record)', () => {
    const h = new CoordinatorHarness();
    join(h, { group: G });
    assert.equal(h.log.length, 1);
    assert.equal(h.coordinator.group(G)?.state, 'Empty');
  });
});

describe('coordinator: member ids', () => {
  it('v4+: MEMBER_ID_REQUIRED with a "<client.id>-<uuid>" id, then the member joins with it', () => {
    const h = new CoordinatorHarness();
    const first = join(h, { group: G, clientId: 'app' });
    assert.equal(first.answer.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
    assert.equal(first.answer.memberId, 'app-uuid-1');
    assert.deepEqual(h.coordinator.group(G)?.pendingMemberIds, ['app-uuid-1']);
    const second = join(h, { group: G, clientId: 'app', memberId: 'app-uuid-1' });
    assert.equal(second.response, undefined, 'parked until the join phase completes');
    h.advance(DELAY);
    assert.equal(second.answer.memberId, 'app-uuid-1');
    assert.equal(second.answer.errorCode, ErrorCode.NONE);
  });

  it('v0-3: a new member is added at once, with a generated id', () => {
    const h = new CoordinatorHarness();
    const j = join(h, { group: G, clientId: 'old', version: 3 });
    assert.equal(j.response, undefined);
    h.advance(DELAY);
    assert.equal(j.answer.memberId, 'old-uuid-1');
    assert.equal(j.answer.generationId, 1);
  });

  it('forgets a MEMBER_ID_REQUIRED id that is not used within the session timeout', () => {
    const h = new CoordinatorHarness();
    const first = join(h, { group: G, sessionTimeoutMs: 6000 });
    h.advance(6000);
    assert.deepEqual(h.coordinator.group(G)?.pendingMemberIds, []);
    const late = join(h, { group: G, memberId: first.answer.memberId });
    assert.equal(late.answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a pending member id holds up the join phase of a rebalance until it rejoins or expires', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    const pending = join(h, { group: G, clientId: 'new' });
    assert.equal(pending.answer.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
    const rejoin = join(h, { group: G, memberId: g.members[0] }); // the leader rejoins: rebalance
    assert.equal(rejoin.response, undefined, 'waits for the pending member');
    h.advance(10_000); // the pending id's session timeout
    assert.equal(rejoin.answer.generationId, 2);
    assert.equal(rejoin.answer.members.length, 1);
  });
});

describe('coordinator: leader and generation', () => {
  it('the first joiner leads; only the leader gets the members and their metadata', () => {
    const h = new CoordinatorHarness();
    const a = joinNew(h, { group: G, clientId: 'a', topics: ['x'] });
    const b = joinNew(h, { group: G, clientId: 'b', topics: ['y'] });
    awaitJoins(h, [a, b]);
    assert.equal(a.answer.leader, a.answer.memberId);
    assert.equal(b.answer.leader, a.answer.memberId);
    assert.deepEqual(
      a.answer.members.map((m) => [m.memberId, m.metadata.equals(subscription([m.memberId.startsWith('a') ? 'x' : 'y']))]),
      [[a.answer.memberId, true], [b.answer.memberId, true]],
    );
    assert.deepEqual(b.answer.members, []);
    assert.equal(b.answer.generationId, a.answer.generationId);
  });

  it('bumps the generation on every completed join phase, including one that ends Empty', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    assert.equal(g.generationId, 1);
    const j1 = join(h, { group: G, memberId: g.members[0] });
    const j2 = join(h, { group: G, memberId: g.members[1] });
    assert.equal(j1.answer.generationId, 2);
    assert.equal(j2.answer.generationId, 2);
    leave(h, { group: G, members: [{ memberId: g.members[0] }, { memberId: g.members[1] }] });
    assert.equal(h.coordinator.group(G)?.state, 'Empty');
    assert.equal(h.coordinator.group(G)?.generationId, 3);
  });

  it('re-elects a leader when the leader leaves; the new generation names it', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 3);
    assert.equal(g.leader, g.members[0]);
    assert.equal(leave(h, { group: G, members: [{ memberId: g.leader }] }).answer.members![0].errorCode, ErrorCode.NONE);
    const rejoins = [g.members[1], g.members[2]].map((m) => join(h, { group: G, memberId: m }));
    for (const r of rejoins) assert.equal(r.answer.leader, g.members[1]);
    assert.equal(rejoins[0].answer.members.length, 2);
    assert.deepEqual(rejoins[1].answer.members, []);
  });

  it('the leader rejoining a Stable group forces a rebalance; an unchanged follower does not', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const follower = join(h, { group: G, memberId: g.members[1] });
    assert.equal(follower.answer.generationId, g.generationId, 'current generation, at once');
    assert.equal(h.coordinator.group(G)?.state, 'Stable');
    join(h, { group: G, memberId: g.leader });
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
  });

  it('a member rejoining with new metadata forces a rebalance', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    join(h, { group: G, memberId: g.members[1], topics: ['orders', 'payments'] });
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
  });

  it('during CompletingRebalance an unchanged rejoin gets the current generation again (leader: with members)', () => {
    const h = new CoordinatorHarness();
    const a = joinNew(h, { group: G, clientId: 'a' });
    awaitJoins(h, [a, joinNew(h, { group: G, clientId: 'b' })]);
    assert.equal(h.coordinator.group(G)?.state, 'CompletingRebalance');
    const again = join(h, { group: G, memberId: a.answer.memberId });
    assert.equal(again.answer.generationId, a.answer.generationId);
    assert.equal(again.answer.members.length, 2);
    assert.equal(h.coordinator.group(G)?.state, 'CompletingRebalance');
  });
});

describe('coordinator: repeated JoinGroup', () => {
  it('a JoinGroup superseded by the same member\'s next one is answered (REBALANCE_IN_PROGRESS), not held forever', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const first = join(h, { group: G, memberId: g.members[0] });
    const second = join(h, { group: G, memberId: g.members[0] });
    assert.equal(first.answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    assert.equal(second.response, undefined);
    join(h, { group: G, memberId: g.members[1] });
    assert.equal(second.answer.generationId, g.generationId + 1);
    assert.deepEqual(h.parked(), []);
  });
});

describe('coordinator: initial rebalance delay', () => {
  it('an empty group waits group.initial.rebalance.delay.ms before completing the first join phase', () => {
    const h = new CoordinatorHarness();
    const a = joinNew(h, { group: G });
    h.advance(DELAY - 1);
    assert.equal(a.response, undefined);
    h.advance(1);
    assert.equal(a.answer.errorCode, ErrorCode.NONE);
  });

  it('is extended while members keep joining, up to the rebalance timeout', () => {
    const h = new CoordinatorHarness();
    const a = joinNew(h, { group: G, clientId: 'a', rebalanceTimeoutMs: 10_000 });
    h.advance(2000);
    const b = joinNew(h, { group: G, clientId: 'b', rebalanceTimeoutMs: 10_000 });
    h.advance(1000); // first delay over, b arrived during it: extended by another delay
    assert.equal(a.response, undefined);
    h.advance(2999);
    assert.equal(a.response, undefined);
    h.advance(1);
    assert.equal(a.answer.members.length, 2);
    assert.equal(b.answer.generationId, 1);

    // With members arriving every second, the delay stops at the rebalance timeout (10 s).
    const h2 = new CoordinatorHarness();
    const first = joinNew(h2, { group: G, clientId: 'c0', rebalanceTimeoutMs: 10_000 });
    let elapsed = 0;
    for (let i = 1; first.response === undefined && i < 30; i++) {
      h2.advance(1000);
      elapsed += 1000;
      if (first.response === undefined) joinNew(h2, { group: G, clientId: `c${i}`, rebalanceTimeoutMs: 10_000 });
    }
    assert.ok(first.response !== undefined);
    assert.ok(elapsed <= 10_000 + DELAY, `completed after ${elapsed} ms`);
  });

  // After Kafka's GroupMetadataManagerTest (testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance,
  // testDelayRebalanceUptoRebalanceTimeout), with v3 joins (no MEMBER_ID_REQUIRED round).
  it('a member joining just before the delay ends resets it once (rebalance timeout 3 delays)', () => {
    const h = new CoordinatorHarness();
    const first = join(h, { group: G, version: 3, rebalanceTimeoutMs: 3 * DELAY });
    h.advance(DELAY - 1);
    const second = join(h, { group: G, version: 3, rebalanceTimeoutMs: 3 * DELAY });
    h.advance(DELAY / 2 + 2);
    assert.equal(first.response, undefined);
    h.advance(DELAY / 2 - 1);
    assert.equal(first.answer.errorCode, ErrorCode.NONE);
    assert.equal(second.answer.errorCode, ErrorCode.NONE);
  });

  it('never delays past the rebalance timeout (2 delays), even with a member arriving after the first', () => {
    const h = new CoordinatorHarness();
    const joins = [join(h, { group: G, version: 3, rebalanceTimeoutMs: 2 * DELAY }), join(h, { group: G, version: 3, rebalanceTimeoutMs: 2 * DELAY })];
    h.advance(DELAY + 1);
    joins.push(join(h, { group: G, version: 3, rebalanceTimeoutMs: 2 * DELAY }));
    h.advance(DELAY - 2);
    assert.ok(joins.every((j) => j.response === undefined));
    h.advance(1);
    assert.ok(joins.every((j) => j.answer.errorCode === ErrorCode.NONE));
    assert.equal(joins[0].answer.members.length, 3);
  });

  it('uses the configured delay', () => {
    const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ initialRebalanceDelayMs: 0 })));
    const a = joinNew(h, { group: G });
    h.advance(0);
    assert.equal(a.answer.errorCode, ErrorCode.NONE);
  });
});

describe('coordinator: group.max.size', () => {
  it('answers GROUP_MAX_SIZE_REACHED to a new member beyond the limit', () => {
    const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ maxGroupSize: 2 })));
    const g = formGroup(h, G, 2);
    // Checked before anything else: even the first join (no member id yet) is refused.
    const third = join(h, { group: G, clientId: 'third' });
    assert.equal(third.answer.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
    assert.equal(third.answer.memberId, '');
    // Existing members still rejoin.
    const rejoin = join(h, { group: G, memberId: g.members[1] });
    assert.equal(rejoin.answer.errorCode, ErrorCode.NONE);
  });
});

describe('coordinator: rebalance-timeout eviction', () => {
  it('members that do not rejoin within the rebalance timeout are removed', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 3, { rebalanceTimeoutMs: 20_000, sessionTimeoutMs: 60_000 });
    const rejoin = join(h, { group: G, memberId: g.members[0], rebalanceTimeoutMs: 20_000, sessionTimeoutMs: 60_000 });
    h.advance(19_999);
    assert.equal(rejoin.response, undefined);
    h.advance(1);
    assert.equal(rejoin.answer.generationId, g.generationId + 1);
    assert.deepEqual(rejoin.answer.members.map((m) => m.memberId), [g.members[0]]);
    const stale = sync(h, { group: G, generationId: g.generationId + 1, memberId: g.members[1] });
    assert.equal(stale.answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a leader that does not rejoin loses the leadership to one that did', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2, { sessionTimeoutMs: 60_000 });
    const follower = join(h, { group: G, memberId: g.members[1] }); // new metadata? no: forces nothing
    assert.equal(follower.answer.generationId, g.generationId);
    const changed = join(h, { group: G, memberId: g.members[1], topics: ['other'], sessionTimeoutMs: 60_000 });
    h.advance(30_000);
    assert.equal(changed.answer.leader, g.members[1]);
    assert.equal(changed.answer.members.length, 1);
  });
});
