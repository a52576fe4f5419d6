/**
 * Heartbeat errors with the consumer protocol, against a scripted coordinator on a manual
 * clock, with Kafka 4.4's Java consumer as the expectation (AbstractHeartbeatRequestManager's
 * error handling, AbstractMembershipManager.transitionToFenced / transitionToFatal):
 *
 * - FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID: the owned partitions are lost (onPartitionsLost,
 *   in the next poll), then the member rejoins at epoch 0 with the same member id, at once;
 * - UNSUPPORTED_ASSIGNOR, GROUP_MAX_SIZE_REACHED, UNRELEASED_INSTANCE_ID,
 *   INVALID_REGULAR_EXPRESSION, FENCED_INSTANCE_ID: fatal — the partitions are lost, the
 *   heartbeats stop, every later poll() throws;
 * - TOPIC_AUTHORIZATION_FAILED: poll() reports it once; the membership goes on;
 * - a cluster without ConsumerGroupHeartbeat: fatal, saying to use the classic protocol.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ApiCodecs } from '../../src/protocol/messages/index.js';
import { HEARTBEAT_INTERVAL_MS, closeNow, heartbeats, joined, member, pollFor, timeline } from '../support/consumer-protocol.js';
import type { Response } from '../support/fake-kafka.js';

const TIMEOUT = { timeout: 10_000 };

function heartbeatError(errorCode: number): () => Response<'ConsumerGroupHeartbeat'> {
  return () => ({ throttleTimeMs: 0, errorCode, errorMessage: 'scripted', memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null });
}

for (const code of ['FENCED_MEMBER_EPOCH', 'UNKNOWN_MEMBER_ID'] as const) {
  test(`${code}: the partitions are lost in the next poll(), then the member rejoins at epoch 0 with the same member id, at once`, TIMEOUT, async () => {
    const m = await joined({ maxPollIntervalMs: 600_000 });
    const memberId = m.consumer.groupMetadata().memberId;
    const from = m.fake.sent.length;
    m.fake.once('ConsumerGroupHeartbeat', heartbeatError(ErrorCode[code]));
    await m.scheduler.advance(HEARTBEAT_INTERVAL_MS);
    assert.equal(heartbeats(m).length, 3, 'the failed heartbeat');
    assert.deepEqual(timeline(m, from), ['heartbeat epoch 1'], 'no listener call outside poll(), no heartbeat while the partitions are not released');
    assert.equal(m.consumer.groupMetadata().generationId, -1, 'out of the group: no generation');
    await assert.rejects(m.consumer.commitSync([{ topic: 't', partition: 0, offset: 1n }]), { code: 'ERR_COMMIT_FAILED' }, 'a fenced member does not commit');
    const pollAt = m.scheduler.nowMs();
    await pollFor(m, 10);
    assert.deepEqual(timeline(m, from), [
      'heartbeat epoch 1',
      'lost [t-0 t-1 t-2 t-3]',
      'heartbeat epoch 0 owns {}', // the rejoin: everything again
      'assigned [t-0 t-1 t-2 t-3]',
      'heartbeat epoch 2 owns {"t":[0,1,2,3]}',
    ]);
    const rejoin = heartbeats(m)[3]!;
    assert.equal(rejoin.atMs, pollAt, 'as the poll() released the partitions, not after an interval or a backoff');
    assert.deepEqual([rejoin.body.memberId, rejoin.body.subscribedTopicNames, rejoin.body.rebalanceTimeoutMs], [memberId, ['t'], 600_000]);
    assert.deepEqual([m.consumer.groupMetadata().memberId, m.consumer.groupMetadata().generationId], [memberId, 2]);
    await closeNow(m);
  });
}

for (const code of ['UNSUPPORTED_ASSIGNOR', 'GROUP_MAX_SIZE_REACHED', 'UNRELEASED_INSTANCE_ID', 'INVALID_REGULAR_EXPRESSION', 'GROUP_AUTHORIZATION_FAILED', 'FENCED_INSTANCE_ID'] as const) {
  test(`${code} ends the membership: the partitions are lost, heartbeats stop, every poll() throws it`, TIMEOUT, async () => {
    const m = await joined({ groupInstanceId: 'i-1' });
    m.fake.once('ConsumerGroupHeartbeat', heartbeatError(ErrorCode[code]));
    await m.scheduler.advance(HEARTBEAT_INTERVAL_MS);
    const expected = code === 'FENCED_INSTANCE_ID' ? { code: 'ERR_FENCED_INSTANCE_ID' } : { code: 'ERR_GROUP', message: new RegExp(`${code}|${ErrorCode[code]}`) };
    await assert.rejects(pollFor(m, 10), expected);
    assert.deepEqual(m.listener.map((e) => e.text).slice(1), ['lost [t-0 t-1 t-2 t-3]'], 'released before the error surfaced');
    assert.deepEqual(m.consumer.assignment(), []);
    const sent = heartbeats(m).length;
    await m.scheduler.advance(5 * HEARTBEAT_INTERVAL_MS);
    assert.equal(heartbeats(m).length, sent, 'no heartbeats after a fatal error');
    await assert.rejects(pollFor(m, 10), expected, 'every later poll() throws it too');
    await closeNow(m);
    assert.equal(heartbeats(m).length, sent, 'no leave heartbeat: the member is out already');
  });
}

test('TOPIC_AUTHORIZATION_FAILED is reported once by poll(); the membership goes on after retry.backoff.ms, as Java', TIMEOUT, async () => {
  const m = await joined({ maxPollIntervalMs: 600_000 });
  m.fake.once('ConsumerGroupHeartbeat', heartbeatError(ErrorCode.TOPIC_AUTHORIZATION_FAILED));
  await m.scheduler.advance(HEARTBEAT_INTERVAL_MS);
  await assert.rejects(pollFor(m, 10), { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
  assert.deepEqual(await pollFor(m, 200), []);
  const [failed, retried] = heartbeats(m).slice(2);
  assert.equal(retried!.atMs - failed!.atMs, 100, 'the next heartbeat after retry.backoff.ms');
  assert.deepEqual([retried!.body.memberEpoch, m.consumer.groupMetadata().generationId], [1, 1], 'still a member, same epoch');
  assert.deepEqual(m.listener.map((e) => e.text), ['assigned [t-0 t-1 t-2 t-3]'], 'nothing lost');
  await closeNow(m);
});

test('a cluster without ConsumerGroupHeartbeat: poll() fails saying to use the classic protocol', TIMEOUT, async () => {
  const m = member();
  const factory = m.fake.connectionFactory;
  // The broker's ApiVersions leaves the API out (Brook's broker, Kafka before 3.7).
  (m.consumer as unknown as { cluster: { connectionFactory: typeof factory } }).cluster.connectionFactory = async (o) => {
    const c = await factory(o);
    return { ...c, request: c.request.bind(c), supportedVersion: (api: ApiCodecs) => (api.name === 'ConsumerGroupHeartbeat' ? undefined : c.supportedVersion(api)) };
  };
  await assert.rejects(pollFor(m, 10), /does not support the consumer group protocol.*groupProtocol 'classic'/);
  assert.equal(heartbeats(m).length, 0);
  await closeNow(m);
});
