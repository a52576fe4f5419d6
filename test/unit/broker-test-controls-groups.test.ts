/**
 * Group controls: `expireMember` ends a member's session at once (no time passes on the
 * manual clock), for a classic group and a KIP-848 consumer group alike; `triggerRebalance`
 * starts a classic group's rebalance, which its member learns from its next Heartbeat
 * (REBALANCE_IN_PROGRESS, Kafka's answer) and completes by rejoining.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

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
  await assert.rejects(broker.triggerRebalance('no-such-group'), /not a classic group/);
});
