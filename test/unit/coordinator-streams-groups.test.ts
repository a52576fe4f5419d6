/**
 * Streams groups (KIP-1071) in the group coordinator, driven with an injected clock and a
 * task assignor the tests script (ScriptedAssignor), so that reconciliation is checked
 * against targets the test chose. Error codes and messages are Kafka 4.4's, from the bytecode
 * of kafka-group-coordinator-4.4.0.jar: GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsInvalid
 * and throwIfInvalidTopology (validation), GroupMetadataManager.throwIfStreamsGroupMemberEpochIsInvalid
 * (fencing, its makeConcatWithConstants recipes), maybeSetTopologyStaleStatus (stale topology),
 * getStreamsGroupOrThrow (unknown group). Member states are Kafka's streams MemberState bytes
 * (STABLE 1, UNREVOKED_TASKS 2, UNRELEASED_TASKS 3); group states StreamsGroupState's names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ConsumerOffsetsRecordType as T } from '../../src/protocol/coordinator-records/record-types.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { fromTaskIds, ScriptedAssignor, shb, streamsDescribe, wordCountTopology } from '../support/coordinator/streams.js';

const TOPICS = { input: 2, 'app-repartition': 2, 'app-store-changelog': 2 };

function harness(assignor = new ScriptedAssignor(), extra: Parameters<typeof testConfig>[0] = {}): { h: CoordinatorHarness; assignor: ScriptedAssignor } {
  const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ streamsGroupAssignor: assignor, streamsGroupInitialRebalanceDelayMs: 0, streamsGroupAssignmentIntervalMs: 0, ...extra })));
  h.setTopics(TOPICS);
  return { h, assignor };
}

function recordTypes(h: CoordinatorHarness, from = 0): number[] {
  return h.log.slice(from).map((r) => r.key.readInt16BE(0));
}

/** A alone owns every task at epoch 2. */
function oneMember(): { h: CoordinatorHarness; assignor: ScriptedAssignor } {
  const x = harness();
  x.assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
  const r = shb(x.h, { memberId: 'a', epoch: 0 }).answer;
  assert.deepEqual([r.errorCode, r.memberEpoch], [ErrorCode.NONE, 2]);
  return x;
}

describe('coordinator: StreamsGroupHeartbeat validation (Kafka 4.4 messages)', { timeout: 10_000 }, () => {
  const cases: [string, Parameters<typeof shb>[1], number, string][] = [
    ['empty member id', { memberId: ' ', epoch: 0 }, ErrorCode.INVALID_REQUEST, "MemberId can't be empty."],
    ['empty instance id', { memberId: 'a', epoch: 0, instanceId: '' }, ErrorCode.INVALID_REQUEST, "InstanceId can't be empty."],
    ['no rebalance timeout on join', { memberId: 'a', epoch: 0, rebalanceTimeoutMs: -1 }, ErrorCode.INVALID_REQUEST, 'RebalanceTimeoutMs must be provided in first request.'],
    ['owned tasks on join', { memberId: 'a', epoch: 0, active: { 0: [0] } }, ErrorCode.INVALID_REQUEST, 'ActiveTasks must be empty when (re-)joining.'],
    ['no topology on join', { memberId: 'a', epoch: 0, topology: null }, ErrorCode.INVALID_REQUEST, 'Topology must be non-null when (re-)joining.'],
    ['static leave without instance id', { memberId: 'a', epoch: -2 }, ErrorCode.INVALID_REQUEST, "InstanceId can't be null."],
    ['epoch below -2', { memberId: 'a', epoch: -3 }, ErrorCode.INVALID_REQUEST, 'MemberEpoch is -3, but must be greater than or equal to -2.'],
    ['one task type null', { memberId: 'a', epoch: 1, active: {}, standby: null, warmup: {} }, ErrorCode.INVALID_REQUEST, 'If one task-type is non-null, all must be non-null.'],
    ['topology after joining', { memberId: 'a', epoch: 1, topology: wordCountTopology() }, ErrorCode.INVALID_REQUEST, 'Topology can only be provided when (re-)joining.'],
  ];
  for (const [name, req, code, message] of cases) {
    it(name, () => {
      const { h } = harness();
      const r = shb(h, req).answer;
      assert.deepEqual([r.errorCode, r.errorMessage], [code, message]);
      assert.equal(h.log.length, 0);
    });
  }

  it('a changelog topic with a partition count is an invalid topology', () => {
    const { h } = harness();
    const topology = wordCountTopology();
    topology.subtopologies[1]!.stateChangelogTopics[0]!.partitions = 3;
    const r = shb(h, { memberId: 'a', epoch: 0, topology }).answer;
    assert.deepEqual([r.errorCode, r.errorMessage], [ErrorCode.STREAMS_INVALID_TOPOLOGY, 'Changelog topic app-store-changelog must have an undefined partition count, but it is set to 3.']);
  });

  it('an unknown group, an unknown member', () => {
    const { h } = oneMember();
    const g = shb(h, { group: 'other', memberId: 'a', epoch: 1 }).answer;
    assert.deepEqual([g.errorCode, g.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Streams group other not found.']);
    const m = shb(h, { memberId: 'zz', epoch: 1 }).answer;
    assert.deepEqual([m.errorCode, m.errorMessage], [ErrorCode.UNKNOWN_MEMBER_ID, 'Member zz is not a member of group app.']);
  });
});

describe('coordinator: StreamsGroupHeartbeat', { timeout: 10_000 }, () => {
  it('a first member initializes the topology, bumps the group epoch and gets its tasks (records as Kafka writes them)', () => {
    const { h, assignor } = oneMember();
    assert.deepEqual(recordTypes(h), [
      T.StreamsGroupMemberMetadata, T.StreamsGroupTopology, T.StreamsGroupMetadata, T.StreamsGroupTargetAssignmentMember,
      T.StreamsGroupTargetAssignmentMetadata, T.StreamsGroupCurrentMemberAssignment,
    ]);
    assert.equal(assignor.calls, 1);
    const d = streamsDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch, d.topology?.epoch], ['Stable', 2, 2, 0]);
    assert.deepEqual(d.members.map((m) => [m.memberId, m.memberEpoch, m.processId, fromTaskIds(m.assignment.activeTasks)]), [['a', 2, 'process-a', { 0: [0, 1], 1: [0, 1] }]]);
    // A heartbeat that changes nothing: no tasks in the answer, no records.
    const before = h.log.length;
    const r = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer;
    assert.deepEqual([r.memberEpoch, r.activeTasks, r.heartbeatIntervalMs, r.status], [2, null, 5000, []]);
    assert.equal(h.log.length, before);
  });

  it('the acceptable recovery lag (group.streams.acceptable.recovery.lag, 10000): an int32 at v0, an int64 at v1', () => {
    const { h } = harness();
    const v0 = shb(h, { memberId: 'a', epoch: 0, version: 0 }).answer;
    assert.deepEqual([v0.acceptableRecoveryLagLegacy, v0.acceptableRecoveryLag, v0.taskOffsetIntervalMs], [10_000, undefined, 60_000]);
    const v1 = shb(h, { memberId: 'b', epoch: 0, version: 1 }).answer;
    assert.deepEqual([v1.acceptableRecoveryLagLegacy, v1.acceptableRecoveryLag], [undefined, 10_000n]);
  });

  it('missing internal topics: NotReady, status MISSING_INTERNAL_TOPICS, and the broker is asked to create them', () => {
    const assignor = new ScriptedAssignor();
    const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ streamsGroupAssignor: assignor, streamsGroupInitialRebalanceDelayMs: 0, streamsGroupAssignmentIntervalMs: 0 })));
    h.setTopics({ input: 2 });
    const r = shb(h, { memberId: 'a', epoch: 0 }).answer;
    assert.deepEqual(r.status?.map((s) => s.statusCode), [3]);
    assert.deepEqual(fromTaskIds(r.activeTasks), {});
    assert.deepEqual(h.streamsInternalTopics.flatMap((x) => x.topics.map((t) => [t.name, t.numberOfPartitions])).sort(), [['app-repartition', 2], ['app-store-changelog', 2]]);
    assert.equal(streamsDescribe(h).groupState, 'NotReady');
    // The broker created them: the next heartbeat configures the topology, bumps the epoch and assigns.
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    h.setTopics(TOPICS);
    const r2 = shb(h, { memberId: 'a', epoch: r.memberEpoch, active: {}, standby: {}, warmup: {} }).answer;
    assert.deepEqual([r2.memberEpoch > r.memberEpoch, r2.status, fromTaskIds(r2.activeTasks)], [true, [], { 0: [0, 1], 1: [0, 1] }]);
    assert.equal(streamsDescribe(h).groupState, 'Stable');
  });

  it('a task moves only after its previous owner revoked it', () => {
    const { h, assignor } = oneMember();
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    const b1 = shb(h, { memberId: 'b', epoch: 0 }).answer;
    // B is at the new epoch but its tasks are still A's: UNRELEASED_TASKS, nothing yet.
    assert.deepEqual([b1.memberEpoch, fromTaskIds(b1.activeTasks)], [3, {}]);
    assert.equal(streamsDescribe(h).groupState, 'Reconciling');
    // A still owns everything: it keeps epoch 2 and is told to keep only its target.
    const a1 = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer;
    assert.deepEqual([a1.memberEpoch, fromTaskIds(a1.activeTasks)], [2, { 0: [0], 1: [0] }]);
    // B asks again: the tasks are still pending revocation at A.
    const b2 = shb(h, { memberId: 'b', epoch: 3, active: {}, standby: {}, warmup: {} }).answer;
    assert.deepEqual([b2.memberEpoch, b2.activeTasks], [3, null]);
    // A says it still owns them: nothing moves.
    const a2 = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer;
    assert.deepEqual([a2.memberEpoch, a2.activeTasks], [2, null]);
    // A revoked them: epoch 3; then B gets them.
    const a3 = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0], 1: [0] }, standby: {}, warmup: {} }).answer;
    assert.equal(a3.memberEpoch, 3);
    const b3 = shb(h, { memberId: 'b', epoch: 3, active: {}, standby: {}, warmup: {} }).answer;
    assert.deepEqual([b3.memberEpoch, fromTaskIds(b3.activeTasks)], [3, { 0: [1], 1: [1] }]);
    assert.equal(streamsDescribe(h).groupState, 'Stable');
  });

  it('a member that does not revoke within its rebalance timeout is fenced', () => {
    const { h, assignor } = oneMember();
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    shb(h, { memberId: 'b', epoch: 0 });
    shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} });
    h.advance(29_999);
    shb(h, { memberId: 'b', epoch: 3, active: {}, standby: {}, warmup: {} });
    assert.deepEqual(streamsDescribe(h).members.map((m) => m.memberId), ['a', 'b']);
    h.advance(1);
    assert.deepEqual(streamsDescribe(h).members.map((m) => m.memberId), ['b']);
  });

  it('fencing: an epoch ahead, or behind and not the previous one (Kafka 4.4 messages)', () => {
    const { h, assignor } = oneMember();
    const ahead = shb(h, { memberId: 'a', epoch: 3, active: {}, standby: {}, warmup: {} }).answer;
    assert.deepEqual([ahead.errorCode, ahead.errorMessage], [ErrorCode.FENCED_MEMBER_EPOCH,
      'The streams group member has a greater member epoch (3) than the one known by the group coordinator (2). The member must abandon all its partitions and rejoin.']);
    // A moves to epoch 3 (previous epoch 2) by giving up half its tasks.
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    shb(h, { memberId: 'b', epoch: 0 });
    shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} });
    assert.equal(shb(h, { memberId: 'a', epoch: 2, active: { 0: [0], 1: [0] }, standby: {}, warmup: {} }).answer.memberEpoch, 3);
    // Its previous epoch, owning no more than it has: accepted (a lost response).
    assert.equal(shb(h, { memberId: 'a', epoch: 2, active: { 0: [0] }, standby: {}, warmup: {} }).answer.errorCode, ErrorCode.NONE);
    // Its previous epoch owning a task it no longer has, or not saying what it owns: fenced.
    for (const active of [{ 0: [0, 1] }, null]) {
      const r = shb(h, { memberId: 'a', epoch: 2, active, standby: active === null ? null : {}, warmup: active === null ? null : {} }).answer;
      assert.deepEqual([r.errorCode, r.errorMessage], [ErrorCode.FENCED_MEMBER_EPOCH,
        'The streams group member has a smaller member epoch (2) than the one known by the group coordinator (3). The member must abandon all its partitions and rejoin.']);
    }
    // An epoch before the previous one.
    const old = shb(h, { memberId: 'a', epoch: 1, active: {}, standby: {}, warmup: {} }).answer;
    assert.equal(old.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
  });

  it('leaving (epoch -1) bumps the group epoch and tombstones the member', () => {
    const { h } = oneMember();
    const from = h.log.length;
    const r = shb(h, { memberId: 'a', epoch: -1 }).answer;
    assert.deepEqual([r.errorCode, r.memberId, r.memberEpoch, r.status], [ErrorCode.NONE, 'a', -1, []]);
    // The last member left: Kafka 4.4 also puts the (empty) target at the new epoch.
    assert.deepEqual(recordTypes(h, from), [
      T.StreamsGroupCurrentMemberAssignment, T.StreamsGroupTargetAssignmentMember, T.StreamsGroupMemberMetadata, T.StreamsGroupMetadata, T.StreamsGroupTargetAssignmentMetadata,
    ]);
    assert.deepEqual(h.log.slice(from, from + 3).map((x) => x.value), [null, null, null]);
    const d = streamsDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.members.length], ['Empty', 3, 0]);
  });

  it('owned tasks outside the configured topology are an invalid request (Kafka 4.4 messages)', () => {
    const { h } = oneMember();
    const sub = shb(h, { memberId: 'a', epoch: 2, active: { 7: [0] }, standby: {}, warmup: {} }).answer;
    assert.deepEqual([sub.errorCode, sub.errorMessage], [ErrorCode.INVALID_REQUEST, 'Subtopology 7 does not exist in the topology.']);
    const task = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0] }, standby: { 1: [2] }, warmup: {} }).answer;
    assert.deepEqual([task.errorCode, task.errorMessage], [ErrorCode.INVALID_REQUEST, 'Task 2 for subtopology 1 is invalid. Number of tasks for this subtopology: 2']);
  });

  it('rack-aware assignment tags: a change bumps the group epoch; a v1 member without them is told (Kafka 4.4 MISSING_CLIENT_TAGS)', () => {
    const group: { tags?: string[] } = {};
    const { h, assignor } = harness(new ScriptedAssignor(), { groupOverrides: () => ({ streamsRackAwareAssignmentTags: group.tags }) });
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    const a = shb(h, { memberId: 'a', epoch: 0, clientTags: { zone: 'z1' } }).answer;
    assert.deepEqual([a.memberEpoch, a.status], [2, []]);
    group.tags = ['zone', 'rack', 'row'];
    const a2 = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer;
    assert.deepEqual([a2.memberEpoch, a2.status], [3, [{
      statusCode: 6, statusDetail: "Missing required client tags for rack-aware standby assignment: [rack, row]. Configure them via 'client.tag.<tagKey>' in your Streams config.",
    }]]);
    // StreamsGroupHeartbeat v0 does not say so.
    assert.deepEqual(shb(h, { memberId: 'a', epoch: 3, version: 0 }).answer.status, []);
  });

  it('a changed streams.num.standby.replicas bumps the group epoch and reaches the assignor', () => {
    let standbys = 0;
    const assignor = new ScriptedAssignor();
    const seen: number[] = [];
    const inner = assignor.assign.bind(assignor);
    assignor.assign = (group) => {
      seen.push(group.configs.numStandbyReplicas);
      return inner(group);
    };
    const { h } = harness(assignor, { groupOverrides: () => ({ streamsNumStandbyReplicas: standbys }) });
    assert.equal(shb(h, { memberId: 'a', epoch: 0 }).answer.memberEpoch, 2);
    assert.equal(shb(h, { memberId: 'a', epoch: 2, active: {}, standby: {}, warmup: {} }).answer.memberEpoch, 2);
    standbys = 1;
    assert.equal(shb(h, { memberId: 'a', epoch: 2, active: {}, standby: {}, warmup: {} }).answer.memberEpoch, 3);
    assert.deepEqual(seen, [0, 1]);
    assert.equal(streamsDescribe(h).groupEpoch, 3);
  });

  it('the session timeout (group.streams.session.timeout.ms, 45 s) fences a silent member', () => {
    const { h } = oneMember();
    h.advance(44_999);
    assert.equal(streamsDescribe(h).members.length, 1);
    h.advance(1);
    assert.equal(streamsDescribe(h).members.length, 0);
  });

  it('a static member leaving with -2 keeps its tasks; its new member id takes them over', () => {
    const { h, assignor } = harness();
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] }, a2: { 0: [0, 1], 1: [0, 1] } };
    assert.equal(shb(h, { memberId: 'a', epoch: 0, instanceId: 'i1' }).answer.memberEpoch, 2);
    const left = shb(h, { memberId: 'a', epoch: -2, instanceId: 'i1' }).answer;
    assert.deepEqual([left.errorCode, left.memberEpoch], [ErrorCode.NONE, -2]);
    assert.deepEqual(streamsDescribe(h).members.map((m) => [m.memberId, m.memberEpoch]), [['a', -2]]);
    const back = shb(h, { memberId: 'a2', epoch: 0, instanceId: 'i1', processId: 'process-a' }).answer;
    assert.deepEqual([back.errorCode, back.memberEpoch, fromTaskIds(back.activeTasks)], [ErrorCode.NONE, 2, { 0: [0, 1], 1: [0, 1] }]);
    assert.deepEqual(streamsDescribe(h).members.map((m) => [m.memberId, m.memberEpoch, m.instanceId]), [['a2', 2, 'i1']]);
    // The old id is gone; a third id while a2 holds the instance id is refused.
    const other = shb(h, { memberId: 'a3', epoch: 0, instanceId: 'i1' }).answer;
    assert.equal(other.errorCode, ErrorCode.UNRELEASED_INSTANCE_ID);
  });

  it('a member joining with an older topology epoch gets STALE_TOPOLOGY', () => {
    const { h } = harness();
    shb(h, { memberId: 'a', epoch: 0, topology: wordCountTopology(1) });
    const b = shb(h, { memberId: 'b', epoch: 0, topology: wordCountTopology(0) }).answer;
    assert.deepEqual(b.status, [{ statusCode: 0, statusDetail: "The member's topology epoch 0 is behind the group's topology epoch 1." }]);
  });

  it('user endpoints: partitions by endpoint when the member\'s endpoint epoch is behind', () => {
    const { h, assignor } = harness();
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    const r = shb(h, { memberId: 'a', epoch: 0, userEndpoint: { host: 'h', port: 1 } }).answer;
    assert.ok(r.endpointInformationEpoch > 0);
    assert.deepEqual(r.partitionsByUserEndpoint?.map((e) => [e.userEndpoint.host, e.activePartitions.map((p) => [p.topic, p.partitions])]), [
      ['h', [['app-repartition', [0, 1]], ['input', [0, 1]]]],
    ]);
    const again = shb(h, { memberId: 'a', epoch: r.memberEpoch, endpointInformationEpoch: r.endpointInformationEpoch, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer;
    assert.equal(again.partitionsByUserEndpoint, null);
  });

  it('the initial rebalance delay holds the first assignment back', () => {
    const { h, assignor } = harness(new ScriptedAssignor(), { streamsGroupInitialRebalanceDelayMs: 3000 });
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    const r = shb(h, { memberId: 'a', epoch: 0 }).answer;
    assert.deepEqual([r.memberEpoch, fromTaskIds(r.activeTasks), assignor.calls], [1, {}, 0]);
    h.advance(3000);
    assert.equal(assignor.calls, 1);
    const r2 = shb(h, { memberId: 'a', epoch: 1, active: {}, standby: {}, warmup: {} }).answer;
    assert.deepEqual([r2.memberEpoch, fromTaskIds(r2.activeTasks)], [2, { 0: [0, 1], 1: [0, 1] }]);
  });

  it('while the initial rebalance delay runs, every heartbeat says so (Kafka 4.4 ASSIGNMENT_DELAYED)', () => {
    const { h, assignor } = harness(new ScriptedAssignor(), { streamsGroupInitialRebalanceDelayMs: 3000 });
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    const delayed = [{ statusCode: 5, statusDetail: 'Assignment delayed due to the configured initial rebalance delay.' }];
    assert.deepEqual(shb(h, { memberId: 'a', epoch: 0 }).answer.status, delayed);
    h.advance(2999);
    assert.deepEqual(shb(h, { memberId: 'a', epoch: 1, active: {}, standby: {}, warmup: {} }).answer.status, delayed);
    h.advance(1);
    assert.deepEqual(shb(h, { memberId: 'a', epoch: 1, active: {}, standby: {}, warmup: {} }).answer.status, []);
  });

  it('a new target waits for group.streams.assignment.interval.ms after the last one, told as ASSIGNMENT_DELAYED', () => {
    const { h, assignor } = harness(new ScriptedAssignor(), { streamsGroupAssignmentIntervalMs: 1000 });
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    const a = shb(h, { memberId: 'a', epoch: 0 }).answer;
    assert.deepEqual([a.memberEpoch, a.status, assignor.calls], [2, [], 1]);
    h.advance(999);
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    const b = shb(h, { memberId: 'b', epoch: 0 }).answer;
    // The group epoch moved (3), the assignment epoch stays 2: B waits with an empty target.
    assert.deepEqual([b.memberEpoch, b.status, assignor.calls], [2, [{ statusCode: 5, statusDetail: 'Assignment delayed due to the configured assignment interval.' }], 1]);
    assert.equal(streamsDescribe(h).groupState, 'Assigning');
    h.advance(1);
    // No timer: the next heartbeat after the interval computes the target.
    assert.equal(assignor.calls, 1);
    const a2 = shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} }).answer;
    assert.deepEqual([a2.memberEpoch, a2.status, fromTaskIds(a2.activeTasks), assignor.calls], [2, [], { 0: [0], 1: [0] }, 2]);
  });

  it('the last member leaving puts the empty target at the new group epoch, stamped 0 (Kafka 4.4)', () => {
    const { h, assignor } = harness(new ScriptedAssignor(), { streamsGroupAssignmentIntervalMs: 1000 });
    h.advance(10_000);
    assignor.plan = { a: { 0: [0, 1], 1: [0, 1] } };
    assert.equal(shb(h, { memberId: 'a', epoch: 0 }).answer.memberEpoch, 2);
    shb(h, { memberId: 'a', epoch: -1 });
    const d = streamsDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch], ['Empty', 3, 3]);
    // A new member at once is not held back by the assignment interval: its target comes now.
    assignor.plan = { b: { 0: [0, 1], 1: [0, 1] } };
    const b = shb(h, { memberId: 'b', epoch: 0 }).answer;
    assert.deepEqual([b.memberEpoch, b.status, fromTaskIds(b.activeTasks)], [4, [], { 0: [0, 1], 1: [0, 1] }]);
  });

  it('a failed append undoes the heartbeat: the group is as before and the member joins again', () => {
    const { h, assignor } = oneMember();
    const before = streamsDescribe(h);
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    h.holdAppends();
    const b = shb(h, { memberId: 'b', epoch: 0 });
    h.failAppends(ErrorCode.NOT_COORDINATOR);
    assert.equal(b.failedWith, ErrorCode.NOT_COORDINATOR);
    assert.deepEqual(streamsDescribe(h), before);
    assert.equal(shb(h, { memberId: 'b', epoch: 0 }).answer.memberEpoch, 3);
  });

  it('replaying the written records rebuilds the same group', () => {
    const { h, assignor } = oneMember();
    assignor.plan = { a: { 0: [0], 1: [0] }, b: { 0: [1], 1: [1] } };
    shb(h, { memberId: 'b', epoch: 0, clientTags: { zone: 'z1' }, userEndpoint: { host: 'b', port: 2 } });
    shb(h, { memberId: 'a', epoch: 2, active: { 0: [0, 1], 1: [0, 1] }, standby: {}, warmup: {} });
    const before = streamsDescribe(h);
    const restarted = h.restart({ streamsGroupAssignor: assignor, streamsGroupInitialRebalanceDelayMs: 0, streamsGroupAssignmentIntervalMs: 0 });
    const after = streamsDescribe(restarted);
    // The configured topology (internal topics' partition counts, the state's readiness) is
    // derived again at the next heartbeat, as in Kafka; everything the records hold is back.
    const held = (d: typeof before) => ({ ...d, groupState: '', topology: { epoch: d.topology?.epoch, subtopologies: d.topology?.subtopologies?.map((x) => x.subtopologyId) } });
    assert.deepEqual(held(after), held(before));
    assert.equal(after.groupState, 'NotReady');
    // A continues its revocation on the restarted coordinator.
    const a = shb(restarted, { memberId: 'a', epoch: 2, active: { 0: [0], 1: [0] }, standby: {}, warmup: {} }).answer;
    assert.equal(a.memberEpoch, 3);
    assert.deepEqual(streamsDescribe(restarted).topology, before.topology);
  });
});
