/**
 * A streams group (KIP-1071) through the other group APIs, as Kafka 4.4 answers them:
 * ListGroups (type and protocol type "streams", StreamsGroupState names), DescribeGroups (a
 * non-classic group: Dead, GROUP_ID_NOT_FOUND "Group g is not a classic group." from v6),
 * DeleteGroups (StreamsGroup.validateDeleteGroup: NON_EMPTY_GROUP unless Empty; the tombstones
 * of createGroupTombstoneRecords), OffsetCommit and OffsetFetch with member epochs
 * (StreamsGroup.validateOffsetCommit / validateOffsetFetch in the 4.4 bytecode:
 * UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH for a newer epoch, UNSUPPORTED_VERSION below v9).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ConsumerOffsetsRecordType as T } from '../../src/protocol/coordinator-records/record-types.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { ScriptedAssignor, shb, streamsDescribe } from '../support/coordinator/streams.js';

function oneMember(assignor = new ScriptedAssignor()): CoordinatorHarness {
  assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
  const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ streamsGroupAssignor: assignor, streamsGroupInitialRebalanceDelayMs: 0, streamsGroupAssignmentIntervalMs: 0 })));
  h.setTopics({ input: 2, 'app-repartition': 2, 'app-store-changelog': 2 });
  assert.equal(shb(h, { memberId: 'a', epoch: 0 }).answer.memberEpoch, 2);
  return h;
}

function commit(h: CoordinatorHarness, version: number, memberId: string, epoch: number, partitionIndex = 0): number {
  const r = h.send('OffsetCommit', version, {
    groupId: 'app', generationIdOrMemberEpoch: epoch, memberId, groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'input', partitions: [{ partitionIndex, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  }).answer;
  return r.topics[0]!.partitions[0]!.errorCode;
}

describe('coordinator: streams groups in the other group APIs', { timeout: 10_000 }, () => {
  it('ListGroups and DescribeGroups', () => {
    const h = oneMember();
    const list = (statesFilter: string[], typesFilter: string[]): unknown => h.send('ListGroups', 5, { statesFilter, typesFilter }).answer.groups;
    const listed = [{ groupId: 'app', protocolType: 'streams', groupState: 'Stable', groupType: 'streams' }];
    assert.deepEqual(list([], ['streams']), listed);
    assert.deepEqual(list([], ['consumer']), []);
    assert.deepEqual(list(['stable'], []), listed);
    assert.deepEqual(list(['NotReady'], []), []);
    const d = h.send('DescribeGroups', 6, { groups: ['app'], includeAuthorizedOperations: false }).answer.groups[0]!;
    assert.deepEqual([d.errorCode, d.groupState, d.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Dead', 'Group app is not a classic group.']);
  });

  it('OffsetCommit at an older member epoch: only for tasks the member got at that epoch or before (Kafka 4.4 assignment epochs)', () => {
    const assignor = new ScriptedAssignor();
    const h = oneMember(assignor);
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    assert.equal(shb(h, { memberId: 'b', epoch: 0 }).answer.memberEpoch, 3);
    assert.equal(shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer.memberEpoch, 2);
    assert.equal(shb(h, { memberId: 'a', epoch: 2, active: { 0: [0], 1: [0] }, standby: {}, warmup: {} }).answer.memberEpoch, 3);
    assert.equal(shb(h, { memberId: 'b', epoch: 3, active: {}, standby: {}, warmup: {} }).answer.memberEpoch, 3);
    // A has held task 0_0 since epoch 2; B got 0_1 at epoch 3.
    assert.equal(commit(h, 9, 'a', 2, 0), ErrorCode.NONE);
    assert.equal(commit(h, 9, 'a', 2, 1), ErrorCode.STALE_MEMBER_EPOCH);
    assert.equal(commit(h, 9, 'b', 2, 1), ErrorCode.STALE_MEMBER_EPOCH);
    assert.equal(commit(h, 9, 'b', 3, 1), ErrorCode.NONE);
    // The epochs are in the current assignment records: a restarted coordinator has them.
    const restarted = h.restart({ streamsGroupAssignor: assignor, streamsGroupInitialRebalanceDelayMs: 0, streamsGroupAssignmentIntervalMs: 0 });
    assert.deepEqual([commit(restarted, 9, 'a', 2, 0), commit(restarted, 9, 'b', 2, 1)], [ErrorCode.NONE, ErrorCode.STALE_MEMBER_EPOCH]);
  });

  it('OffsetCommit and OffsetFetch check the member and its epoch', () => {
    const h = oneMember();
    assert.equal(commit(h, 9, 'a', 2), ErrorCode.NONE);
    assert.equal(commit(h, 9, 'zz', 2), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(commit(h, 9, 'a', 3), ErrorCode.STALE_MEMBER_EPOCH);
    assert.equal(commit(h, 8, 'a', 2), ErrorCode.UNSUPPORTED_VERSION);
    const fetch = (memberId: string, memberEpoch: number) => h.send('OffsetFetch', 9, {
      requireStable: false,
      groups: [{ groupId: 'app', memberId, memberEpoch, topics: [{ name: 'input', partitionIndexes: [0] }] }],
    }).answer.groups![0]!;
    const ok = fetch('a', 2);
    assert.deepEqual([ok.errorCode, ok.topics[0]!.partitions[0]!.committedOffset], [ErrorCode.NONE, 5n]);
    assert.equal(fetch('a', 1).errorCode, ErrorCode.STALE_MEMBER_EPOCH);
    assert.equal(fetch('zz', 2).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('DeleteGroups: only an Empty group, its offsets first, then its tombstones', () => {
    const h = oneMember();
    commit(h, 9, 'a', 2);
    assert.equal(h.send('DeleteGroups', 2, { groupsNames: ['app'] }).answer.results[0]!.errorCode, ErrorCode.NON_EMPTY_GROUP);
    shb(h, { memberId: 'a', epoch: -1 });
    const from = h.log.length;
    assert.equal(h.send('DeleteGroups', 2, { groupsNames: ['app'] }).answer.results[0]!.errorCode, ErrorCode.NONE);
    assert.deepEqual(h.log.slice(from).map((r) => r.key.readInt16BE(0)), [T.OffsetCommit, T.StreamsGroupTargetAssignmentMetadata, T.StreamsGroupTopology, T.StreamsGroupMetadata]);
    assert.ok(h.log.slice(from).every((r) => r.value === null));
    assert.equal(streamsDescribe(h).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.deepEqual(h.restart().coordinator.groupIds(), [], 'the tombstones replay to no group');
  });

  it('another type of group with the id: not a streams group', () => {
    const h = oneMember();
    const c = h.send('ConsumerGroupHeartbeat', 0, {
      groupId: 'app', memberId: 'c', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 1000,
      subscribedTopicNames: ['input'], serverAssignor: null, topicPartitions: [],
    }).answer;
    assert.deepEqual([c.errorCode, c.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Group app is not a consumer group.']);
    const s = shb(h, { group: 'other', memberId: 'x', epoch: 1 }).answer;
    assert.deepEqual([s.errorCode, s.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Streams group other not found.']);
  });
});
