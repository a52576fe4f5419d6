/**
 * Online migration between classic and consumer groups (group.consumer.migration.policy),
 * each case after the GroupMetadataManagerTest case it mirrors: the upgrade of a classic
 * group when a consumer-protocol member joins it, the downgrade when the last one leaves,
 * and replay of both at start-up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import type { GroupCoordinatorConfig } from '../../src/coordinator/types.js';
import { encodeAssignment } from '../../src/protocol/consumer-protocol.js';
import { decodeCoordinatorKey } from '../../src/protocol/coordinator-records/framing.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { assignments, cgDescribe, cgHeartbeat, cgJoin } from '../support/coordinator/consumer.js';
import { formGroup, heartbeat, join, joinNew, sync, type StableGroup } from '../support/coordinator/requests.js';

function harness(config: Partial<GroupCoordinatorConfig> = {}): CoordinatorHarness {
  const h = new CoordinatorHarness(new GroupCoordinator(testConfig(config)));
  h.setTopics({ orders: 4 });
  return h;
}

/** The kinds of the records written since `from`: type numbers, `gm` GroupMetadata, `t` tombstones. */
function kinds(h: CoordinatorHarness, from: number): string[] {
  return h.log.slice(from).map((r) => {
    const k = decodeCoordinatorKey(r.key);
    const name = k.kind === 'consumer-group' ? String(k.type) : k.kind === 'group-metadata' ? 'gm' : k.kind;
    return r.value === null ? `${name}t` : name;
  });
}

/** A Stable classic group "g" of two members, generation 1, each with one partition of orders. */
function classicGroup(h: CoordinatorHarness): StableGroup {
  return formGroup(h, 'g', 2, { topics: ['orders'] });
}

describe('coordinator: online upgrade of a classic group (ConsumerGroupHeartbeat)', { timeout: 10_000 }, () => {
  it('a consumer member joining a Stable classic group converts it: classic members keep their assignment at the generation (testConsumerGroupHeartbeatWithStableClassicGroup)', () => {
    const h = harness();
    const g = classicGroup(h);
    const before = h.log.length;
    const r = cgJoin(h, { memberId: 'C', topics: ['orders'] });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(h.coordinator.group('g'), undefined, 'no classic group any more');
    const d = cgDescribe(h);
    assert.deepEqual([d.groupEpoch, d.assignmentEpoch], [g.generationId + 1, g.generationId + 1]);
    const all = assignments(h);
    assert.deepEqual(Object.keys(all).sort(), ['C', ...g.members].sort());
    assert.deepEqual(g.members.map((m) => all[m]!.epoch), [g.generationId, g.generationId]);
    assert.deepEqual(g.members.map((m) => all[m]!.current), [{ orders: [0] }, { orders: [1] }], 'as the leader assigned them');
    // The classic group's tombstone, the consumer group's records, then the joining member's.
    assert.deepEqual(kinds(h, before).slice(0, 10), ['gmt', '5', '5', '4', '3', '7', '7', '6', '8', '8']);
    // The classic members learn of the new epoch from their heartbeats.
    assert.equal(heartbeat(h, { group: 'g', generationId: g.generationId, memberId: g.members[0]! }).answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    // A restart replays the same group.
    const again = h.restart();
    assert.deepEqual(cgDescribe(again), d);
    assert.equal(again.coordinator.group('g'), undefined);
  });

  it('answers the JoinGroups of a rebalancing classic group REBALANCE_IN_PROGRESS (testConsumerGroupHeartbeatWithPreparingRebalanceClassicGroup)', () => {
    const h = harness();
    const g = classicGroup(h);
    const parked = join(h, { group: 'g', memberId: g.members[0]!, topics: ['orders'] });
    assert.equal(parked.response, undefined, 'the rejoin starts a rebalance and waits');
    assert.equal(cgJoin(h, { memberId: 'C', topics: ['orders'] }).errorCode, ErrorCode.NONE);
    assert.equal(parked.answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    assert.equal(cgDescribe(h).groupEpoch, g.generationId + 1);
  });

  it('refuses the upgrade as Kafka does: policy, protocol type, custom assignor data (validateOnlineUpgrade)', () => {
    const refused = (h: CoordinatorHarness): { errorCode: number; errorMessage: string | null } => {
      const r = cgJoin(h, { memberId: 'C', topics: ['orders'] });
      return { errorCode: r.errorCode, errorMessage: r.errorMessage };
    };
    for (const policy of ['downgrade', 'disabled'] as const) {
      const h = harness({ consumerGroupMigrationPolicy: policy });
      classicGroup(h);
      assert.deepEqual(refused(h), { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Cannot upgrade classic group g to consumer group because online upgrade is disabled.' }, policy);
      assert.equal(h.coordinator.group('g')?.state, 'Stable');
    }
    const connect = harness();
    const worker = joinNew(connect, { group: 'g', protocolType: 'connect', protocols: [{ name: 'sessioned', metadata: Buffer.from('w') }] });
    connect.advance(3000);
    const w = worker.answer;
    assert.equal(sync(connect, { group: 'g', generationId: w.generationId, memberId: w.memberId, assignments: { [w.memberId]: Buffer.from('a') }, protocolType: 'connect', protocolName: 'sessioned' }).answer.errorCode, ErrorCode.NONE);
    assert.deepEqual(refused(connect), { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Cannot upgrade classic group g to consumer group because the group does not use the consumer embedded protocol.' });
    // A leader's assignment carrying user data (a custom assignor's) would be lost.
    const custom = harness();
    const first = joinNew(custom, { group: 'g', topics: ['orders'] });
    custom.advance(3000);
    const leader = first.answer;
    const withData = encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: [0] }], userData: Buffer.from('x') });
    assert.equal(sync(custom, { group: 'g', generationId: leader.generationId, memberId: leader.memberId, assignments: { [leader.memberId]: withData }, protocolName: 'range' }).answer.errorCode, ErrorCode.NONE);
    const before = custom.log.length;
    assert.equal(refused(custom).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(custom.log.length, before, 'nothing written');
    assert.equal(custom.coordinator.group('g')?.state, 'Stable');
  });

  it('a failed check after the conversion leaves the classic group as it was (an invalid regex)', () => {
    const h = harness();
    const g = classicGroup(h);
    const before = h.log.length;
    const r = cgHeartbeat(h, { memberId: 'C', epoch: 0, rebalanceTimeoutMs: 1000, regex: '(', owned: {} }).answer;
    assert.equal(r.errorCode, ErrorCode.INVALID_REGULAR_EXPRESSION);
    assert.equal(h.log.length, before);
    assert.equal(h.coordinator.group('g')?.state, 'Stable');
    assert.equal(heartbeat(h, { group: 'g', generationId: g.generationId, memberId: g.members[0]! }).answer.errorCode, ErrorCode.NONE);
  });

  it('a failed append of the conversion brings the classic group back (revert)', () => {
    const h = harness();
    const g = classicGroup(h);
    h.holdAppends();
    const sent = cgHeartbeat(h, { memberId: 'C', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['orders'], owned: {} });
    h.failAppends(ErrorCode.NOT_COORDINATOR);
    assert.equal(sent.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.equal(cgDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(h.coordinator.group('g')?.state, 'Stable');
    assert.equal(heartbeat(h, { group: 'g', generationId: g.generationId, memberId: g.members[1]! }).answer.errorCode, ErrorCode.NONE);
  });
});

/** Classic group g converted by consumer member C: C and the two classic members, epoch 2. */
function upgraded(h: CoordinatorHarness): StableGroup {
  const g = classicGroup(h);
  assert.equal(cgJoin(h, { memberId: 'C', topics: ['orders'] }).errorCode, ErrorCode.NONE);
  return g;
}

describe('coordinator: online downgrade of a consumer group', { timeout: 10_000 }, () => {
  it('the last consumer-protocol member leaving turns the group into a classic group that rebalances (testLastConsumerProtocolMemberLeavingConsumerGroup)', () => {
    const h = harness();
    const g = upgraded(h);
    const epoch = cgDescribe(h).groupEpoch;
    const before = h.log.length;
    const r = cgHeartbeat(h, { memberId: 'C', epoch: assignments(h)['C']!.epoch }).answer;
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(cgHeartbeat(h, { memberId: 'C', epoch: -1 }).answer.errorCode, ErrorCode.NONE);
    assert.equal(cgDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    const classic = h.coordinator.group('g')!;
    assert.deepEqual([classic.state, classic.generationId, classic.protocolType, classic.protocolName], ['PreparingRebalance', epoch, 'consumer', 'range']);
    assert.deepEqual(classic.members.map((m) => m.memberId), g.members);
    assert.equal(classic.leaderId, g.members[0]);
    // The consumer group's tombstones, then the classic group's GroupMetadata.
    const written = kinds(h, before);
    assert.deepEqual(written.slice(-1), ['gm']);
    assert.deepEqual(written.filter((k) => k === '3t'), ['3t']);
    // The classic members rejoin and the group completes a generation of its own.
    assert.equal(heartbeat(h, { group: 'g', generationId: epoch, memberId: g.members[0]! }).answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    const joins = g.members.map((memberId) => join(h, { group: 'g', memberId, topics: ['orders'] }));
    const leader = joins[0]!.answer;
    assert.deepEqual([leader.errorCode, leader.generationId, leader.leader], [ErrorCode.NONE, epoch + 1, g.members[0]]);
    // A restart replays the same classic group (Stable at its last GroupMetadata).
    assert.equal(h.restart().coordinator.group('g')?.generationId, epoch);
  });

  it('so does the last consumer-protocol member\'s session expiring (testLastConsumerProtocolMemberSessionTimeoutInConsumerGroup)', () => {
    const h = harness();
    const g = upgraded(h);
    // The classic members stay (they rejoin when told to); C goes silent.
    const generation = new Map(g.members.map((m) => [m, g.generationId]));
    for (let t = 0; t < 45_000 && h.coordinator.group('g') === undefined; t += 5000) {
      h.advance(5000);
      for (const memberId of g.members) {
        if (h.coordinator.group('g') !== undefined) break;
        const error = heartbeat(h, { group: 'g', generationId: generation.get(memberId)!, memberId }).answer.errorCode;
        if (error !== ErrorCode.REBALANCE_IN_PROGRESS) continue;
        const r = join(h, { group: 'g', memberId, topics: ['orders'] }).answer;
        generation.set(memberId, r.generationId);
        sync(h, { group: 'g', generationId: r.generationId, memberId });
      }
    }
    const classic = h.coordinator.group('g');
    assert.equal(classic?.state, 'PreparingRebalance');
    assert.deepEqual(classic.members.map((m) => m.memberId).sort(), [...g.members].sort());
  });

  it('policy upgrade: the group stays a consumer group of classic members (validateOnlineDowngradeWithFencedMembers)', () => {
    const h = harness({ consumerGroupMigrationPolicy: 'upgrade' });
    const g = upgraded(h);
    cgHeartbeat(h, { memberId: 'C', epoch: -1 });
    assert.deepEqual(Object.keys(assignments(h)).sort(), [...g.members].sort());
    assert.equal(h.coordinator.group('g'), undefined);
  });

  it('a classic static member replacing the last consumer-protocol static member downgrades at once, with that member\'s target (testLastStaticConsumerProtocolMemberReplacedByClassicProtocolMember)', () => {
    const h = harness();
    cgJoin(h, { memberId: 'S', instanceId: 'i1', topics: ['orders'] });
    const k = join(h, { group: 'g', topics: ['orders'] }).answer;
    const kid = join(h, { group: 'g', memberId: k.memberId, topics: ['orders'] }).answer;
    const target = assignments(h)['S']!.target;
    const epoch = cgDescribe(h).groupEpoch;
    const r = join(h, { group: 'g', instanceId: 'i1', topics: ['orders'] }).answer;
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.generationId, epoch);
    const classic = h.coordinator.group('g')!;
    assert.deepEqual([classic.state, classic.generationId], ['Stable', epoch], 'the target was current: no rebalance');
    assert.deepEqual(classic.members.map((m) => m.memberId).sort(), [kid.memberId, r.memberId].sort());
    const s = sync(h, { group: 'g', generationId: epoch, memberId: r.memberId, instanceId: 'i1' }).answer;
    assert.equal(s.errorCode, ErrorCode.NONE);
    assert.deepEqual(s.assignment, encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: target['orders']! }], userData: null }, 3));
  });

  it('a failed append of the downgrade brings the consumer group back (revert)', () => {
    const h = harness();
    upgraded(h);
    const before = cgDescribe(h);
    h.holdAppends();
    const sent = cgHeartbeat(h, { memberId: 'C', epoch: -1 });
    h.failAppends(ErrorCode.NOT_COORDINATOR);
    assert.equal(sent.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(cgDescribe(h), before);
    assert.equal(h.coordinator.group('g'), undefined);
  });
});
