/**
 * Group membership against a disk that is slow or fails, through the storage's injectable
 * file system: the broker answers a ConsumerGroupHeartbeat once its records are in
 * `__consumer_offsets`, while their fsync is still running (as Kafka, which never waits for
 * one), and an offset commit only once it is durable. When that fsync then fails, the
 * storage cuts the log back to what is durable and the group coordinator, whose memory ran
 * ahead of it, unloads and loads again from the log: the member it had answered is unknown
 * there and joins again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Admin } from '../../src/index.js';
import { startFaultyBrook } from '../support/brook.js';

const TIMEOUT = { timeout: 60_000 };

async function startFaulty() {
  const started = await startFaultyBrook();
  const { broker } = started;
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  await admin.createTopic({ name: 't', partitions: 2 });
  admin.close();
  // Responses go out in request order on a connection: commits and heartbeats get one each.
  const members = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  const committer = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  const heartbeat = (memberId: string, memberEpoch: number) => members.request(Api.ConsumerGroupHeartbeat, {
    groupId: 'g', memberId, memberEpoch, instanceId: null, rackId: null,
    rebalanceTimeoutMs: memberEpoch === 0 ? 60_000 : -1,
    subscribedTopicNames: memberEpoch === 0 ? ['t'] : null, subscribedTopicRegex: null, serverAssignor: null,
    topicPartitions: memberEpoch === 0 ? [] : null,
  });
  const commit = (offset: bigint) => committer.request(Api.OffsetCommit, {
    groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 't', topicId: '', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  }).then((r) => r.topics[0]!.partitions[0]!.errorCode);
  return {
    ...started, heartbeat, commit,
    async stop() {
      members.close();
      committer.close();
      await started.stop();
    },
  };
}

test('a slow fsync of __consumer_offsets holds an offset commit but not a ConsumerGroupHeartbeat', TIMEOUT, async () => {
  const f = await startFaulty();
  try {
    assert.equal((await f.heartbeat('A', 0)).errorCode, ErrorCode.NONE); // creates the group
    const slow = f.faults.inject({ op: 'fdatasync', path: '__consumer_offsets', hold: true });
    let committed = false;
    const pending = f.commit(5n).then((code) => {
      committed = true;
      return code;
    });
    pending.catch(() => undefined); // asserted below; a failed assertion must not leave it unhandled
    await slow.hit(1);
    assert.ok(slow.hits >= 1, 'the commit\'s fsync is in progress');
    const joined = await f.heartbeat('B', 0);
    assert.equal(joined.errorCode, ErrorCode.NONE, 'a new member is answered while an fsync is held');
    assert.ok(joined.memberEpoch > 0);
    assert.equal(committed, false, 'the commit waits for its fsync');
    slow.remove();
    assert.equal(await pending, ErrorCode.NONE);
  } finally {
    await f.stop();
  }
});

test('a failed fsync under answered membership: the coordinator loads again from the log cut back to what is durable, and the member joins again', TIMEOUT, async () => {
  const f = await startFaulty();
  try {
    const a = await f.heartbeat('A', 0);
    assert.equal(a.errorCode, ErrorCode.NONE);
    // A commit is answered once durable, and so is everything appended before it: A's join.
    assert.equal(await f.commit(1n), ErrorCode.NONE);
    // The fsync that covers B's join fails, after B was answered.
    const failing = f.faults.inject({ op: 'fdatasync', path: '__consumer_offsets', hold: true, errno: 'EIO', times: 1 });
    const b = await f.heartbeat('B', 0);
    assert.equal(b.errorCode, ErrorCode.NONE, 'answered once appended');
    await failing.hit();
    failing.release();
    for (let i = 0; i < 500 && !f.lines.some((l) => /group coordinator loaded/.test(l)); i++) await sleep(10);
    assert.ok(f.lines.some((l) => /state may not match __consumer_offsets: unloading it and loading it again from the log/.test(l)), f.lines.join(''));
    assert.ok(f.lines.some((l) => /group coordinator loaded/.test(l)), f.lines.join(''));
    // B's join is not in the log: the coordinator does not know B, which joins again.
    const lost = await f.heartbeat('B', b.memberEpoch);
    assert.equal(lost.errorCode, ErrorCode.UNKNOWN_MEMBER_ID, `B after the load: ${lost.errorMessage}`);
    const again = await f.heartbeat('B', 0);
    assert.equal(again.errorCode, ErrorCode.NONE);
    // A, durable before, is still a member.
    assert.equal((await f.heartbeat('A', a.memberEpoch)).errorCode, ErrorCode.NONE);
  } finally {
    await f.stop();
  }
});
