/**
 * Leaving with the consumer protocol, against a scripted coordinator on a manual clock, as
 * Kafka 4.4's Java consumer does (AsyncKafkaConsumer.close, AbstractMembershipManager.leaveGroup,
 * ConsumerMembershipManager.leaveGroupEpoch, AbstractHeartbeatRequestManager's poll timer):
 *
 * - close(): consumed offsets committed (auto-commit on), onPartitionsRevoked, then the leave
 *   heartbeat: epoch -1, or -2 for a static member (which comes back as the same instance);
 * - unsubscribe(): onPartitionsRevoked, then the leave heartbeat; subscribe() again rejoins
 *   with the same member id;
 * - max.poll.interval.ms without poll(): the leave heartbeat at once, the partitions lost at
 *   the next poll(), which rejoins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEARTBEAT_INTERVAL_MS, closeNow, heartbeats, joined, member, pollFor, timeline } from '../support/consumer-protocol.js';

const TIMEOUT = { timeout: 10_000 };

test('close(): commit what the application finished, onPartitionsRevoked, then the leave heartbeat (epoch -1); nothing after it', TIMEOUT, async () => {
  const m = member({ enableAutoCommit: true, autoCommitIntervalMs: 600_000, maxPollIntervalMs: 600_000 }, { t: 2 }, ['t'], 3);
  const records = [];
  for (let i = 0; i < 3; i++) records.push(...(await pollFor(m, 100)));
  assert.equal(records.length, 6, 'every record, handed out by poll(): close() counts them as finished');
  const id = m.group.solo.memberId;
  const from = m.fake.sent.length;
  await closeNow(m);
  assert.deepEqual(timeline(m, from), [
    'commit t-0@3 t-1@3 epoch 1',
    'revoked [t-0 t-1]',
    'heartbeat epoch -1 owns {}',
  ]);
  assert.deepEqual([m.group.members.size, m.group.left], [0, [id]], 'the coordinator let the member go');
  const sent = m.fake.sent.length;
  await m.scheduler.advance(3 * HEARTBEAT_INTERVAL_MS);
  assert.equal(m.fake.sent.length, sent, 'no heartbeats after close()');
  assert.equal(m.scheduler.pendingTimers, 0, 'no timers left behind');
});

test('close() of a static member: onPartitionsRevoked, then the leave heartbeat with epoch -2 and its instance id', TIMEOUT, async () => {
  const m = await joined({ groupInstanceId: 'instance-1', maxPollIntervalMs: 600_000 });
  const from = m.fake.sent.length;
  await closeNow(m);
  assert.deepEqual(timeline(m, from), ['revoked [t-0 t-1 t-2 t-3]', 'heartbeat epoch -2 owns {}']);
  assert.equal(heartbeats(m).at(-1)!.body.instanceId, 'instance-1');
});

test('unsubscribe(): onPartitionsRevoked, then the leave heartbeat; subscribing again rejoins at epoch 0 with the same member id', TIMEOUT, async () => {
  const m = await joined({ maxPollIntervalMs: 600_000 });
  const memberId = m.consumer.groupMetadata().memberId;
  const from = m.fake.sent.length;
  m.consumer.unsubscribe();
  await m.scheduler.advance(0);
  assert.deepEqual(timeline(m, from), ['revoked [t-0 t-1 t-2 t-3]', 'heartbeat epoch -1 owns {}']);
  assert.deepEqual([m.consumer.assignment(), m.consumer.groupMetadata().generationId], [[], -1]);
  await m.scheduler.advance(2 * HEARTBEAT_INTERVAL_MS);
  assert.equal(heartbeats(m).length, 3, 'no heartbeats while unsubscribed');
  m.consumer.subscribe(['t'], { onPartitionsAssigned: (tps) => { m.listener.push({ at: m.fake.sent.length, text: `assigned again ${tps.length}` }); } });
  await pollFor(m, 10);
  const rejoin = heartbeats(m)[3]!;
  assert.deepEqual([rejoin.body.memberEpoch, rejoin.body.memberId], [0, memberId]);
  assert.equal(m.consumer.groupMetadata().generationId, 2, 'a new epoch from the coordinator');
  assert.equal(m.listener.at(-1)!.text, 'assigned again 4');
  await closeNow(m);
});

test('max.poll.interval.ms without poll(): the leave heartbeat at once; the partitions are lost at the next poll(), which rejoins with the same member id', TIMEOUT, async () => {
  const m = await joined({ maxPollIntervalMs: 12_000 });
  const memberId = m.consumer.groupMetadata().memberId;
  const from = m.fake.sent.length;
  await m.scheduler.advance(30_000); // the application is busy: no poll()
  const leave = heartbeats(m).find((h) => h.body.memberEpoch < 0)!;
  assert.equal(leave.atMs, 12_000, 'max.poll.interval.ms after the last poll() began');
  assert.deepEqual(timeline(m, from), ['heartbeat epoch 1', 'heartbeat epoch 1', 'heartbeat epoch -1 owns {}'], 'regular heartbeats until then; no listener call outside poll(); nothing after');
  assert.equal(m.consumer.groupMetadata().generationId, -1);
  await pollFor(m, 10);
  assert.deepEqual(timeline(m, from).slice(3), [
    'lost [t-0 t-1 t-2 t-3]',
    'heartbeat epoch 0 owns {}',
    'assigned [t-0 t-1 t-2 t-3]',
    'heartbeat epoch 2 owns {"t":[0,1,2,3]}',
  ]);
  assert.equal(heartbeats(m).at(-2)!.body.memberId, memberId);
  await closeNow(m);
});
