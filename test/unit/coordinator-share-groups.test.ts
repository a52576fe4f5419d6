/**
 * Share groups (KIP-932) in the group coordinator. The expected epochs, assignments, states
 * and error messages are Kafka 4.4's, as test/interop/share-groups-differential.test.ts
 * captured them from a real broker for the same sequences (group.share.assignment.interval.ms
 * 0, assignor offload off); what that test cannot drive (a session expiring, a failed append,
 * a restart, a failed initialization) follows Kafka 4.4's GroupMetadataManager.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ConsumerOffsetsRecordType as T } from '../../src/protocol/coordinator-records/record-types.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { named } from '../support/coordinator/consumer.js';
import { sgBeat, sgDescribe, sgHeartbeat, sgJoin } from '../support/coordinator/share.js';

/**
 * The simple assignor walks topics in hash order of their ids: the oracle's topic gets the id
 * Kafka gave it in the captured run, so that its assignments are the ones to expect.
 */
const ORACLE_TOPIC = { t: { partitions: 4, topicId: 'W6wMi_eSTqiKoF3negZZWQ' } };

function recordTypes(h: CoordinatorHarness, from = 0): number[] {
  return h.log.slice(from).map((r) => r.key.readInt16BE(0));
}

/** A and B in a group on t (4 partitions), settled as Kafka settles them: A [2, 3], B [0, 1] at epoch 4. */
function twoMembers(): CoordinatorHarness {
  const h = new CoordinatorHarness();
  h.setTopics(ORACLE_TOPIC);
  sgJoin(h, 'member-a');
  h.initializeShareGroupState();
  sgBeat(h, 'member-a', 2);
  sgJoin(h, 'member-b');
  sgBeat(h, 'member-a', 3);
  return h;
}

describe('coordinator: ShareGroupHeartbeat', { timeout: 10_000 }, () => {
  it('a first member gets nothing until its share partitions are initialized, then everything (Kafka 4.4: epochs 2 then 3)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    const a1 = sgJoin(h, 'member-a');
    assert.deepEqual([a1.errorCode, a1.memberId, a1.memberEpoch, a1.heartbeatIntervalMs], [ErrorCode.NONE, 'member-a', 2, 5000]);
    assert.deepEqual(a1.assignment, { topicPartitions: [] });
    // The join's records: member, epoch, target, its epoch, current assignment, initializing partitions.
    assert.deepEqual(recordTypes(h), [
      T.ShareGroupMemberMetadata, T.ShareGroupMetadata, T.ShareGroupTargetAssignmentMember, T.ShareGroupTargetAssignmentMetadata,
      T.ShareGroupCurrentMemberAssignment, T.ShareGroupStatePartitionMetadata,
    ]);
    // The heartbeat asked for the initialization of every partition, from share.auto.offset.reset (-1).
    assert.deepEqual(h.pendingShareInitializations.map((r) => ({ groupId: r.groupId, topics: r.topics.map((t) => t.partitions.map((p) => [p.partition, p.stateEpoch, p.startOffset])) })), [
      { groupId: 'g', topics: [[[0, 2, -1n], [1, 2, -1n], [2, 2, -1n], [3, 2, -1n]]] },
    ]);
    // Until the share coordinator answers, a heartbeat changes nothing and asks for nothing again.
    assert.deepEqual([sgBeat(h, 'member-a', 2).memberEpoch, h.pendingShareInitializations.length], [2, 1]);
    h.initializeShareGroupState();
    const a2 = sgBeat(h, 'member-a', 2);
    assert.equal(a2.memberEpoch, 3);
    assert.deepEqual(named(h, a2.assignment?.topicPartitions), { t: [0, 1, 2, 3] });
    assert.deepEqual(h.pendingShareInitializations, [], 'initialized partitions are not asked for again');
    const d = sgDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch, d.assignorName], ['Stable', 3, 3, 'simple']);
    assert.deepEqual(d.members.map((m) => [m.memberId, m.memberEpoch, m.clientId, m.clientHost, m.subscribedTopicNames, named(h, m.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: t.partitions })))]), [
      ['member-a', 3, 'share-consumer', '/127.0.0.1', ['t'], { t: [0, 1, 2, 3] }],
    ]);
  });

  it('a second member gets its share at once; the first moves to the new epoch; its previous epoch is accepted (Kafka 4.4)', () => {
    const h = new CoordinatorHarness();
    h.setTopics(ORACLE_TOPIC);
    sgJoin(h, 'member-a');
    h.initializeShareGroupState();
    sgBeat(h, 'member-a', 2);
    const b = sgHeartbeat(h, { memberId: 'member-b', epoch: 0, topics: ['t'], rackId: 'rack-b' }).answer;
    assert.equal(b.memberEpoch, 4);
    assert.deepEqual(named(h, b.assignment?.topicPartitions), { t: [0, 1] });
    assert.deepEqual(h.pendingShareInitializations, [], 'nothing new to initialize');
    const a = sgBeat(h, 'member-a', 3);
    assert.equal(a.memberEpoch, 4);
    assert.deepEqual(named(h, a.assignment?.topicPartitions), { t: [2, 3] });
    assert.deepEqual([sgBeat(h, 'member-a', 4).memberEpoch, sgBeat(h, 'member-a', 4).assignment], [4, null]);
    assert.deepEqual([sgBeat(h, 'member-a', 3).memberEpoch, sgBeat(h, 'member-a', 3).assignment], [4, null]);
    const d = sgDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch], ['Stable', 4, 4]);
    assert.deepEqual(d.members.map((m) => [m.memberId, m.rackId, m.memberEpoch]), [['member-a', null, 4], ['member-b', 'rack-b', 4]]);
  });

  it('refuses with Kafka 4.4 codes and messages', () => {
    const h = twoMembers();
    const refused = (o: Parameters<typeof sgHeartbeat>[1]): [number, string | null] => {
      const r = sgHeartbeat(h, o).answer;
      return [r.errorCode, r.errorMessage];
    };
    assert.deepEqual(refused({ memberId: 'member-x', epoch: 4 }), [ErrorCode.UNKNOWN_MEMBER_ID, 'Member member-x is not a member of group g.']);
    assert.deepEqual(refused({ memberId: 'member-a', epoch: 9 }), [ErrorCode.FENCED_MEMBER_EPOCH,
      'The share group member has a greater member epoch (9) than the one known by the group coordinator (4). The member must abandon all its partitions and rejoin.']);
    assert.deepEqual(refused({ memberId: 'member-a', epoch: 2 }), [ErrorCode.FENCED_MEMBER_EPOCH,
      'The share group member has a smaller member epoch (2) than the one known by the group coordinator (4), and it does not match the previous member epoch (3). The member must abandon all its partitions and rejoin.']);
    assert.deepEqual(refused({ group: 'sg-none', memberId: 'member-a', epoch: 1 }), [ErrorCode.GROUP_ID_NOT_FOUND, 'Share group sg-none not found.']);
    assert.deepEqual(refused({ memberId: 'member-c', epoch: 0, topics: [] }), [ErrorCode.INVALID_REQUEST, 'SubscribedTopicNames must be set in first request.']);
    assert.deepEqual(refused({ memberId: 'member-a', epoch: -2 }), [ErrorCode.INVALID_REQUEST, 'MemberEpoch is invalid.']);
    assert.deepEqual(refused({ memberId: 'member-a', epoch: 4, rackId: '' }), [ErrorCode.INVALID_REQUEST, "RackId can't be empty."]);
    assert.deepEqual(refused({ memberId: 'member-x', epoch: -1 }), [ErrorCode.UNKNOWN_MEMBER_ID, 'Member member-x is not a member of group g.']);
    assert.equal(sgDescribe(h).groupEpoch, 4, 'refusals change nothing');
  });

  it('group.share.max.size: a new member is refused once the group is full (Kafka 4.4, with 3)', () => {
    const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ shareGroupMaxSize: 3 })));
    h.setTopics(ORACLE_TOPIC);
    sgJoin(h, 'member-a');
    h.initializeShareGroupState();
    sgBeat(h, 'member-a', 2);
    sgJoin(h, 'member-b');
    const c = sgJoin(h, 'member-c');
    assert.deepEqual([c.memberEpoch, named(h, c.assignment?.topicPartitions)], [5, { t: [0] }]);
    const d = sgHeartbeat(h, { memberId: 'member-d', epoch: 0, topics: ['t'] }).answer;
    assert.deepEqual([d.errorCode, d.errorMessage], [ErrorCode.GROUP_MAX_SIZE_REACHED, 'The share group has reached its maximum capacity of 3 members.']);
    assert.equal(sgBeat(h, 'member-a', 3).errorCode, ErrorCode.NONE, 'a member already in is not refused');
  });

  it('members leaving bump the epoch; the last one leaves the group Empty at its epoch (Kafka 4.4: 5 to 8)', () => {
    const h = twoMembers();
    sgJoin(h, 'member-c');
    assert.deepEqual(sgHeartbeat(h, { memberId: 'member-c', epoch: -1 }).answer, {
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: 'member-c', memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null,
    });
    sgHeartbeat(h, { memberId: 'member-b', epoch: -1 });
    const a = sgBeat(h, 'member-a', 4);
    assert.deepEqual([a.memberEpoch, named(h, a.assignment?.topicPartitions)], [7, { t: [0, 1, 2, 3] }]);
    sgHeartbeat(h, { memberId: 'member-a', epoch: -1 });
    const d = sgDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch, d.members], ['Empty', 8, 8, []]);
  });

  it('a member whose session expires is fenced; the others get its partitions at their next heartbeat', () => {
    const h = twoMembers();
    sgBeat(h, 'member-a', 4);
    h.advance(30_000);
    sgBeat(h, 'member-a', 4);
    h.advance(15_001);
    // B's session (45 s) expired; A's (heartbeat at 30 s) did not.
    assert.deepEqual(sgDescribe(h).members.map((m) => m.memberId), ['member-a']);
    const a = sgBeat(h, 'member-a', 4);
    assert.deepEqual([a.memberEpoch, named(h, a.assignment?.topicPartitions)], [5, { t: [0, 1, 2, 3] }]);
    h.advance(45_001);
    const d = sgDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch], ['Empty', 6, 6]);
  });

  it('a restart replays the same groups, initialized partitions included', () => {
    const h = twoMembers();
    const before = sgDescribe(h);
    const r = h.restart({ shareGroupAssignmentIntervalMs: 0 });
    assert.deepEqual(sgDescribe(r), before);
    // The partitions are known initialized: a new member is assigned at once, nothing is asked.
    const c = sgJoin(r, 'member-c');
    assert.deepEqual([c.memberEpoch, named(r, c.assignment?.topicPartitions)], [5, { t: [0] }]);
    assert.deepEqual(r.pendingShareInitializations, []);
    // Each replayed member has a session again.
    r.advance(45_001);
    assert.equal(sgDescribe(r).groupState, 'Empty');
  });

  it('a failed append takes a join back', () => {
    const h = twoMembers();
    const before = sgDescribe(h);
    h.holdAppends();
    const c = sgHeartbeat(h, { memberId: 'member-c', epoch: 0, topics: ['t'] });
    h.failAppends(ErrorCode.NOT_COORDINATOR);
    assert.equal(c.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(sgDescribe(h), before);
    assert.equal(sgBeat(h, 'member-a', 4).memberEpoch, 4);
    assert.equal(sgHeartbeat(h, { memberId: 'member-c', epoch: 1 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a failed initialization is forgotten, and the next heartbeat asks again; so does one after group.share.initialize.retry.interval.ms', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    sgJoin(h, 'member-a');
    assert.equal(h.initializeShareGroupState(false).length, 1);
    sgBeat(h, 'member-a', 2);
    assert.equal(h.pendingShareInitializations.length, 1, 'asked again');
    h.pendingShareInitializations.splice(0);
    sgBeat(h, 'member-a', 2);
    assert.equal(h.pendingShareInitializations.length, 0, 'initializing: not asked again yet');
    h.advance(30_000);
    sgBeat(h, 'member-a', 2);
    assert.equal(h.pendingShareInitializations.length, 1, 'still initializing after the retry interval: asked again');
    h.initializeShareGroupState();
    assert.deepEqual(named(h, sgBeat(h, 'member-a', 2).assignment?.topicPartitions), { t: [0, 1] });
  });

  it('partitions added to a topic are initialized from the start (offset 0) and then assigned', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    sgJoin(h, 'member-a');
    h.initializeShareGroupState();
    assert.equal(sgBeat(h, 'member-a', 2).memberEpoch, 3);
    h.setTopics({ t: 3 });
    const a = sgBeat(h, 'member-a', 3);
    assert.equal(a.memberEpoch, 4, 'new metadata bumps the epoch');
    assert.deepEqual(h.pendingShareInitializations.map((r) => r.topics.map((t) => t.partitions.map((p) => [p.partition, p.startOffset]))), [[[[2, 0n]]]]);
    h.initializeShareGroupState();
    const b = sgBeat(h, 'member-a', 4);
    assert.deepEqual([b.memberEpoch, named(h, b.assignment?.topicPartitions)], [5, { t: [0, 1, 2] }]);
  });

  it('tells its group events: joined, rebalance started and completed, removed', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    const ctx = { requestId: 1, apiVersion: 1, clientId: 'c', clientHost: '/h', nowMs: h.nowMs };
    const r = h.coordinator.shareGroupHeartbeat(ctx, { groupId: 'g', memberId: 'm', memberEpoch: 0, rackId: null, subscribedTopicNames: ['t'] });
    // The member's assignment step (for the flight recorder) comes after the rebalance it belongs to starts.
    assert.deepEqual(r.events.map((e) => e.type), ['member-joined', 'rebalance-started', 'member-reconciled', 'rebalance-completed']);
    assert.ok(r.events.every((e) => 'groupType' in e && e.groupType === 'share'));
    const left = h.coordinator.shareGroupHeartbeat({ ...ctx, requestId: 2 }, { groupId: 'g', memberId: 'm', memberEpoch: -1, rackId: null, subscribedTopicNames: null });
    assert.deepEqual(left.events.map((e) => [e.type, 'cause' in e ? e.cause : null]), [['member-removed', 'left'], ['rebalance-started', null], ['rebalance-completed', null]]);
    assert.deepEqual(h.coordinator.groupSummaries(), [{ groupId: 'g', groupType: 'share', state: 'Empty', members: 0, generation: 3 }]);
  });
});

describe('coordinator: the other group APIs and share groups', { timeout: 10_000 }, () => {
  it('ShareGroupDescribe: unknown and other-type groups are GROUP_ID_NOT_FOUND with Kafka 4.4 messages', () => {
    const h = twoMembers();
    h.send('OffsetCommit', 9, {
      groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    const groups = h.send('ShareGroupDescribe', 1, { groupIds: ['unknown', 'simple'], includeAuthorizedOperations: false }).answer.groups;
    assert.deepEqual(groups.map((g) => [g.groupId, g.errorCode, g.errorMessage]), [
      ['unknown', ErrorCode.GROUP_ID_NOT_FOUND, 'Group unknown not found.'],
      ['simple', ErrorCode.GROUP_ID_NOT_FOUND, 'Group simple is not a share group.'],
    ]);
    const join = sgHeartbeat(h, { group: 'simple', memberId: 'member-a', epoch: 0, topics: ['t'] }).answer;
    assert.deepEqual([join.errorCode, join.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Group simple is not a share group.']);
  });

  it('ListGroups lists share groups with type and protocol type share, by state and type (Kafka 4.4)', () => {
    const h = twoMembers();
    const list = (statesFilter: string[], typesFilter: string[]): unknown => h.send('ListGroups', 5, { statesFilter, typesFilter }).answer.groups;
    assert.deepEqual(list([], ['share']), [{ groupId: 'g', protocolType: 'share', groupState: 'Stable', groupType: 'share' }]);
    assert.deepEqual(list([], ['consumer']), []);
    assert.deepEqual(list(['stable'], []), [{ groupId: 'g', protocolType: 'share', groupState: 'Stable', groupType: 'share' }]);
    assert.deepEqual(list(['Empty'], []), []);
  });

  it('DescribeGroups shows a share group as Dead; DeleteGroups takes only an Empty one; JoinGroup, Heartbeat, OffsetCommit and OffsetDelete are refused, OffsetFetch finds nothing (Kafka 4.4)', () => {
    const h = twoMembers();
    const described = h.send('DescribeGroups', 6, { groups: ['g'], includeAuthorizedOperations: false }).answer.groups[0]!;
    assert.deepEqual([described.errorCode, described.groupState, described.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Dead', 'Group g is not a classic group.']);
    assert.equal(h.send('DeleteGroups', 2, { groupsNames: ['g'] }).answer.results[0]!.errorCode, ErrorCode.NON_EMPTY_GROUP);
    const join = h.send('JoinGroup', 9, {
      groupId: 'g', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
    }).answer;
    assert.deepEqual([join.errorCode, join.memberId], [ErrorCode.INCONSISTENT_GROUP_PROTOCOL, '']);
    const commit = h.send('OffsetCommit', 9, {
      groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    }).answer;
    assert.equal(commit.topics[0]!.partitions[0]!.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    const fetched = h.send('OffsetFetch', 9, { requireStable: false, groups: [{ groupId: 'g', memberId: 'member-a', memberEpoch: 4, topics: [{ name: 't', partitionIndexes: [0] }] }] }).answer.groups![0]!;
    assert.deepEqual([fetched.errorCode, fetched.topics[0]!.partitions[0]!.committedOffset], [ErrorCode.NONE, -1n], 'no offsets, no error');
    assert.equal(h.send('OffsetDelete', 0, { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] }).answer.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(h.send('Heartbeat', 4, { groupId: 'g', generationId: 1, memberId: 'member-a', groupInstanceId: null }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    sgHeartbeat(h, { memberId: 'member-a', epoch: -1 });
    sgHeartbeat(h, { memberId: 'member-b', epoch: -1 });
    const from = h.log.length;
    assert.equal(h.send('DeleteGroups', 2, { groupsNames: ['g'] }).answer.results[0]!.errorCode, ErrorCode.NONE);
    assert.deepEqual(recordTypes(h, from), [T.ShareGroupTargetAssignmentMetadata, T.ShareGroupStatePartitionMetadata, T.ShareGroupMetadata]);
    assert.ok(h.log.slice(from).every((r) => r.value === null), 'tombstones');
    assert.equal(sgDescribe(h).errorMessage, 'Group g not found.');
    assert.deepEqual(h.restart().coordinator.groupIds(), [], 'the tombstones replay to no group');
  });
});
