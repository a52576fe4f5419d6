/**
 * Classic-protocol members inside a consumer group (Kafka's classicGroupJoinToConsumerGroup,
 * classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup,
 * classicGroupLeaveToConsumerGroup), each case after the GroupMetadataManagerTest case it
 * mirrors: the consumer group assigns, the member's JoinGroup is answered at once with its
 * epoch as generation, its SyncGroup returns its partitions, its heartbeats tell it when to
 * rejoin.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import type { GroupCoordinatorConfig } from '../../src/coordinator/types.js';
import { decodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol.js';
import type { JoinGroupResponseData } from '../../src/protocol/messages/join-group.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgJoin, ownedBy } from '../support/coordinator/consumer.js';
import { commit, heartbeat, join, leave, sync } from '../support/coordinator/requests.js';

function harness(config: Partial<GroupCoordinatorConfig> = {}): CoordinatorHarness {
  const h = new CoordinatorHarness(new GroupCoordinator(testConfig(config)));
  h.setTopics({ orders: 4 });
  return h;
}

/** Subscription metadata of a cooperative classic member owning `owned` partitions of orders. */
function owning(owned: number[], version = 1): Buffer {
  return encodeSubscription({ topics: ['orders'], userData: null, ownedPartitions: owned.length === 0 ? [] : [{ topic: 'orders', partitions: owned }], generationId: -1, rackId: null }, version);
}

/** A classic member joining with the KIP-394 round trip; its JoinGroup answer. */
function classicJoin(h: CoordinatorHarness, o: { instanceId?: string; owned?: number[]; protocols?: string[]; sessionTimeoutMs?: number } = {}): JoinGroupResponseData {
  const protocols = (o.protocols ?? ['range']).map((name) => ({ name, metadata: owning(o.owned ?? []) }));
  const base = { group: 'g', protocols, instanceId: o.instanceId ?? null, sessionTimeoutMs: o.sessionTimeoutMs };
  const first = join(h, base).answer;
  if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) return first;
  return join(h, { ...base, memberId: first.memberId }).answer;
}

/** The partitions of orders a SyncGroup answer assigns. */
function synced(assignment: Buffer): number[] {
  return decodeAssignment(assignment).assignment.assignedPartitions.flatMap((t) => t.partitions).sort();
}

/** Consumer member C (all of orders), then classic member K joins. */
function mixedGroup(h: CoordinatorHarness): { k: JoinGroupResponseData } {
  cgJoin(h, { memberId: 'C', topics: ['orders'] });
  return { k: classicJoin(h) };
}

describe('coordinator: classic members in a consumer group (JoinGroup, SyncGroup)', { timeout: 10_000 }, () => {
  it('a new dynamic member gets an id, joins at once at its epoch, and syncs its partitions once released (testJoiningConsumerGroupWithNewDynamicMember)', () => {
    const h = harness();
    cgJoin(h, { memberId: 'C', topics: ['orders'] });
    const first = join(h, { group: 'g', topics: ['orders'] }).answer;
    assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
    assert.match(first.memberId, /^uuid-\d+$/, 'a plain UUID, as for the consumer protocol');
    const k = join(h, { group: 'g', memberId: first.memberId, topics: ['orders'] }).answer;
    assert.deepEqual([k.errorCode, k.generationId, k.protocolType, k.protocolName, k.leader, k.members], [ErrorCode.NONE, 3, 'consumer', 'range', '', []]);
    const d = cgDescribe(h);
    assert.deepEqual([d.groupEpoch, d.assignmentEpoch], [3, 3]);
    // C gives up two partitions first: K waits for them (its heartbeat says so once they are free).
    let s = sync(h, { group: 'g', generationId: 3, memberId: k.memberId }).answer;
    assert.deepEqual([s.errorCode, s.protocolType, s.protocolName, synced(s.assignment)], [ErrorCode.NONE, 'consumer', 'range', []]);
    assert.equal(heartbeat(h, { group: 'g', generationId: 3, memberId: k.memberId }).answer.errorCode, ErrorCode.NONE, 'still waiting on C');
    cgBeat(h, 'C', 2, { orders: [0, 1, 2, 3] });
    cgBeat(h, 'C', 2, ownedBy(h, 'C'));
    assert.equal(heartbeat(h, { group: 'g', generationId: 3, memberId: k.memberId }).answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS, 'free now: rejoin to take them');
    const again = join(h, { group: 'g', memberId: k.memberId, topics: ['orders'] }).answer;
    assert.equal(again.generationId, 3);
    s = sync(h, { group: 'g', generationId: 3, memberId: k.memberId }).answer;
    assert.equal(synced(s.assignment).length, 2);
    assert.equal(cgDescribe(h).groupState, 'Stable');
  });

  it('refuses a JoinGroup when the group is full or the protocols do not match (testJoiningConsumerGroupThrowsExceptionIfGroupOverMaxSize, ...IfProtocolIsNotSupported)', () => {
    const full = harness({ consumerGroupMaxSize: 1 });
    cgJoin(full, { memberId: 'C', topics: ['orders'] });
    assert.equal(join(full, { group: 'g', topics: ['orders'] }).answer.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
    const h = harness();
    mixedGroup(h);
    assert.equal(classicJoin(h, { protocols: ['roundrobin'] }).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'no protocol in common with K');
    assert.equal(join(h, { group: 'g', protocolType: 'connect', topics: ['orders'] }).answer.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(classicJoin(h, { protocols: ['roundrobin', 'range'] }).errorCode, ErrorCode.NONE);
  });

  it('static members: a new instance joins, a known one is replaced under a new id, unknown or fenced ids are refused (testJoiningConsumerGroupWithNewStaticMember, ...ReplacingExistingStaticMember, testStaticMemberJoiningConsumerGroupWithUnknownInstanceId, ...WithUnmatchedMemberId)', () => {
    const h = harness();
    cgJoin(h, { memberId: 'C', topics: ['orders'] });
    const s1 = classicJoin(h, { instanceId: 'i1' });
    assert.equal(s1.errorCode, ErrorCode.NONE, 'a static member needs no second join');
    const target = assignments(h)[s1.memberId]!.target;
    const s2 = classicJoin(h, { instanceId: 'i1' });
    assert.notEqual(s2.memberId, s1.memberId);
    assert.deepEqual(Object.keys(assignments(h)).sort(), ['C', s2.memberId].sort());
    assert.deepEqual(assignments(h)[s2.memberId]!.target, target);
    assert.equal(join(h, { group: 'g', memberId: 'x', instanceId: 'unknown', topics: ['orders'] }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(join(h, { group: 'g', memberId: s1.memberId, instanceId: 'i1', topics: ['orders'] }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
  });

  it('reconciles eager members (owning nothing) and cooperative ones (owning partitions) through JoinGroup (testReconciliationInJoiningConsumerGroupWithEagerProtocol, ...WithCooperativeProtocol)', () => {
    for (const cooperative of [false, true]) {
      const h = harness();
      const { k } = mixedGroup(h);
      cgBeat(h, 'C', 2, { orders: [0, 1, 2, 3] });
      cgBeat(h, 'C', 2, ownedBy(h, 'C'));
      const epoch = join(h, { group: 'g', memberId: k.memberId, topics: ['orders'] }).answer.generationId;
      const mine = synced(sync(h, { group: 'g', generationId: epoch, memberId: k.memberId }).answer.assignment);
      assert.equal(mine.length, 2);
      // D joins: K must give one partition up.
      cgJoin(h, { memberId: 'D', topics: ['orders'] });
      assert.equal(heartbeat(h, { group: 'g', generationId: epoch, memberId: k.memberId }).answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
      const rejoin = (owned: number[]) => join(h, { group: 'g', memberId: k.memberId, protocols: [{ name: 'range', metadata: owning(owned) }] }).answer;
      if (!cooperative) {
        // An eager member revoked everything before rejoining: straight to the new epoch.
        const r = rejoin([]);
        assert.equal(r.generationId, epoch + 1);
        assert.equal(synced(sync(h, { group: 'g', generationId: r.generationId, memberId: k.memberId }).answer.assignment).length, 1);
        continue;
      }
      // A cooperative member still owns both: it keeps its epoch and revokes first.
      const r1 = rejoin(mine);
      assert.equal(r1.generationId, epoch);
      const kept = synced(sync(h, { group: 'g', generationId: epoch, memberId: k.memberId }).answer.assignment);
      assert.equal(kept.length, 1);
      assert.equal(heartbeat(h, { group: 'g', generationId: epoch, memberId: k.memberId }).answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS, 'revoke, then rejoin');
      const r2 = rejoin(kept);
      assert.equal(r2.generationId, epoch + 1);
      assert.deepEqual(synced(sync(h, { group: 'g', generationId: r2.generationId, memberId: k.memberId }).answer.assignment), kept);
    }
  });

  it('SyncGroup errors: unknown member, fenced instance, inconsistent protocol, illegal generation, rebalance in progress (testClassicGroupSyncToConsumerGroupWith*)', () => {
    const h = harness();
    const { k } = mixedGroup(h);
    const code = (o: Partial<Parameters<typeof sync>[1]>): number => sync(h, { group: 'g', generationId: k.generationId, memberId: k.memberId, ...o }).answer.errorCode;
    assert.equal(code({ memberId: 'nobody' }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(code({ memberId: 'C', generationId: 2 }), ErrorCode.UNKNOWN_MEMBER_ID, 'C uses the consumer protocol');
    assert.equal(code({ protocolName: 'roundrobin' }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(code({ protocolType: 'connect' }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(code({ generationId: k.generationId + 1 }), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(code({}), ErrorCode.NONE);
    // A newer target (C's subscription changed) makes K rejoin first.
    h.setTopics({ orders: 4, audit: 2 });
    cgJoin(h, { memberId: 'C', topics: ['orders', 'audit'] });
    assert.equal(code({}), ErrorCode.REBALANCE_IN_PROGRESS);
    assert.ok(h.timers.has(`consumer-join:g:${k.memberId}`), 'it must rejoin within its rebalance timeout');
  });
});

describe('coordinator: classic members in a consumer group (Heartbeat, LeaveGroup, timeouts, offsets)', { timeout: 10_000 }, () => {
  it('a heartbeat keeps the member\'s classic session; errors as Kafka (testClassicGroupHeartbeatToConsumerGroupMaintainsSession, ...WithUnknownMember, ...WithFencedInstanceId, ...WithIllegalGenerationId, ...WithMemberNotUsingClassicProtocol)', () => {
    const h = harness();
    const { k } = mixedGroup(h);
    h.advance(5000);
    assert.equal(heartbeat(h, { group: 'g', generationId: k.generationId, memberId: k.memberId }).answer.errorCode, ErrorCode.NONE);
    assert.equal(h.timers.dueAt(`consumer-session:g:${k.memberId}`), h.nowMs + 10_000, 'its JoinGroup\'s session timeout');
    assert.equal(heartbeat(h, { group: 'g', generationId: k.generationId, memberId: 'nobody' }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(heartbeat(h, { group: 'g', generationId: k.generationId + 1, memberId: k.memberId }).answer.errorCode, ErrorCode.ILLEGAL_GENERATION);
    assert.equal(heartbeat(h, { group: 'g', generationId: 2, memberId: 'C' }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    const s = classicJoin(h, { instanceId: 'i1' });
    assert.equal(heartbeat(h, { group: 'g', generationId: s.generationId, memberId: 'other', instanceId: 'i1' }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
  });

  it('a classic member is fenced when its session, join or sync deadline passes (testConsumerGroupMemberUsingClassicProtocolFencedWhenSessionTimeout, ...WhenJoinTimeout)', () => {
    const h = harness();
    const { k } = mixedGroup(h);
    assert.ok(h.timers.has(`consumer-sync:g:${k.memberId}`), 'after its JoinGroup, a SyncGroup is due');
    assert.equal(h.timers.dueAt(`consumer-sync:g:${k.memberId}`), h.nowMs + 30_000);
    h.advance(10_000);
    assert.equal(assignments(h)[k.memberId], undefined, 'no heartbeat within its 10 s session');
    const j = harness();
    const { k: k2 } = mixedGroup(j);
    sync(j, { group: 'g', generationId: k2.generationId, memberId: k2.memberId });
    j.setTopics({ orders: 4, audit: 2 });
    cgJoin(j, { memberId: 'C', topics: ['orders', 'audit'] });
    assert.equal(heartbeat(j, { group: 'g', generationId: k2.generationId, memberId: k2.memberId }).answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    for (let t = 0; t < 30_000; t += 5000) {
      j.advance(5000);
      if (assignments(j)[k2.memberId] !== undefined) heartbeat(j, { group: 'g', generationId: k2.generationId, memberId: k2.memberId });
      cgBeat(j, 'C', assignments(j)['C']!.epoch, ownedBy(j, 'C'));
    }
    assert.equal(assignments(j)[k2.memberId], undefined, 'it never rejoined within its 30 s rebalance timeout');
  });

  it('LeaveGroup fences classic members, by id or instance id, in one batch (testConsumerGroupMemberUsingClassicProtocolBatchLeaveGroup)', () => {
    const h = harness({ consumerGroupMigrationPolicy: 'upgrade' });
    const { k } = mixedGroup(h);
    const s = classicJoin(h, { instanceId: 'i1' });
    const epoch = cgDescribe(h).groupEpoch;
    const r = leave(h, { group: 'g', members: [{ memberId: k.memberId }, { memberId: '', instanceId: 'i1' }, { memberId: 'nobody' }] }).answer;
    assert.deepEqual(r.members!.map((m) => m.errorCode), [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
    assert.deepEqual(Object.keys(assignments(h)), ['C']);
    assert.equal(cgDescribe(h).groupEpoch, epoch + 1, 'one bump for the batch');
    void s;
  });

  it('a classic member commits with its epoch as generation, at any OffsetCommit version; ILLEGAL_GENERATION otherwise (ConsumerGroup.validateOffsetCommit)', () => {
    const h = harness();
    const { k } = mixedGroup(h);
    const code = (generationId: number, version: number): number =>
      commit(h, { group: 'g', memberId: k.memberId, generationId, offsets: { orders: { 0: 1 } }, version }).answer.topics[0]!.partitions[0]!.errorCode;
    assert.equal(code(k.generationId, 8), ErrorCode.NONE);
    assert.equal(code(k.generationId, 9), ErrorCode.NONE);
    assert.equal(code(k.generationId + 1, 8), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(code(k.generationId - 1, 8), ErrorCode.ILLEGAL_GENERATION);
  });
});
