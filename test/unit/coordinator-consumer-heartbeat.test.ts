import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named } from '../support/coordinator/consumer.js';

describe('coordinator: ConsumerGroupHeartbeat joins and reconciliation', { timeout: 10_000 }, () => {
  it('a first member gets every partition at group epoch 2: a new group starts at 1 (GroupMetadataManagerTest.testMemberJoinsEmptyConsumerGroup, KAFKA-20268)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    const r = cgJoin(h, { memberId: 'A' });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.memberId, 'A');
    assert.equal(r.memberEpoch, 2);
    assert.equal(r.heartbeatIntervalMs, 5000);
    assert.deepEqual(named(h, r.assignment?.topicPartitions), { t: [0, 1, 2, 3] });
    const d = cgDescribe(h);
    assert.equal(d.groupState, 'Stable');
    assert.equal(d.groupEpoch, 2);
    assert.equal(d.assignmentEpoch, 2);
    assert.equal(d.assignorName, 'uniform');
  });

  it('a second member waits for the partitions the first revokes (testReconciliationProcess)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    cgJoin(h, { memberId: 'A' });
    const b = cgJoin(h, { memberId: 'B' });
    assert.equal(b.memberEpoch, 3);
    assert.deepEqual(named(h, b.assignment?.topicPartitions), {});
    let a = cgBeat(h, 'A', 2, { t: [0, 1, 2, 3] });
    assert.equal(a.memberEpoch, 2, 'A stays at epoch 2 until it revokes');
    const kept = named(h, a.assignment?.topicPartitions)!.t!;
    assert.equal(kept.length, 2);
    assert.equal(cgDescribe(h).groupState, 'Reconciling');
    // Still owning what it must give up: no progress, for A or for B.
    assert.equal(cgBeat(h, 'A', 2, { t: [0, 1, 2, 3] }).memberEpoch, 2);
    assert.deepEqual(named(h, cgHeartbeat(h, { memberId: 'B', epoch: 3, owned: {}, rebalanceTimeoutMs: 300_000, topics: ['t'] }).answer.assignment?.topicPartitions), {});
    a = cgBeat(h, 'A', 2, { t: kept });
    assert.equal(a.memberEpoch, 3);
    assert.equal(a.assignment, null, 'unchanged assignment is not sent again');
    const b2 = cgBeat(h, 'B', 3, {});
    assert.deepEqual(named(h, b2.assignment?.topicPartitions), { t: [0, 1, 2, 3].filter((p) => !kept.includes(p)) });
    assert.equal(cgDescribe(h).groupState, 'Stable');
    const all = assignments(h);
    assert.deepEqual(all['A']!.current, all['A']!.target);
    assert.deepEqual(all['B']!.current, all['B']!.target);
  });

  it('sends the assignment again to a member listing partitions it must revoke, which may have missed the answer (Brook; Kafka sends nothing)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    const kept = named(h, cgBeat(h, 'A', 2, { t: [0, 1, 2, 3] }).assignment?.topicPartitions)!.t!;
    assert.equal(kept.length, 2);
    // The answer above was lost: A acknowledges the assignment it had, owning all four.
    const again = cgBeat(h, 'A', 2, { t: [0, 1, 2, 3] });
    assert.deepEqual([again.memberEpoch, named(h, again.assignment?.topicPartitions)], [2, { t: kept }]);
    assert.equal(cgBeat(h, 'A', 2).assignment, null, 'not saying what it owns: nothing to correct');
    const done = cgBeat(h, 'A', 2, { t: kept });
    assert.deepEqual([done.memberEpoch, done.assignment], [3, null], 'owning its assignment: nothing sent');
  });

  it('version 0 lets the coordinator choose the member id; version 1 requires one (KIP-1082)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    const v0 = cgHeartbeat(h, { memberId: '', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {}, version: 0 }).answer;
    assert.equal(v0.errorCode, ErrorCode.NONE);
    assert.equal(v0.memberId, 'uuid-1');
    const v1 = cgHeartbeat(h, { memberId: '', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {}, version: 1 }).answer;
    assert.equal(v1.errorCode, ErrorCode.INVALID_REQUEST);
  });
});

describe('coordinator: ConsumerGroupHeartbeat validation and fencing', { timeout: 10_000 }, () => {
  it('refuses invalid requests with INVALID_REQUEST, as GroupCoordinatorService does', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    const code = (o: Parameters<typeof cgHeartbeat>[1], version = 1): number => cgHeartbeat(h, { ...o, version }).answer.errorCode;
    const join = { memberId: 'A', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} };
    assert.equal(code({ ...join, group: '' }), ErrorCode.INVALID_REQUEST, 'empty group id');
    assert.equal(code({ ...join, memberId: ' ' }), ErrorCode.INVALID_REQUEST, 'blank member id');
    assert.equal(code({ ...join, instanceId: '' }), ErrorCode.INVALID_REQUEST, 'empty instance id');
    assert.equal(code({ ...join, rackId: '' }), ErrorCode.INVALID_REQUEST, 'empty rack id');
    assert.equal(code({ ...join, rebalanceTimeoutMs: -1 }), ErrorCode.INVALID_REQUEST, 'no rebalance timeout in a join');
    assert.equal(code({ ...join, owned: null }), ErrorCode.INVALID_REQUEST, 'no owned partitions in a join');
    assert.equal(code({ ...join, owned: { t: [0] } }), ErrorCode.INVALID_REQUEST, 'owned partitions in a join');
    assert.equal(code({ ...join, topics: null }), ErrorCode.INVALID_REQUEST, 'no subscription in a join');
    assert.equal(code({ memberId: 'A', epoch: -2 }), ErrorCode.INVALID_REQUEST, 'static leave without instance id');
    assert.equal(code({ memberId: 'A', epoch: -3 }), ErrorCode.INVALID_REQUEST, 'epoch below -2');
    assert.equal(code({ memberId: '', epoch: 1 }, 0), ErrorCode.INVALID_REQUEST, 'v0 heartbeat without member id');
    assert.equal(code({ ...join, assignor: 'sticky' }), ErrorCode.UNSUPPORTED_ASSIGNOR, 'an assignor the broker does not have');
    assert.equal(code({ ...join, topics: [] }), ErrorCode.NONE, 'an empty subscription is allowed');
  });

  it('answers GROUP_ID_NOT_FOUND and UNKNOWN_MEMBER_ID for heartbeats of unknown groups and members (testUnknownGroupId, testUnknownMemberIdJoinsConsumerGroup)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 1 }).answer.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    cgJoin(h, { memberId: 'A' });
    assert.equal(cgHeartbeat(h, { memberId: 'B', epoch: 1 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(cgHeartbeat(h, { memberId: 'B', epoch: -1 }).answer.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(cgHeartbeat(h, { group: 'other', memberId: 'B', epoch: -1 }).answer.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('fences a member ahead of its epoch, or behind it unless at the previous epoch owning a subset (testConsumerGroupMemberEpochValidation)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' }); // epoch 2, previous 0
    cgJoin(h, { memberId: 'B' }); // group epoch 3
    cgBeat(h, 'A', 2, { t: [0, 1] }); // A revokes one partition, stays at 2
    assert.equal(cgBeat(h, 'A', 2, { t: [0] }).memberEpoch, 3); // previous epoch 2
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 4, owned: { t: [0] } }).answer.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
    // The response with epoch 3 was lost: epoch 2 owning a subset is accepted...
    const lost = cgHeartbeat(h, { memberId: 'A', epoch: 2, owned: { t: [0] } }).answer;
    assert.equal(lost.errorCode, ErrorCode.NONE);
    assert.equal(lost.memberEpoch, 3);
    // ...but not with more than its assignment, nor without saying what it owns.
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 2, owned: { t: [0, 1] } }).answer.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 2 }).answer.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
    // A member that lost its place on its side joins again under its id (KAFKA-19233): it
    // gets its assignment back, at its epoch.
    const rejoin = cgHeartbeat(h, { memberId: 'A', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} }).answer;
    assert.deepEqual([rejoin.errorCode, rejoin.memberEpoch, named(h, rejoin.assignment?.topicPartitions)], [ErrorCode.NONE, 3, { t: [0] }]);
  });

  it('rejects a new member once group.consumer.max.size is reached, not the existing ones (testNewMemberIsRejectedWithMaximumMembersIsReached)', () => {
    const capped = new CoordinatorHarness(new GroupCoordinator(testConfig({ consumerGroupMaxSize: 2 })));
    capped.setTopics({ t: 2 });
    cgJoin(capped, { memberId: 'A' });
    cgJoin(capped, { memberId: 'B' });
    assert.equal(cgHeartbeat(capped, { memberId: 'C', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {} }).answer.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
    assert.equal(cgBeat(capped, 'B', 3, {}).errorCode, ErrorCode.NONE);
  });

  it('sends the assignment on a full request and when it changed, not on a plain heartbeat (testConsumerGroupHeartbeatFullResponse)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    assert.equal(cgBeat(h, 'A', 2, { t: [0, 1] }).assignment, null);
    const full = cgHeartbeat(h, { memberId: 'A', epoch: 2, rebalanceTimeoutMs: 1000, topics: ['t'], owned: { t: [0, 1] } }).answer;
    assert.deepEqual(named(h, full.assignment?.topicPartitions), { t: [0, 1] });
    const regexFull = cgHeartbeat(h, { memberId: 'A', epoch: 2, rebalanceTimeoutMs: 1000, regex: 'zzz', owned: { t: [0, 1] } }).answer;
    assert.notEqual(regexFull.assignment, null, 'a regex stands for the topic names in a full request');
  });

  it('a leaving member bumps the group epoch and its partitions go to the others (testLeavingMemberBumpsGroupEpoch)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    cgBeat(h, 'A', 2, { t: [0, 1] });
    cgBeat(h, 'A', 2, { t: [0] });
    cgBeat(h, 'B', 3, {});
    const left = cgHeartbeat(h, { memberId: 'B', epoch: -1 }).answer;
    assert.deepEqual({ errorCode: left.errorCode, memberId: left.memberId, memberEpoch: left.memberEpoch, heartbeatIntervalMs: left.heartbeatIntervalMs }, { errorCode: 0, memberId: 'B', memberEpoch: -1, heartbeatIntervalMs: 0 });
    assert.equal(cgDescribe(h).groupEpoch, 4);
    assert.equal(cgDescribe(h).groupState, 'Assigning');
    const a = cgBeat(h, 'A', 3, { t: [0] });
    assert.equal(a.memberEpoch, 4);
    assert.deepEqual(named(h, a.assignment?.topicPartitions), { t: [0, 1] });
  });

  it('a changed subscription bumps the group epoch and gives a new target (testNewJoiningMemberTriggersNewTargetAssignment)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1, u: 1 });
    cgJoin(h, { memberId: 'A' });
    const r = cgHeartbeat(h, { memberId: 'A', epoch: 2, topics: ['t', 'u'], owned: { t: [0] } }).answer;
    assert.equal(r.memberEpoch, 3);
    assert.deepEqual(named(h, r.assignment?.topicPartitions), { t: [0], u: [0] });
    // The same subscription again changes nothing.
    assert.equal(cgHeartbeat(h, { memberId: 'A', epoch: 3, topics: ['u', 't'], owned: { t: [0], u: [0] } }).answer.memberEpoch, 3);
    assert.equal(cgDescribe(h).groupEpoch, 3);
  });

  it('uses the assignor most members select, else the first of group.consumer.assignors', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    cgJoin(h, { memberId: 'A' });
    assert.equal(cgDescribe(h).assignorName, 'uniform');
    cgJoin(h, { memberId: 'B', assignor: 'range' });
    assert.equal(cgDescribe(h).assignorName, 'range');
    // range: by member id, consecutive ranges.
    assert.deepEqual(assignments(h)['A']!.target, { t: [0, 1] });
    assert.deepEqual(assignments(h)['B']!.target, { t: [2, 3] });
  });

  it('reports Kafka\'s group states: Empty, Assigning, Reconciling, Stable (testConsumerGroupStates)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    assert.equal(cgDescribe(h).groupState, 'Stable');
    cgJoin(h, { memberId: 'B' });
    assert.equal(cgDescribe(h).groupState, 'Reconciling');
    cgHeartbeat(h, { memberId: 'B', epoch: -1 });
    assert.equal(cgDescribe(h).groupState, 'Assigning', 'the epoch moved past the assignment epoch');
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    assert.equal(cgDescribe(h).groupState, 'Empty');
  });
});
