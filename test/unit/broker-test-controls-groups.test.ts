/**
 * Group controls: `expireMember` ends a member's session at once (no time passes on the
 * manual clock), for a classic group and a KIP-848 consumer group alike; `triggerRebalance`
 * starts a classic group's rebalance, which its member learns from its next Heartbeat
 * (REBALANCE_IN_PROGRESS, Kafka's answer) and completes by rejoining; for a consumer, share
 * or streams group it bumps the group epoch, which the member's next heartbeat moves to with
 * the same partitions or tasks (a new target assignment from unchanged members and topics).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { wordCountTopology } from '../support/coordinator/streams.js';

const T = { timeout: 20_000 };
const CONSUMER_METADATA = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ broker: Awaited<ReturnType<typeof startBrook>>; conn: RawConnection }> {
  const broker = await startBrook({ clock: 'manual' });
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  return { broker, conn };
}

async function joinClassic(conn: RawConnection, groupId: string, memberId = ''): Promise<{ memberId: string; generationId: number }> {
  const joined = await conn.request('JoinGroup', 3, {
    groupId, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: CONSUMER_METADATA }], reason: null,
  });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const synced = await conn.request('SyncGroup', 3, { groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] });
  assert.equal(synced.errorCode, ErrorCode.NONE);
  return { memberId: joined.memberId, generationId: joined.generationId };
}

test('expireMember removes a classic member at once; an unknown member is refused', T, async (t) => {
  const { broker, conn } = await setup(t);
  const { memberId } = await joinClassic(conn, 'expired');
  await broker.waitForGroupState('expired', 'Stable', { timeoutMs: 5000 });
  const before = broker.context.clock.nowMs();
  await assert.rejects(broker.expireMember('expired', 'someone-else'), /has no member/);
  await broker.expireMember('expired', memberId);
  assert.equal(broker.context.clock.nowMs(), before, 'no time passed');
  const described = await conn.request('DescribeGroups', 3, { groups: ['expired'], includeAuthorizedOperations: false });
  assert.deepEqual([described.groups[0]!.groupState, described.groups[0]!.members.length], ['Empty', 0]);
  const hb = await conn.request('Heartbeat', 3, { groupId: 'expired', generationId: 1, memberId, groupInstanceId: null });
  assert.equal(hb.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('expireMember fences a consumer group member (KIP-848): its next heartbeat is UNKNOWN_MEMBER_ID', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('cg', 1);
  const memberId = 'member-one-aaaaaaaaaa';
  const joined = await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: 'cg-expired', memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['cg'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  await broker.expireMember('cg-expired', memberId);
  await broker.waitForGroupState('cg-expired', 'Empty', { timeoutMs: 0 });
  const beat = await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: 'cg-expired', memberId, memberEpoch: joined.memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
    subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
  });
  assert.equal(beat.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('triggerRebalance: the member hears REBALANCE_IN_PROGRESS, rejoins, and the generation moves on', T, async (t) => {
  const { broker, conn } = await setup(t);
  const first = await joinClassic(conn, 'rebalanced');
  await broker.triggerRebalance('rebalanced');
  await broker.waitForGroupState('rebalanced', 'PreparingRebalance', { timeoutMs: 0 });
  const hb = await conn.request('Heartbeat', 3, { groupId: 'rebalanced', generationId: first.generationId, memberId: first.memberId, groupInstanceId: null });
  assert.equal(hb.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  const second = await joinClassic(conn, 'rebalanced', first.memberId);
  assert.deepEqual([second.memberId, second.generationId], [first.memberId, first.generationId + 1]);
  await broker.waitForGroupState('rebalanced', 'Stable', { timeoutMs: 0 });
  await assert.rejects(broker.triggerRebalance('no-such-group'), /cannot rebalance now/);
});

test('triggerRebalance of a consumer group (KIP-848): the group epoch moves on, the next heartbeat brings the member to it with its partitions', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('cg-topic', 2);
  const memberId = 'member-two-bbbbbbbbbbb';
  const beat = (memberEpoch: number, topicPartitions: { topicId: string; partitions: number[] }[] | null) => conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: 'cg-bumped', memberId, memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
    subscribedTopicNames: memberEpoch === 0 ? ['cg-topic'] : null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions,
  });
  const joined = await beat(0, []);
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const epoch = joined.memberEpoch;
  const owned = joined.assignment!.topicPartitions.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions].sort() }));
  assert.deepEqual(owned.flatMap((tp) => tp.partitions), [0, 1]);
  const stable = await beat(epoch, owned);
  assert.equal(stable.memberEpoch, epoch);
  await broker.waitForGroupState('cg-bumped', 'Stable', { timeoutMs: 0 });

  await broker.triggerRebalance('cg-bumped');
  const described = await conn.request('ConsumerGroupDescribe', 0, { groupIds: ['cg-bumped'], includeAuthorizedOperations: false });
  const group = described.groups[0]!;
  assert.deepEqual([group.groupEpoch, group.assignmentEpoch, group.members[0]!.memberEpoch], [epoch + 1, epoch, epoch]);

  // A target assignment is computed at most once per group.consumer.assignment.interval.ms (1 s).
  await broker.advanceTime(1_000);
  const next = await beat(epoch, owned);
  assert.equal(next.errorCode, ErrorCode.NONE);
  assert.equal(next.memberEpoch, epoch + 1);
  const after = await conn.request('ConsumerGroupDescribe', 0, { groupIds: ['cg-bumped'], includeAuthorizedOperations: false });
  assert.deepEqual([after.groups[0]!.groupEpoch, after.groups[0]!.assignmentEpoch, after.groups[0]!.groupState], [epoch + 1, epoch + 1, 'Stable']);
  const assigned = after.groups[0]!.members[0]!.assignment.topicPartitions.flatMap((tp) => tp.partitions).sort();
  assert.deepEqual(assigned, [0, 1], 'the same partitions: nothing about the members or topics changed');
});

test('triggerRebalance of a share group bumps its group epoch; an empty consumer group is refused', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('sg-topic', 1);
  const memberId = 'member-three-ccccccccc';
  const joined = await conn.request('ShareGroupHeartbeat', 1, { groupId: 'sg-bumped', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['sg-topic'] });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const describe = async (): Promise<{ groupEpoch: number; assignmentEpoch: number }> => {
    const g = (await conn.request('ShareGroupDescribe', 1, { groupIds: ['sg-bumped'], includeAuthorizedOperations: false })).groups[0]!;
    return { groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch };
  };
  const before = await describe();
  await broker.triggerRebalance('sg-bumped');
  assert.deepEqual(await describe(), { groupEpoch: before.groupEpoch + 1, assignmentEpoch: before.assignmentEpoch });
  // A share group computes a target assignment at most once per group.share.assignment.interval.ms (1 s).
  await broker.advanceTime(1_000);
  const next = await conn.request('ShareGroupHeartbeat', 1, { groupId: 'sg-bumped', memberId, memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null });
  assert.equal(next.errorCode, ErrorCode.NONE);
  assert.equal(next.memberEpoch, before.groupEpoch + 1);
  assert.deepEqual(await describe(), { groupEpoch: before.groupEpoch + 1, assignmentEpoch: before.groupEpoch + 1 });

  await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: 'cg-left', memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['sg-topic'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  await broker.expireMember('cg-left', memberId);
  await assert.rejects(broker.triggerRebalance('cg-left'), /cannot rebalance now/);
});

test('triggerRebalance of a streams group (KIP-1071) bumps its group epoch; the next heartbeat brings the member to it with its tasks', T, async (t) => {
  const broker = await startBrook({ groupStreamsInitialRebalanceDelayMs: 0, groupStreamsAssignmentIntervalMs: 0 });
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  broker.createTopic('input', 2);
  const join = {
    groupId: 'app', memberId: 'm1', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    topology: wordCountTopology(), activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'process-m1', userEndpoint: null, clientTags: [],
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
  };
  const first = await conn.request('StreamsGroupHeartbeat', 1, join);
  assert.equal(first.errorCode, ErrorCode.NONE);
  const beat = (memberEpoch: number, activeTasks: { subtopologyId: string; partitions: number[] }[]) =>
    conn.request('StreamsGroupHeartbeat', 1, { ...join, memberEpoch, topology: null, processId: null, clientTags: null, activeTasks });
  const second = await beat(first.memberEpoch, []);
  const tasks = (second.activeTasks ?? []).map((x) => ({ subtopologyId: x.subtopologyId, partitions: [...x.partitions].sort() }));
  assert.equal(tasks.reduce((n, x) => n + x.partitions.length, 0), 4);
  const epoch = second.memberEpoch;
  await beat(epoch, tasks);
  await broker.waitForGroupState('app', 'Stable', { timeoutMs: 0 });

  await broker.triggerRebalance('app');
  const described = (await conn.request('StreamsGroupDescribe', 1, { groupIds: ['app'], includeAuthorizedOperations: false })).groups[0]!;
  assert.deepEqual([described.groupEpoch, described.assignmentEpoch], [epoch + 1, epoch]);
  const next = await beat(epoch, tasks);
  assert.deepEqual([next.errorCode, next.memberEpoch], [ErrorCode.NONE, epoch + 1]);
  const after = (await conn.request('StreamsGroupDescribe', 1, { groupIds: ['app'], includeAuthorizedOperations: false })).groups[0]!;
  assert.deepEqual([after.groupEpoch, after.assignmentEpoch, after.groupState], [epoch + 1, epoch + 1, 'Stable']);
  assert.equal(after.members[0]!.assignment.activeTasks.reduce((n, x) => n + x.partitions.length, 0), 4, 'the same tasks: nothing changed');
});
