import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { decodeCoordinatorKey } from '../../src/protocol/coordinator-records/framing.js';
import { decodeConsumerGroupRecord } from '../../src/protocol/coordinator-records/consumer-group-framing.js';
import type { ConsumerGroupCurrentMemberAssignmentValue } from '../../src/protocol/coordinator-records/consumer-group-current-member-assignment-value.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named, ownedBy } from '../support/coordinator/consumer.js';
import { commit, fetchOffsets, fetchedOffsets, formGroup, heartbeat, join, leave, sync } from '../support/coordinator/requests.js';

/** Kafka's group.consumer.migration.policy=disabled: no online conversion of groups with members. */
function disabled(): CoordinatorHarness {
  return new CoordinatorHarness(new GroupCoordinator(testConfig({ consumerGroupMigrationPolicy: 'disabled' })));
}

function consumerGroup(h = new CoordinatorHarness()): CoordinatorHarness {
  h.setTopics({ t: 2 });
  cgJoin(h, { memberId: 'A' });
  cgJoin(h, { memberId: 'S', instanceId: 'is' });
  return h;
}

describe('coordinator: classic and consumer groups with members keep to their own protocol (migration disabled), or give way when Empty', { timeout: 10_000 }, () => {
  it('ConsumerGroupHeartbeat to a classic group with members: GROUP_ID_NOT_FOUND, whatever the epoch (testConsumerGroupHeartbeatWithNonEmptyClassicGroup)', () => {
    const h = disabled();
    h.setTopics({ t: 1 });
    formGroup(h, 'g', 1);
    const r = cgHeartbeat(h, { memberId: 'X', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} }).answer;
    assert.deepEqual([r.errorCode, r.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Cannot upgrade classic group g to consumer group because online upgrade is disabled.']);
    assert.equal(cgHeartbeat(h, { memberId: 'X', epoch: 3 }).answer.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(cgHeartbeat(h, { memberId: 'X', epoch: -1 }).answer.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(cgDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(h.coordinator.group('g')?.state, 'Stable');
  });

  it('an Empty classic group (e.g. only offsets) gives way to a consumer group, its offsets kept (testConsumerGroupHeartbeatWithEmptyClassicGroup)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    commit(h, { group: 'g', offsets: { t: { 0: 7 } } });
    assert.equal(h.coordinator.group('g')?.state, 'Empty');
    const r = cgJoin(h, { memberId: 'A' });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(h.coordinator.group('g'), undefined, 'the classic group is gone (GroupMetadata tombstone)');
    assert.equal(cgDescribe(h).groupState, 'Stable');
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: 'g', topics: null }).answer), { 't/0': 7 });
    const restarted = h.restart();
    assert.equal(restarted.coordinator.group('g'), undefined);
    assert.equal(cgDescribe(restarted).groupEpoch, 2);
  });

  it('JoinGroup to a consumer group with members: INCONSISTENT_GROUP_PROTOCOL (throwIfClassicMemberCannotJoinConsumerGroup)', () => {
    const h = consumerGroup(disabled());
    const r = join(h, { group: 'g', topics: ['t'] }).answer;
    assert.equal(r.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(r.memberId, '');
  });

  it('JoinGroup to an Empty consumer group deletes it and makes a classic group (testJoinGroup... maybeDeleteEmptyConsumerGroup)', () => {
    const h = consumerGroup();
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    cgHeartbeat(h, { memberId: 'S', instanceId: 'is', epoch: -1 });
    assert.equal(cgDescribe(h).groupState, 'Empty');
    const r = join(h, { group: 'g', topics: ['t'] }).answer;
    assert.equal(r.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
    assert.equal(cgDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(h.coordinator.group('g')?.state, 'Empty');
    assert.equal(h.restart().coordinator.group('g')?.state, 'Empty', 'the tombstones and the new GroupMetadata replay');
  });

  it('Heartbeat and SyncGroup find no classic member: UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID for another member\'s instance', () => {
    const h = consumerGroup();
    assert.equal(heartbeat(h, { group: 'g', generationId: 1, memberId: 'A' }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(heartbeat(h, { group: 'g', generationId: 1, memberId: 'X', instanceId: 'is' }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(heartbeat(h, { group: 'g', generationId: 1, memberId: 'S', instanceId: 'is' }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(sync(h, { group: 'g', generationId: 1, memberId: 'A' }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(sync(h, { group: 'g', generationId: 1, memberId: 'X', instanceId: 'is' }).answer.errorCode, ErrorCode.FENCED_INSTANCE_ID);
  });

  it('LeaveGroup removes consumer-protocol members by member id or instance id, as an admin does (classicGroupLeaveToConsumerGroup)', () => {
    const h = consumerGroup();
    const r = leave(h, { group: 'g', members: [{ memberId: '', instanceId: 'is' }, { memberId: 'nobody' }, { memberId: 'X', instanceId: 'is' }] }).answer;
    assert.deepEqual(r.members!.map((m) => m.errorCode), [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.FENCED_INSTANCE_ID]);
    assert.deepEqual(Object.keys(assignments(h)), ['A']);
    assert.equal(cgDescribe(h).groupEpoch, 4);
  });

  it('ListGroups lists consumer groups with type and protocol type "consumer" and their states; filters apply', () => {
    const h = consumerGroup();
    formGroup(h, 'classic', 1);
    const list = (statesFilter: string[], typesFilter: string[]) =>
      h.send('ListGroups', 5, { statesFilter, typesFilter }).answer.groups.map((g) => `${g.groupId}:${g.groupType}:${g.protocolType}:${g.groupState}`);
    assert.deepEqual(list([], []), ['classic:classic:consumer:Stable', 'g:consumer:consumer:Reconciling']);
    assert.deepEqual(list([], ['Consumer']), ['g:consumer:consumer:Reconciling']);
    assert.deepEqual(list(['reconciling'], []), ['g:consumer:consumer:Reconciling']);
    assert.deepEqual(list(['stable'], ['classic']), ['classic:classic:consumer:Stable']);
  });
});

describe('coordinator: offsets of consumer groups (member epochs)', { timeout: 10_000 }, () => {
  it('OffsetCommit v9+ needs the member\'s current epoch: STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID; below v9 UNSUPPORTED_VERSION (ConsumerGroup.validateOffsetCommit)', () => {
    const h = consumerGroup();
    const code = (o: Partial<Parameters<typeof commit>[1]>): number => commit(h, { group: 'g', offsets: { t: { 0: 1 } }, ...o }).answer.topics[0]!.partitions[0]!.errorCode;
    const epoch = assignments(h)['A']!.epoch;
    assert.equal(code({ memberId: 'A', generationId: epoch }), ErrorCode.NONE);
    assert.equal(code({ memberId: 'A', generationId: epoch + 1 }), ErrorCode.STALE_MEMBER_EPOCH);
    assert.equal(code({ memberId: 'nobody', generationId: epoch }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(code({ memberId: '', generationId: -1 }), ErrorCode.UNKNOWN_MEMBER_ID, 'a group with members takes no anonymous commit');
    assert.equal(code({ memberId: 'A', generationId: epoch, version: 8 }), ErrorCode.UNSUPPORTED_VERSION);
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    cgHeartbeat(h, { memberId: 'S', instanceId: 'is', epoch: -1 });
    assert.equal(code({ memberId: '', generationId: -1 }), ErrorCode.NONE, 'an Empty group takes commits with epoch -1 (admin)');
  });

  it('keeps the epoch each partition was assigned at (Kafka 4.4\'s AssignmentEpochs, KIP-1251) in its records and across a restart; an OffsetCommit with an older epoch lands when the member had every partition at that epoch, as Kafka 4.4 checks it', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    assert.equal(cgJoin(h, { memberId: 'A' }).memberEpoch, 2);
    assert.equal(cgJoin(h, { memberId: 'B' }).memberEpoch, 3);
    const kept = named(h, cgBeat(h, 'A', 2, { t: [0, 1, 2, 3] }).assignment?.topicPartitions)!.t!;
    const given = [0, 1, 2, 3].filter((p) => !kept.includes(p));
    h.advance(100);
    // A revokes and moves to epoch 3, keeping what it had since 2; B gets the rest at 3.
    assert.equal(cgBeat(h, 'A', 2, { t: kept }).memberEpoch, 3);
    assert.deepEqual(named(h, cgBeat(h, 'B', 3, {}).assignment?.topicPartitions), { t: given });
    /** Partition → epoch, from the member's last current-assignment record (tagged field 0 of each topic). */
    const epochsIn = (c: CoordinatorHarness, memberId: string): Record<number, number> => {
      let last: ConsumerGroupCurrentMemberAssignmentValue | null = null;
      for (const r of c.log) {
        const k = decodeCoordinatorKey(r.key);
        if (k.kind !== 'consumer-group' || k.type !== 8) continue;
        const record = decodeConsumerGroupRecord(k.type, k.keyReader, r.value);
        if (record.type === 8 && record.key.memberId === memberId) last = record.value;
      }
      const out: Record<number, number> = {};
      for (const t of last?.assignedPartitions ?? []) {
        assert.equal(t.assignmentEpochs?.length, t.partitions.length, 'AssignmentEpochs written');
        t.partitions.forEach((p, i) => { out[p] = t.assignmentEpochs![i]!; });
      }
      return out;
    };
    const at = (partitions: number[], epoch: number): Record<number, number> => Object.fromEntries(partitions.map((p) => [p, epoch]));
    assert.deepEqual(epochsIn(h, 'A'), at(kept, 2), 'A\'s kept partitions keep epoch 2');
    assert.deepEqual(epochsIn(h, 'B'), at(given, 3), 'B got its partitions at epoch 3');
    // Replayed from the records: a restart keeps them, and the next records carry them on.
    const recordsOfA = (c: CoordinatorHarness): number => c.log.filter((r) => {
      const k = decodeCoordinatorKey(r.key);
      if (k.kind !== 'consumer-group' || k.type !== 8) return false;
      const record = decodeConsumerGroupRecord(k.type, k.keyReader, r.value);
      return record.type === 8 && record.key.memberId === 'A';
    }).length;
    const before = recordsOfA(h);
    const after = h.restart();
    after.advance(100);
    cgHeartbeat(after, { memberId: 'C', epoch: 0, rebalanceTimeoutMs: 30_000, topics: ['t'], owned: {} });
    after.advance(1000);
    cgBeat(after, 'A', 3, { t: kept });
    cgBeat(after, 'B', 3, { t: given });
    assert.ok(recordsOfA(after) > before, 'A got a new record after the restart');
    const aEpochs = epochsIn(after, 'A');
    for (const p of Object.keys(aEpochs).map(Number)) assert.equal(aEpochs[p], 2, `A's partition ${p} still at epoch 2 after the restart`);

    // Kafka 4.4 checks a commit with an older epoch partition by partition, by the topic's id
    // (the request's from v10, the broker's look-up of the name before): the first partition
    // the member did not have at that epoch fails the whole request
    // (consumer-groups-differential.test.ts compares v9 and v10 with Kafka).
    const codes = (memberId: string, epoch: number, partitions: number[], version = 10): Record<number, string> => {
      const r = commit(h, { group: 'g', memberId, generationId: epoch, version, offsets: { t: Object.fromEntries(partitions.map((p) => [p, 5])) } }).answer;
      return Object.fromEntries(r.topics[0]!.partitions.map((p) => [p.partitionIndex, errorInfo(p.errorCode).name]));
    };
    const all = (partitions: number[], name: string): Record<number, string> => Object.fromEntries(partitions.map((p) => [p, name]));
    assert.deepEqual(codes('A', 2, kept), all(kept, 'NONE'), 'what A had at epoch 2 lands');
    assert.deepEqual(codes('A', 2, [0, 1, 2, 3]), all([0, 1, 2, 3], 'STALE_MEMBER_EPOCH'), 'one partition A never had fails them all');
    assert.deepEqual(codes('A', 2, kept, 9), all(kept, 'NONE'), 'v9 alike');
    assert.deepEqual(codes('A', 1, kept), all(kept, 'STALE_MEMBER_EPOCH'), 'an epoch before A had them');
    assert.deepEqual(codes('A', 3, kept), all(kept, 'NONE'));
    assert.deepEqual(codes('A', 4, kept), all(kept, 'STALE_MEMBER_EPOCH'), 'an epoch newer than the member\'s');
  });

  it('OffsetFetch v9 with a member checks its epoch; without one it answers anybody (ConsumerGroup.validateOffsetFetch)', () => {
    const h = consumerGroup();
    const epoch = assignments(h)['A']!.epoch;
    commit(h, { group: 'g', memberId: 'A', generationId: epoch, offsets: { t: { 0: 3 } } });
    const fetch = (memberId: string | null, memberEpoch: number) => h.send('OffsetFetch', 9, {
      groups: [{ groupId: 'g', memberId, memberEpoch, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false,
    }).answer.groups![0]!;
    assert.equal(fetch('A', epoch).topics[0]!.partitions[0]!.committedOffset, 3n);
    assert.equal(fetch('A', epoch + 1).errorCode, ErrorCode.STALE_MEMBER_EPOCH);
    assert.equal(fetch('nobody', epoch).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(fetch(null, -1).topics[0]!.partitions[0]!.committedOffset, 3n);
  });

  it('OffsetDelete refuses topics a member subscribes to (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the others', () => {
    const h = consumerGroup();
    h.setTopics({ t: 2, old: 1 });
    const epoch = assignments(h)['A']!.epoch;
    commit(h, { group: 'g', memberId: 'A', generationId: epoch, offsets: { t: { 0: 3 }, old: { 0: 9 } } });
    const r = h.send('OffsetDelete', 0, { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }, { name: 'old', partitions: [{ partitionIndex: 0 }] }] }).answer;
    assert.deepEqual(r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]), [['t', ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC], ['old', ErrorCode.NONE]]);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: 'g', topics: null }).answer), { 't/0': 3 });
  });

  it('offsets of an Empty consumer group expire by commit time, then the group goes; subscribed topics never expire', () => {
    const h = consumerGroup();
    h.apply(h.coordinator.loaded(h.nowMs)); // arms offset expiration
    h.setTopics({ t: 2, old: 1 });
    const epoch = assignments(h)['A']!.epoch;
    commit(h, { group: 'g', memberId: 'A', generationId: epoch, offsets: { t: { 0: 3 }, old: { 0: 9 } } });
    const week = 7 * 24 * 3600 * 1000;
    for (let t = 0; t < week + 600_000; t += 30_000) {
      h.advance(30_000);
      for (const [id, a] of Object.entries(assignments(h))) cgHeartbeat(h, { memberId: id, instanceId: id === 'S' ? 'is' : null, epoch: a.epoch, owned: ownedBy(h, id) });
    }
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: 'g', topics: null }).answer), { 't/0': 3 }, 'old expired, t is subscribed');
    cgHeartbeat(h, { memberId: 'A', epoch: assignments(h)['A']!.epoch, owned: ownedBy(h, 'A') });
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    cgHeartbeat(h, { memberId: 'S', instanceId: 'is', epoch: -1 });
    h.advance(week + 600_000);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: 'g', topics: null }).answer), {});
    assert.equal(cgDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND, 'the Empty group without offsets is deleted');
  });

  it('a member\'s commits do not move its session (only heartbeats do)', () => {
    const h = consumerGroup();
    const due = h.timers.dueAt('consumer-session:g:A');
    h.advance(1000);
    commit(h, { group: 'g', memberId: 'A', generationId: assignments(h)['A']!.epoch, offsets: { t: { 0: 1 } } });
    assert.equal(h.timers.dueAt('consumer-session:g:A'), due);
    cgBeat(h, 'A', assignments(h)['A']!.epoch, assignments(h)['A']!.current);
    assert.equal(h.timers.dueAt('consumer-session:g:A'), h.nowMs + 45_000);
  });
});
