/**
 * The coordinator goes back to what is durable when an append to `__consumer_offsets` fails:
 * the harness holds appends (the coordinator keeps running on the pending results' state, as
 * it does while the runtime waits for an fsync), then fails the oldest one as the runtime
 * does: that result and every later one get the error instead of their replies, and the
 * coordinator reverts them, newest first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { CoordinatorState } from '../../src/coordinator/coordinator-state.js';
import { TimelineValue } from '../../src/coordinator/timeline-map.js';
import { heartbeatKey, isSession, joinKey, OFFSETS_EXPIRATION_KEY, TIMER_RETRY_BACKOFF_MS } from '../../src/coordinator/operation.js';
import { CoordinatorHarness, assignment } from '../support/coordinator/harness.js';
import { awaitJoins, commit, fetchedOffsets, fetchOffsets, formGroup, heartbeat, join, joinNew, leave, sync } from '../support/coordinator/requests.js';
import { seededRandom, type Random } from '../support/random-message.js';

const G = 'g';
const DAY = 24 * 60 * 60 * 1000;
const TIMEOUT = { timeout: 10_000 };

function describeGroup(h: CoordinatorHarness, groupId: string) {
  return h.send('DescribeGroups', 5, { groups: [groupId], includeAuthorizedOperations: false }).answer.groups[0];
}

function listGroups(h: CoordinatorHarness) {
  return h.send('ListGroups', 4, { statesFilter: [], typesFilter: [] }).answer.groups;
}

/** The whole OffsetFetch answer for every offset of the group, in the order it lists them. */
function allOffsets(h: CoordinatorHarness, groupId: string) {
  return fetchOffsets(h, { group: groupId, topics: null }).answer.groups![0].topics;
}

describe('coordinator revert: offsets', TIMEOUT, () => {
  it('after a failed commit OffsetFetch shows the offset before it, or none; the group a commit created is gone', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: G, offsets: { t: { 0: 5 } } });
    const before = allOffsets(h, G);
    const groupsBefore = listGroups(h);

    h.holdAppends();
    const failed = commit(h, { group: G, offsets: { t: { 0: 7, 1: 3 } } });
    const fresh = commit(h, { group: 'fresh', offsets: { t: { 0: 1 } } });
    h.failAppends();

    assert.equal(failed.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(fresh.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(allOffsets(h, G), before);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: { t: [0, 1] } }).answer), { 't/0': 5, 't/1': -1 });
    assert.deepEqual(listGroups(h), groupsBefore, 'the simple group the failed commit created is not there');
    assert.equal(h.coordinator.group('fresh'), undefined);

    // Nothing sticks: the client's retry is a commit like any other.
    assert.equal(commit(h, { group: G, offsets: { t: { 0: 7 } } }).answer.topics[0].partitions[0].errorCode, ErrorCode.NONE);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: { t: [0] } }).answer), { 't/0': 7 });
  });

  it('two pipelined member commits whose first append fails are both reverted; the session they extended stays extended', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    const member = g.members[0];
    const memberCommit = (offsets: Record<number, number>) =>
      commit(h, { group: G, generationId: g.generationId, memberId: member, offsets: { orders: offsets } });
    memberCommit({ 0: 5 });
    const before = allOffsets(h, G);
    const sessionDue = h.timers.dueAt(heartbeatKey(G, member));
    h.advance(1000);

    h.holdAppends();
    const first = memberCommit({ 0: 6 });
    const second = memberCommit({ 0: 7, 1: 1 });
    const extended = h.nowMs + 10_000;
    assert.ok(sessionDue !== undefined && extended > sessionDue);
    assert.equal(h.timers.dueAt(heartbeatKey(G, member)), extended, 'a commit keeps the session alive');
    h.failAppends();

    assert.equal(first.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(second.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(allOffsets(h, G), before);
    // The commits were signs of life, whatever became of their records (as in Kafka, whose
    // timers are outside the reverted state).
    assert.equal(h.timers.dueAt(heartbeatKey(G, member)), extended);
    assert.equal(stateOf(h).timers.entry(heartbeatKey(G, member))?.atMs, extended, 'the table agrees with the runtime');
  });

  it('after a failed OffsetDelete the offsets are all there, in their order', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: G, offsets: { t: { 0: 1, 1: 2, 2: 3 }, u: { 0: 4 } } });
    const before = allOffsets(h, G);

    h.holdAppends();
    const deleted = h.send('OffsetDelete', 0, { groupId: G, topics: [{ name: 't', partitions: [{ partitionIndex: 1 }] }, { name: 'u', partitions: [{ partitionIndex: 0 }] }] });
    h.failAppends();

    assert.equal(deleted.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(allOffsets(h, G), before);
  });

  it('after failed expiration tombstones the offsets and the group are still there; expiration retries after its interval', () => {
    const h = new CoordinatorHarness().restart(); // loaded: expiration every 10 minutes
    commit(h, { group: 's', offsets: { t: { 0: 1, 1: 2 } } });
    commit(h, { group: 'kept', offsets: { t: { 0: 1 } } });
    h.advance(7 * DAY - 1); // checks so far found nothing old enough
    const before = allOffsets(h, 's');
    const groupsBefore = listGroups(h);

    h.holdAppends();
    h.advance(1); // the check at 7 days: every offset and both groups expire
    assert.equal(h.coordinator.group('s'), undefined, 'the coordinator ran ahead of the log');
    h.failAppends();

    assert.deepEqual(allOffsets(h, 's'), before);
    assert.deepEqual(listGroups(h), groupsBefore);
    const interval = h.coordinator.config.offsetsRetentionCheckIntervalMs;
    assert.equal(h.timers.dueAt(OFFSETS_EXPIRATION_KEY), h.nowMs + interval);
    h.advance(interval);
    assert.deepEqual(listGroups(h), []);
  });
});

describe('coordinator revert: group metadata', TIMEOUT, () => {
  it("after a failed SyncGroup-assignment append the group is as before the sync, rebalancing (Kafka's classicGroupSyncToLeader); the members rejoin into a new generation", () => {
    const h = new CoordinatorHarness();
    const [a, b] = awaitJoins(h, [joinNew(h, { group: G, clientId: 'a' }), joinNew(h, { group: G, clientId: 'b' })]);
    const leader = a.memberId;
    const follower = b.memberId;
    const generationId = a.generationId;
    const before = describeGroup(h, G);
    assert.equal(before.groupState, 'CompletingRebalance');
    const logBefore = h.log.length;

    h.holdAppends();
    const followerSync = sync(h, { group: G, generationId, memberId: follower });
    const leaderSync = sync(h, {
      group: G,
      generationId,
      memberId: leader,
      assignments: { [leader]: assignment({ orders: [0] }), [follower]: assignment({ orders: [1] }) },
    });
    assert.equal(h.coordinator.group(G)?.state, 'Stable', 'the coordinator ran ahead of the log');
    h.failAppends();

    assert.equal(leaderSync.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(followerSync.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(h.log.length, logBefore);
    assert.deepEqual(h.parked(), [], 'no request is left waiting');
    // The members, the assignments (none yet), the protocol: as before the sync. Kafka then
    // resets the assignment and prepares a rebalance, so the group is rebalancing.
    const after = describeGroup(h, G);
    assert.deepEqual({ ...after, groupState: before.groupState }, before);
    assert.equal(after.groupState, 'PreparingRebalance');
    assert.equal(h.coordinator.group(G)?.generationId, generationId);
    assert.ok(h.timers.has(joinKey(G)), 'the rebalance has its deadline');

    // NOT_COORDINATOR: the members find the coordinator again and rejoin.
    const [la, fa] = awaitJoins(h, [join(h, { group: G, memberId: leader }), join(h, { group: G, memberId: follower })]);
    assert.equal(la.generationId, generationId + 1);
    assert.equal(la.leader, leader);
    const f = sync(h, { group: G, generationId: fa.generationId, memberId: follower });
    sync(h, { group: G, generationId: la.generationId, memberId: leader, assignments: { [leader]: assignment({ orders: [0] }), [follower]: assignment({ orders: [1] }) } });
    assert.ok(f.answer.assignment.equals(assignment({ orders: [1] })));
    assert.equal(describeGroup(h, G).groupState, 'Stable');
    assert.equal(h.log.length, logBefore + 1, 'the new generation is stored');
    assert.equal(h.restart().coordinator.group(G)?.generationId, generationId + 1);
  });

  it('after a failed DeleteGroups append the group and its offsets are still there, and it can be deleted later', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: 'idle', offsets: { t: { 0: 1, 1: 2 }, u: { 0: 3 } } });
    commit(h, { group: 'other', offsets: { t: { 0: 9 } } });
    const described = describeGroup(h, 'idle');
    const offsets = allOffsets(h, 'idle');
    const groups = listGroups(h);

    h.holdAppends();
    const deleted = h.send('DeleteGroups', 2, { groupsNames: ['idle'] });
    h.failAppends();

    assert.equal(deleted.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(describeGroup(h, 'idle'), described);
    assert.deepEqual(allOffsets(h, 'idle'), offsets);
    assert.deepEqual(listGroups(h), groups, 'in the same order');
    const again = h.send('DeleteGroups', 2, { groupsNames: ['idle'] }).answer.results;
    assert.deepEqual(again.map((r) => r.errorCode), [ErrorCode.NONE]);
    assert.equal(describeGroup(h, 'idle').groupState, 'Dead');
  });

  it('after the failed append of a group becoming Empty, the member that left is back with its session timer', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    const member = g.members[0];
    const before = describeGroup(h, G);

    h.holdAppends();
    const left = leave(h, { group: G, members: [{ memberId: member }] });
    assert.equal(h.coordinator.group(G)?.state, 'Empty');
    h.failAppends();

    assert.equal(left.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(describeGroup(h, G), before);
    assert.ok(h.timers.has(heartbeatKey(G, member)), 'its session can still expire');
    assert.equal(heartbeat(h, { group: G, generationId: g.generationId, memberId: member }).answer.errorCode, ErrorCode.NONE);
    // The member retries its LeaveGroup.
    assert.equal(leave(h, { group: G, members: [{ memberId: member }] }).answer.members![0].errorCode, ErrorCode.NONE);
    assert.equal(describeGroup(h, G).groupState, 'Empty');
  });

  it("after the failed append of a static member's new id, the old id is the member again (Kafka reverts the replacement)", () => {
    const h = new CoordinatorHarness();
    const j1 = join(h, { group: G, instanceId: 'i1', clientId: 'c1', sessionTimeoutMs: 30_000 });
    const j2 = join(h, { group: G, instanceId: 'i2', clientId: 'c2', sessionTimeoutMs: 30_000 });
    const [r1, r2] = awaitJoins(h, [j1, j2]);
    const generationId = r1.generationId;
    sync(h, { group: G, generationId, memberId: r1.memberId, instanceId: 'i1', assignments: { [r1.memberId]: assignment({ orders: [0] }), [r2.memberId]: assignment({ orders: [1] }) } });
    sync(h, { group: G, generationId, memberId: r2.memberId, instanceId: 'i2' });
    const before = describeGroup(h, G);

    h.holdAppends();
    const restarted = join(h, { group: G, instanceId: 'i2', clientId: 'c2', sessionTimeoutMs: 30_000 });
    h.failAppends();

    assert.equal(restarted.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(describeGroup(h, G), before);
    const old = { group: G, generationId, memberId: r2.memberId, instanceId: 'i2' };
    assert.equal(heartbeat(h, old).answer.errorCode, ErrorCode.NONE, 'the old id is not fenced');
    assert.deepEqual(h.timers.keys().filter((k) => k.startsWith('heartbeat:')).sort(), [heartbeatKey(G, r1.memberId), heartbeatKey(G, r2.memberId)].sort());
    // The restarted instance tries again and takes its place.
    const again = join(h, { group: G, instanceId: 'i2', clientId: 'c2', sessionTimeoutMs: 30_000 }).answer;
    assert.equal(again.errorCode, ErrorCode.NONE);
    assert.equal(again.generationId, generationId);
    assert.ok(sync(h, { group: G, generationId, memberId: again.memberId, instanceId: 'i2' }).answer.assignment.equals(assignment({ orders: [1] })));
  });

  it('after the failed append of the group a JoinGroup created, the group is gone with its pending member', () => {
    const h = new CoordinatorHarness();
    h.holdAppends();
    const first = join(h, { group: G });
    h.failAppends();

    assert.equal(first.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(describeGroup(h, G).groupState, 'Dead');
    assert.deepEqual(listGroups(h), []);
    assert.deepEqual(h.timers.keys().filter((k) => k.startsWith('heartbeat:')), [], 'no session timer for a member id nobody knows');
    const g = formGroup(h, G, 1);
    assert.equal(g.generationId, 1);
  });
});

describe('coordinator revert: results pipelined behind a failed append', TIMEOUT, () => {
  it('a JoinGroup parked behind a failed commit gets the error, and the rebalance it started is undone', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const before = describeGroup(h, G);

    h.holdAppends();
    const c = commit(h, { group: G, generationId: g.generationId, memberId: g.members[1], offsets: { orders: { 1: 10 } } });
    const rejoin = join(h, { group: G, memberId: g.leader }); // parks: the leader's rejoin starts a rebalance
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
    h.failAppends();

    assert.equal(c.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(rejoin.answer.errorCode, ErrorCode.NOT_COORDINATOR, 'answered by the revert');
    assert.equal(rejoin.answer.memberId, g.leader);
    assert.deepEqual(h.parked(), []);
    assert.deepEqual(describeGroup(h, G), before);
    assert.ok(!h.timers.has(joinKey(G)), 'no deadline for a rebalance that is not happening');
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: { orders: [1] } }).answer), { 'orders/1': -1 });
  });

  it('a session expiry behind a failed append is undone and fires again after the retry backoff', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const [alive, silent] = g.members;
    h.advance(9_000);
    heartbeat(h, { group: G, generationId: g.generationId, memberId: alive });

    h.holdAppends();
    commit(h, { group: 'other', offsets: { t: { 0: 1 } } });
    h.advance(1_000); // the silent member's session expires
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
    h.failAppends();

    assert.equal(h.coordinator.group(G)?.state, 'Stable');
    assert.deepEqual(h.coordinator.group(G)?.members.map((m) => m.memberId), [alive, silent]);
    assert.equal(h.timers.dueAt(heartbeatKey(G, silent)), h.nowMs + TIMER_RETRY_BACKOFF_MS);
    h.advance(TIMER_RETRY_BACKOFF_MS);
    assert.deepEqual(h.coordinator.group(G)?.members.map((m) => m.memberId), [alive]);
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
  });
});

/** The coordinator's whole state (white box): groups with every field, offsets, timer table. */
function stateOf(h: CoordinatorHarness): CoordinatorState {
  return (h.coordinator as unknown as { s: CoordinatorState }).s;
}

/** A comparable picture of a value: Maps and Sets in their iteration order, every own field. */
function picture(value: unknown): unknown {
  if (value instanceof TimelineValue) return picture(value.get());
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [picture(k), picture(v)]) };
  if (value instanceof Set) return { set: [...value].map(picture) };
  if (Buffer.isBuffer(value)) return value.toString('hex');
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return value.map(picture);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, picture(v)]));
  return value;
}

function pictureOfState(h: CoordinatorHarness): unknown {
  const s = stateOf(h);
  const timers = (s.timers as unknown as { entries: Map<string, unknown> }).entries;
  const offsets = (s.offsets as unknown as { byGroup: Map<string, unknown> }).byGroup;
  const byKey = ([a]: [unknown, unknown], [b]: [unknown, unknown]) => (String(a) < String(b) ? -1 : 1);
  // Orders nothing depends on (looked up or counted, never listed) are compared sorted: the
  // offsets' groups, the timers, a group's static members, protocol counts and pending id
  // sets. A group's members and offsets keep theirs (DescribeGroups, OffsetFetch, leader
  // re-election).
  const group = (g: object) =>
    Object.fromEntries(
      Object.entries(g)
        .filter(([field]) => field !== 'journal')
        .map(([field, v]) => [field, v instanceof Set ? [...v].sort() : v instanceof Map && (field === 'staticMembers' || field === 'supportedProtocols') ? [...v].sort(byKey) : v]),
    );
  // A session deadline is compared apart (sessionDeadlines): a revert never moves it back.
  const timer = ([key, entry]: [string, unknown]) => {
    const { action, atMs } = entry as { action: { kind: string }; atMs: number };
    return [key, isSession(action as never) ? { action } : { action, atMs }];
  };
  return picture({
    groups: [...s.groups].map(([id, g]) => [id, group(g)]),
    offsets: [...offsets].sort(byKey),
    timers: [...timers].sort(byKey).map(timer),
  });
}

/** Each session deadline of the timer table, by key. */
function sessionDeadlines(h: CoordinatorHarness): Map<string, number> {
  const timers = (stateOf(h).timers as unknown as { entries: Map<string, { action: never; atMs: number }> }).entries;
  return new Map([...timers].filter(([, e]) => isSession(e.action)).map(([key, e]) => [key, e.atMs]));
}

const GROUPS = ['g', 'h'];

/**
 * One random step on groups g and h, chosen from what the state holds: a request, a clock
 * move, or every member rejoining or syncing (which drives groups to CompletingRebalance and
 * Stable, where the leader's SyncGroup stores a generation).
 */
const REJOIN_ALL = 11;
const SYNC_ALL = 12;

function randomStep(h: CoordinatorHarness, rnd: Random, step?: number, groupId?: string): void {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const group = groupId ?? pick(GROUPS);
  const snap = h.coordinator.group(group);
  const members = snap?.members ?? [];
  const known = [...members.map((m) => m.memberId), ...(snap?.pendingMemberIds ?? [])];
  const generationId = snap?.generationId ?? -1;
  const anyMember = (): string => (known.length > 0 ? pick(known) : 'nobody');
  const instanceOf = (memberId: string) => members.find((m) => m.memberId === memberId)?.groupInstanceId ?? null;
  const topics = rnd() < 0.8 ? ['orders'] : ['orders', 'audit'];
  const syncAs = (memberId: string) => {
    const assignments = memberId === snap?.leaderId ? Object.fromEntries(members.map((m, i) => [m.memberId, assignment({ orders: [i] })])) : {};
    sync(h, { group, generationId, memberId, assignments, instanceId: instanceOf(memberId) });
  };
  switch (step ?? Math.floor(rnd() * 15)) {
    case 0:
      join(h, { group, clientId: pick(['a', 'b', 'c']), version: pick([3, 9]), topics });
      break;
    case 1:
      join(h, { group, memberId: anyMember(), topics });
      break;
    case 2:
      join(h, { group, instanceId: pick(['i1', 'i2']), clientId: 's', topics, sessionTimeoutMs: 20_000 });
      break;
    case 3:
      syncAs(anyMember());
      break;
    case 4:
      heartbeat(h, { group, generationId, memberId: anyMember() });
      break;
    case 5:
      leave(h, { group, members: [{ memberId: anyMember() }] });
      break;
    case 6:
      commit(h, { group, generationId, memberId: anyMember(), offsets: { orders: { [Math.floor(rnd() * 3)]: Math.floor(rnd() * 100) } } });
      break;
    case 7:
      commit(h, { group, offsets: { [pick(['orders', 'audit'])]: { [Math.floor(rnd() * 3)]: Math.floor(rnd() * 100) } } });
      break;
    case 8:
      h.send('OffsetDelete', 0, { groupId: group, topics: [{ name: pick(['orders', 'audit']), partitions: [{ partitionIndex: Math.floor(rnd() * 3) }] }] });
      break;
    case 9:
      h.send('DeleteGroups', 2, { groupsNames: [group] });
      break;
    case 10:
      h.apply(h.coordinator.expireOffsets(h.nowMs));
      break;
    case REJOIN_ALL:
      for (const memberId of known) join(h, { group, memberId, instanceId: instanceOf(memberId), topics: ['orders'] });
      break;
    case SYNC_ALL:
      // Followers first, so the leader's SyncGroup answers them.
      for (const m of members) if (m.memberId !== snap?.leaderId) syncAs(m.memberId);
      if (snap?.leaderId) syncAs(snap.leaderId);
      break;
    default:
      h.advance(pick([100, 1_000, 3_000, 3_000, 3_000, 10_000, 30_000, 8 * DAY]));
  }
}

/** The requests the state holds parked, over every group. */
function parkedInState(h: CoordinatorHarness): number[] {
  const ids: number[] = [];
  for (const g of stateOf(h).groups.values()) {
    for (const m of g.members.values()) {
      if (m.awaitingJoin !== null) ids.push(m.awaitingJoin.requestId);
      if (m.awaitingSync !== null) ids.push(m.awaitingSync.requestId);
    }
  }
  return ids.sort((a, b) => a - b);
}

/**
 * What the records of a classic group and of the offsets carry, as the state holds it: every
 * offset (in OffsetFetch's order), and each group, in ListGroups' order, with its
 * generation, protocol, leader and members with their subscription and assignment, unless it
 * is in `rebalancing` (its next generation is not written yet).
 */
function persistedPicture(h: CoordinatorHarness, rebalancing: ReadonlySet<string>): unknown {
  const s = stateOf(h);
  const offsets = (s.offsets as unknown as { byGroup: Map<string, unknown> }).byGroup;
  const byKey = ([a]: [unknown, unknown], [b]: [unknown, unknown]) => (String(a) < String(b) ? -1 : 1);
  const groups = [...s.groups.values()].map((g) => {
    if (rebalancing.has(g.groupId)) return { groupId: g.groupId };
    const protocol = g.protocolName;
    return {
      groupId: g.groupId, state: g.state, generationId: g.generationId, protocolType: g.protocolType, protocolName: protocol, leaderId: g.leaderId,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs, sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: protocol === null ? null : m.metadata(protocol), assignment: m.assignment,
      })),
    };
  });
  return picture({ groups, offsets: [...offsets].sort(byKey) });
}

describe('coordinator revert: random operations', { timeout: 60_000 }, () => {
  it('undoing the results after a failed append restores exactly the state before them (every field, order and timer)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = seededRandom(seed);
      const h = new CoordinatorHarness();
      for (let i = Math.floor(rnd() * 40); i > 0; i--) randomStep(h, rnd);
      // Often end inside a rebalance of g (new members joining, waiting for the leader's
      // assignment) or just after it, where a failure undoes the most.
      const ending = rnd();
      if (ending < 0.6) {
        for (let i = 1 + Math.floor(rnd() * 3); i > 0; i--) join(h, { group: 'g', clientId: 'n', version: 3 });
        if (ending < 0.4) for (let i = 0; i < 5 && h.coordinator.group('g')?.state === 'PreparingRebalance'; i++) h.advance(3_000);
        if (ending < 0.2) randomStep(h, rnd, SYNC_ALL, 'g');
      }
      const before = pictureOfState(h);
      const deadlinesBefore = sessionDeadlines(h);
      const journal = stateOf(h).journal;
      const firstToken = (journal as unknown as { lastToken: number }).lastToken + 1;
      h.holdAppends();
      commit(h, { group: 'other', offsets: { t: { 0: seed } } }); // the append that will fail
      for (let i = 1 + Math.floor(rnd() * 15); i > 0; i--) randomStep(h, rnd);
      const reverted = journal.takeFrom(firstToken);
      assert.ok(reverted !== undefined, `seed ${seed}: the failing commit is pending`);
      for (const changes of reverted) changes.rollback();
      assert.deepEqual(pictureOfState(h), before, `seed ${seed}`);
      // The requests that moved a session deadline were signs of life, whatever became of
      // their records: the undo keeps it where they moved it, never before where it was.
      for (const [key, atMs] of sessionDeadlines(h)) {
        const was = deadlinesBefore.get(key);
        assert.ok(was !== undefined && atMs >= was, `seed ${seed}: ${key} due at ${atMs}, before at ${was}`);
      }
    }
  });

  it('after failed appends no request is answered twice or left unanswered, and the coordinator keeps working', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = seededRandom(seed);
      const h = new CoordinatorHarness(); // asserts that no request is answered twice
      for (let round = 0; round < 3; round++) {
        for (let i = Math.floor(rnd() * 20); i > 0; i--) randomStep(h, rnd);
        h.holdAppends();
        commit(h, { group: 'other', offsets: { t: { 0: seed } } }); // the append that will fail
        for (let i = Math.floor(rnd() * 10); i > 0; i--) randomStep(h, rnd);
        h.failAppends();
        assert.deepEqual(h.parked(), parkedInState(h), `seed ${seed}: the harness waits exactly for the requests the coordinator holds`);
      }
      // Every member gone eventually: nothing is held forever.
      h.advance(10 * 60_000);
      assert.deepEqual(h.parked(), [], `seed ${seed}`);
    }
  });
  it('the records written are the state: the log replayed gives every offset and each group at rest what memory holds', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = seededRandom(seed);
      const h = new CoordinatorHarness();
      for (let round = 0; round < 4; round++) {
        const failing = rnd() < 0.5;
        if (failing) {
          h.holdAppends();
          commit(h, { group: 'other', offsets: { t: { 0: seed } } }); // the append that will fail
        }
        for (let i = Math.floor(rnd() * 15); i > 0; i--) randomStep(h, rnd);
        if (failing) h.failAppends();
        // Groups rebalancing are compared once at rest (their next generation is not written yet).
        if (rnd() < 0.5) randomStep(h, rnd, SYNC_ALL, 'g');
        const rebalancing = new Set([...stateOf(h).groups.values()].filter((g) => !g.is('Empty') && !g.is('Stable')).map((g) => g.groupId));
        assert.deepEqual(persistedPicture(h.restart(), rebalancing), persistedPicture(h, rebalancing), `seed ${seed}, round ${round}`);
      }
    }
  });
});
