/**
 * The consumer protocol (KIP-848, groupProtocol 'consumer') from a member's side, against a
 * scripted coordinator on a manual clock, with Kafka 4.4's Java consumer as the expectation
 * (ConsumerMembershipManager, ConsumerHeartbeatRequestManager.HeartbeatState):
 *
 * - joining: epoch 0, a member id the consumer generated (a base64url UUID, as Kafka 4), the
 *   subscription, the rebalance timeout (max.poll.interval.ms), rack and server assignor;
 *   the first assignment goes through onPartitionsAssigned and is acknowledged at once;
 * - heartbeats every interval the coordinator gives, carrying only what changed;
 * - a RegExp subscription goes to the coordinator as SubscribedTopicRegex;
 * - the options the consumer protocol has no use for are refused, as Java refuses them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeKafka, type Request } from '../support/fake-kafka.js';
import { HEARTBEAT_INTERVAL_MS, closeNow, heartbeats, joined, member, pollFor, timeline } from '../support/consumer-protocol.js';

const TIMEOUT = { timeout: 10_000 };

/** The fields a heartbeat carried besides group, member id, epoch and instance id (null/-1: not sent). */
function extras(body: Request<'ConsumerGroupHeartbeat'>): Record<string, unknown> {
  const { rebalanceTimeoutMs, subscribedTopicNames, subscribedTopicRegex, serverAssignor, topicPartitions, rackId } = body;
  return { rebalanceTimeoutMs, subscribedTopicNames, subscribedTopicRegex, serverAssignor, topicPartitions, rackId };
}

test('join: epoch 0 with a generated member id, the subscription, rebalance timeout, rack and assignor; the first assignment is assigned through the listener and acknowledged at once', TIMEOUT, async () => {
  const m = member({ maxPollIntervalMs: 60_000, clientRack: 'rack-a', groupRemoteAssignor: 'uniform' });
  assert.equal(m.fake.sent.length, 0, 'subscribe() sends nothing: the first poll() joins');
  await pollFor(m, 10);
  const [join, ack, ...more] = heartbeats(m);
  assert.deepEqual(more, []);
  assert.equal(join!.api, 'ConsumerGroupHeartbeat');
  const memberId = join!.body.memberId;
  assert.match(memberId, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/, 'a Kafka Uuid in its base64url text form, not starting with -');
  assert.deepEqual({ epoch: join!.body.memberEpoch, instanceId: join!.body.instanceId, groupId: join!.body.groupId }, { epoch: 0, instanceId: null, groupId: 'g' });
  assert.deepEqual(extras(join!.body), {
    rebalanceTimeoutMs: 60_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: 'uniform', topicPartitions: [], rackId: 'rack-a',
  });
  assert.deepEqual(timeline(m), [
    'heartbeat epoch 0 owns {}',
    'assigned [t-0 t-1 t-2 t-3]',
    'heartbeat epoch 1 owns {"t":[0,1,2,3]}',
  ], 'the acknowledgement follows onPartitionsAssigned without waiting for the interval');
  assert.equal(ack!.body.memberId, memberId, 'the same member id');
  assert.deepEqual(m.consumer.assignment().map((tp) => tp.partition), [0, 1, 2, 3]);
  assert.deepEqual(m.consumer.groupMetadata(), { groupId: 'g', memberId, generationId: 1, groupInstanceId: null, protocol: null, groupProtocol: 'consumer' },
    'the generation is the member epoch, as Java\'s ConsumerGroupMetadata');
  await closeNow(m);
});

test('a first assignment that is empty (more members than partitions) still goes through onPartitionsAssigned and is acknowledged, as Java\'s first LocalAssignment', TIMEOUT, async () => {
  const m = member();
  m.group.defaultTarget = {};
  await pollFor(m, 10);
  assert.deepEqual(timeline(m), [
    'heartbeat epoch 0 owns {}',
    'assigned []',
    'heartbeat epoch 1 owns {}',
  ], 'the member learns that it owns nothing, and says so at once');
  assert.deepEqual(m.consumer.assignment(), []);
  await closeNow(m);
});

test('heartbeats go every interval the coordinator gives, and carry only what changed since the last one (all of it again after an error)', TIMEOUT, async () => {
  const m = await joined({ maxPollIntervalMs: 60_000 });
  const atJoin = heartbeats(m).length;
  // The coordinator's interval, from the ack's answer on; polls keep max.poll.interval.ms away.
  for (let i = 0; i < 3; i++) await pollFor(m, HEARTBEAT_INTERVAL_MS);
  const regular = heartbeats(m).slice(atJoin);
  assert.deepEqual(regular.map((h) => h.atMs), [5_000, 10_000, 15_000], 'every 5 s after the acknowledgement (sent at 0)');
  for (const h of regular) {
    assert.deepEqual(extras(h.body), { rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, rackId: null }, 'nothing changed: nothing but who is heartbeating');
    assert.equal(h.body.memberEpoch, 1);
  }
  // A subscription change goes out at once, with only the new names.
  m.fake.topics.set('u', 1);
  m.consumer.subscribe(['t', 'u']);
  await m.scheduler.advance(0);
  const changed = heartbeats(m).at(-1)!;
  assert.equal(changed.atMs, 15_010, 'at once, not at the next interval');
  assert.deepEqual(extras(changed.body), { rebalanceTimeoutMs: -1, subscribedTopicNames: ['t', 'u'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, rackId: null });
  // An error answer: the next request (after retry.backoff.ms, not the interval) repeats everything but the rack.
  const before = heartbeats(m).length;
  m.fake.once('ConsumerGroupHeartbeat', () => ({ throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, errorMessage: null, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null }));
  await pollFor(m, HEARTBEAT_INTERVAL_MS + 100);
  const [failed, retried] = heartbeats(m).slice(before);
  assert.equal(retried!.atMs - failed!.atMs, 100, 'retried after retry.backoff.ms');
  assert.deepEqual(extras(retried!.body), { rebalanceTimeoutMs: 60_000, subscribedTopicNames: ['t', 'u'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [{ topicId: m.fake.topicId('t'), partitions: [0, 1, 2, 3] }], rackId: null });
  await closeNow(m);
});

test('a RegExp subscription is sent as SubscribedTopicRegex: RE2 syntax, matched anywhere in the name as RegExp.test does, inline flags', TIMEOUT, async () => {
  const m = member({}, { 'orders-eu': 2, 'orders-us': 2, other: 1 }, /^orders-/);
  m.group.heartbeatIntervalMs = HEARTBEAT_INTERVAL_MS;
  await pollFor(m, 10);
  const join = heartbeats(m)[0]!;
  assert.deepEqual({ names: join.body.subscribedTopicNames, regex: join.body.subscribedTopicRegex }, { names: [], regex: '.*(?:^orders-).*' });
  assert.deepEqual(m.group.solo.subscribedTopicRegex, '.*(?:^orders-).*', 'the coordinator read it');
  // The coordinator resolves the regex; the consumer reconciles what it is given.
  m.group.assign(m.group.solo.memberId, { 'orders-eu': [0, 1], 'orders-us': [1] });
  await pollFor(m, HEARTBEAT_INTERVAL_MS);
  assert.deepEqual(m.consumer.assignment(), [{ topic: 'orders-eu', partition: 0 }, { topic: 'orders-eu', partition: 1 }, { topic: 'orders-us', partition: 1 }]);
  // Replaced by topic names: the empty regex clears it.
  m.consumer.subscribe(['other']);
  await m.scheduler.advance(0);
  const last = heartbeats(m).at(-1)!;
  assert.deepEqual({ names: last.body.subscribedTopicNames, regex: last.body.subscribedTopicRegex }, { names: ['other'], regex: '' });
  await closeNow(m);

  const flags = member({}, { t: 1 }, /T\d/is);
  await pollFor(flags, 10);
  assert.equal(heartbeats(flags)[0]!.body.subscribedTopicRegex, '(?is).*(?:T\\d).*');
  await closeNow(flags);
});

test('a coordinator that speaks only ConsumerGroupHeartbeat v0 cannot take a RegExp: poll() fails, naming the way out', TIMEOUT, async () => {
  const m = member({}, { t: 1 }, /t/);
  m.fake.setVersion('ConsumerGroupHeartbeat', 0);
  await assert.rejects(pollFor(m, 10), /v0, which cannot carry a regular expression/);
  await assert.rejects(pollFor(m, 10), /v0/, 'every later poll() too');
  await closeNow(m);
});

test('options the consumer protocol has no use for are refused, naming them, as Java\'s ConsumerConfig; group.remote.assignor is refused with the classic protocol', TIMEOUT, () => {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  const base: ConsumerOptions = { bootstrapServers: 'fake:9092', groupId: 'g', scheduler, connectionFactory: fake.connectionFactory };
  const refused: [Partial<ConsumerOptions>, RegExp][] = [
    [{ groupProtocol: 'consumer', assignors: ['range'] }, /^assignors cannot be set when groupProtocol is 'consumer'$/],
    [{ groupProtocol: 'consumer', sessionTimeoutMs: 45_000 }, /^sessionTimeoutMs cannot be set/],
    [{ groupProtocol: 'consumer', heartbeatIntervalMs: 3_000, sessionTimeoutMs: 10_000 }, /^heartbeatIntervalMs, sessionTimeoutMs cannot be set when groupProtocol is 'consumer'$/],
    [{ groupRemoteAssignor: 'uniform' }, /^groupRemoteAssignor cannot be set when groupProtocol is 'classic'$/],
    [{ groupProtocol: 'eager' as 'classic' }, /groupProtocol must be one of classic, consumer/],
  ];
  for (const [options, message] of refused) {
    assert.throws(() => new Consumer({ ...base, ...options }), (err: Error & { code?: string }) => err.code === 'ERR_CONFIG' && message.test(err.message), JSON.stringify(options));
  }
  // Set to their defaults, they are still refused: Java looks at what was set, not at the value.
  assert.throws(() => new Consumer({ ...base, groupProtocol: 'consumer', heartbeatIntervalMs: 3_000 }), /heartbeatIntervalMs cannot be set/);
  const accepted = new Consumer({ ...base, groupProtocol: 'consumer', groupRemoteAssignor: 'range', maxPollIntervalMs: 1_000 });
  assert.deepEqual([accepted.options.groupProtocol, accepted.options.groupRemoteAssignor, accepted.options.rebalanceTimeoutMs], ['consumer', 'range', 1_000]);
  assert.equal(new Consumer(base).options.groupProtocol, 'classic', 'classic by default, as Kafka 4');
});
