/**
 * Group membership (Java's AbstractCoordinator and ConsumerCoordinator) on a
 * ManualScheduler against a scripted coordinator: the leader runs the assignor over every
 * member's subscription and SyncGroups every member's assignment (empty ones included); a
 * follower SyncGroups with no assignment and takes its partitions from the response;
 * MEMBER_ID_REQUIRED; heartbeats every heartbeatIntervalMs; no poll within
 * maxPollIntervalMs → LeaveGroup, and the next poll rejoins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer } from '../../src/index.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol.js';
import type { AssignmentInput, PartitionAssignor } from '../../src/assignors/types.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeKafka, soloGroup, type Request } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

function setup(extra: Record<string, unknown> = {}, assignor: PartitionAssignor = testRangeAssignor()) {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 4);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [assignor], scheduler, connectionFactory: fake.connectionFactory,
    heartbeatIntervalMs: 3_000, sessionTimeoutMs: 45_000, ...extra,
  });
  return { scheduler, fake, consumer };
}

async function pollFor(consumer: Consumer, scheduler: ManualScheduler, ms: number): Promise<void> {
  const p = consumer.poll({ timeoutMs: ms });
  await scheduler.advance(ms);
  await p;
}

test('leader: MEMBER_ID_REQUIRED then join; the assignor sees every member; SyncGroup carries every member, empty ones included', { timeout: 10_000 }, async () => {
  const inputs: AssignmentInput[] = [];
  const base = testRangeAssignor();
  const spy: PartitionAssignor = { ...base, assign: (input) => { inputs.push(input); return base.assign(input); } };
  const { scheduler, fake, consumer } = setup({}, spy);
  const other = encodeSubscription({ topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  const idle = encodeSubscription({ topics: ['unrelated'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  fake.on('JoinGroup', (request) => {
    if (request.memberId === '') return { errorCode: ErrorCode.MEMBER_ID_REQUIRED, generationId: -1, protocolName: null, leader: '', memberId: 'a-1', members: [] };
    const mine = request.protocols[0]!;
    return {
      errorCode: ErrorCode.NONE, generationId: 5, protocolName: 'range', leader: 'a-1', memberId: 'a-1',
      members: [{ memberId: 'a-1', groupInstanceId: null, metadata: mine.metadata }, { memberId: 'b-1', groupInstanceId: null, metadata: other }, { memberId: 'c-1', groupInstanceId: null, metadata: idle }],
    };
  });
  let sync: Request<'SyncGroup'> | undefined;
  fake.on('SyncGroup', (request) => {
    sync = request;
    const mine = request.assignments.find((a) => a.memberId === 'a-1')!;
    return { errorCode: ErrorCode.NONE, protocolName: 'range', assignment: mine.assignment };
  });
  consumer.subscribe(['t']);
  await pollFor(consumer, scheduler, 100);
  const joins = fake.requests('JoinGroup');
  assert.equal(joins.length, 2);
  assert.equal(joins[1]!.body.memberId, 'a-1', 'rejoined with the id from MEMBER_ID_REQUIRED');
  const sub = decodeSubscription(joins[1]!.body.protocols[0]!.metadata).subscription;
  assert.deepEqual(sub.topics, ['t']);
  assert.equal(inputs.length, 1);
  assert.deepEqual(inputs[0]!.members.map((m) => [m.memberId, m.topics]), [['a-1', ['t']], ['b-1', ['t']], ['c-1', ['unrelated']]]);
  assert.deepEqual([...inputs[0]!.partitionsPerTopic], [['t', 4]]);
  assert.equal(sync?.generationId, 5);
  const assignments = new Map(sync!.assignments.map((a) => [a.memberId, decodeAssignment(a.assignment).assignment.assignedPartitions]));
  assert.deepEqual([...assignments.keys()].sort(), ['a-1', 'b-1', 'c-1'], 'every member, empty assignments included');
  assert.deepEqual(assignments.get('a-1'), [{ topic: 't', partitions: [0, 1] }]);
  assert.deepEqual(assignments.get('b-1'), [{ topic: 't', partitions: [2, 3] }]);
  assert.deepEqual(assignments.get('c-1'), []);
  assert.deepEqual(consumer.assignment(), [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
  assert.deepEqual(consumer.groupMetadata().generationId, 5);
  await closeNow(consumer, scheduler);
});

test('follower: SyncGroup with no assignment, partitions from the response; the assignor never runs', { timeout: 10_000 }, async () => {
  let ran = false;
  const base = testRangeAssignor();
  const { scheduler, fake, consumer } = setup({}, { ...base, assign: (i) => { ran = true; return base.assign(i); } });
  fake.on('JoinGroup', () => ({ errorCode: ErrorCode.NONE, generationId: 2, protocolName: 'range', leader: 'someone-else', memberId: 'f-1', members: [] }));
  let sync: Request<'SyncGroup'> | undefined;
  fake.on('SyncGroup', (request) => {
    sync = request;
    return { errorCode: ErrorCode.NONE, protocolName: 'range', assignment: encodeAssignment({ assignedPartitions: [{ topic: 't', partitions: [3] }], userData: null }) };
  });
  const assigned: unknown[] = [];
  consumer.subscribe(['t'], { onPartitionsAssigned: (tps) => { assigned.push(tps); } });
  await pollFor(consumer, scheduler, 100);
  assert.deepEqual(sync?.assignments, []);
  assert.equal(ran, false);
  assert.deepEqual(consumer.assignment(), [{ topic: 't', partition: 3 }]);
  assert.deepEqual(assigned, [[{ topic: 't', partition: 3 }]]);
  await closeNow(consumer, scheduler);
});

test('heartbeats every heartbeatIntervalMs while the application does not poll; REBALANCE_IN_PROGRESS makes the next poll rejoin', { timeout: 10_000 }, async () => {
  const { scheduler, fake, consumer } = setup({ heartbeatIntervalMs: 3_000 });
  soloGroup(fake);
  consumer.subscribe(['t']);
  await pollFor(consumer, scheduler, 10);
  const joinedAt = fake.requests('SyncGroup').at(-1)!.atMs;
  await scheduler.advance(10_000);
  assert.deepEqual(fake.requests('Heartbeat').map((h) => h.atMs - joinedAt), [3_000, 6_000, 9_000]);
  fake.once('Heartbeat', () => ({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS }));
  await scheduler.advance(3_000);
  const joinsBefore = fake.requests('JoinGroup').length;
  await pollFor(consumer, scheduler, 10);
  assert.equal(fake.requests('JoinGroup').length, joinsBefore + 1, 'rejoined on the next poll');
  await closeNow(consumer, scheduler);
});

test('max.poll.interval.ms without poll: LeaveGroup, partitions lost, and the next poll joins again', { timeout: 10_000 }, async () => {
  const { scheduler, fake, consumer } = setup({ heartbeatIntervalMs: 1_000, maxPollIntervalMs: 10_000, sessionTimeoutMs: 30_000 });
  soloGroup(fake);
  const lost: unknown[] = [];
  consumer.subscribe(['t'], { onPartitionsLost: (tps) => { lost.push(tps); } });
  await pollFor(consumer, scheduler, 10);
  assert.equal(consumer.assignment().length, 4);
  await scheduler.advance(9_000);
  assert.equal(fake.requests('LeaveGroup').length, 0);
  await scheduler.advance(3_000);
  const leaves = fake.requests('LeaveGroup');
  assert.equal(leaves.length, 1);
  assert.ok(leaves[0]!.atMs > 10_010 && leaves[0]!.atMs <= 11_010, `left at ${leaves[0]!.atMs}`);
  assert.equal(leaves[0]!.body.members?.[0]?.memberId, 'm-1');
  const heartbeats = fake.requests('Heartbeat').length;
  await scheduler.advance(5_000);
  assert.equal(fake.requests('Heartbeat').length, heartbeats, 'no heartbeats after leaving');
  const joins = fake.requests('JoinGroup').length;
  await pollFor(consumer, scheduler, 10);
  assert.equal(fake.requests('JoinGroup').length, joins + 2, 'fresh join (MEMBER_ID_REQUIRED round included)');
  assert.deepEqual(lost, [[0, 1, 2, 3].map((partition) => ({ topic: 't', partition }))], 'the old partitions were lost, not revoked');
  assert.equal(consumer.assignment().length, 4);
  await closeNow(consumer, scheduler);
});

test('FENCED_INSTANCE_ID is fatal and surfaces from poll() as a typed error', { timeout: 10_000 }, async () => {
  const { scheduler, fake, consumer } = setup({ groupInstanceId: 'static-1' });
  fake.on('JoinGroup', () => ({ errorCode: ErrorCode.FENCED_INSTANCE_ID, generationId: -1, protocolName: null, leader: '', memberId: '', members: [] }));
  consumer.subscribe(['t']);
  const p = assert.rejects(consumer.poll({ timeoutMs: 100 }), { code: 'ERR_FENCED_INSTANCE_ID' });
  await scheduler.advance(100);
  await p;
  await closeNow(consumer, scheduler);
  assert.equal(fake.requests('LeaveGroup').length, 0);
});

test('an unexpected SyncGroup error (INVALID_REQUEST) surfaces from poll() once; the next poll() joins again, as Java', { timeout: 10_000 }, async () => {
  const { scheduler, fake, consumer } = setup({ retryBackoffMs: 100 });
  fake.on('JoinGroup', () => ({ errorCode: ErrorCode.NONE, generationId: 2, protocolName: 'range', leader: 'someone-else', memberId: 'f-1', members: [] }));
  let syncs = 0;
  fake.on('SyncGroup', () => (++syncs === 1
    // librdkafka's mock cluster answers a SyncGroup it does not expect this way (null assignment).
    ? { errorCode: ErrorCode.INVALID_REQUEST, protocolName: null, assignment: Buffer.alloc(0) }
    : { errorCode: ErrorCode.NONE, protocolName: 'range', assignment: encodeAssignment({ assignedPartitions: [{ topic: 't', partitions: [1] }], userData: null }) }));
  consumer.subscribe(['t']);
  const first = assert.rejects(consumer.poll({ timeoutMs: 100 }), { code: 'ERR_GROUP' });
  await scheduler.advance(100);
  await first;
  await pollFor(consumer, scheduler, 500);
  assert.equal(syncs, 2);
  assert.deepEqual(consumer.assignment(), [{ topic: 't', partition: 1 }]);
  await closeNow(consumer, scheduler);
});

async function closeNow(consumer: Consumer, scheduler: ManualScheduler): Promise<void> {
  const closing = consumer.close();
  await scheduler.advance(0);
  await closing;
}

test('the leader refreshes metadata on the coordinator connection between JoinGroup and SyncGroup, not behind its Fetch', { timeout: 10_000 }, async () => {
  // On the data connection the Metadata request would wait behind the long-polling Fetch
  // (brokers answer a connection in order) while the whole group waits for the leader.
  const { scheduler, fake, consumer } = setup({ heartbeatIntervalMs: 3_000 });
  soloGroup(fake);
  consumer.subscribe(['t']);
  await pollFor(consumer, scheduler, 10);
  fake.once('Heartbeat', () => ({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS }));
  await scheduler.advance(3_000);
  await pollFor(consumer, scheduler, 10);
  const apis = fake.sent.map((r) => r.api);
  const join = fake.sent[apis.lastIndexOf('JoinGroup')]!;
  const between = fake.sent.slice(apis.lastIndexOf('JoinGroup') + 1, apis.lastIndexOf('SyncGroup'));
  assert.deepEqual(between.map((r) => [r.api, r.connection]), [['Metadata', join.connection]]);
  const fetches = fake.requests('Fetch');
  assert.ok(fetches.length > 0 && fetches.every((f) => f.connection !== join.connection), 'Fetch has a connection of its own');
  assert.deepEqual(consumer.assignment().map((tp) => tp.partition), [0, 1, 2, 3]);
  await closeNow(consumer, scheduler);
});
