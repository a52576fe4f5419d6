// Vitest: the broker's test controls (docs/TESTING.md, "Faults, hooks and time"), with KafkaJS,
// one test per control. A fixture is built once (beforeAll) and snapshotted; each test starts a
// fresh broker from it: topic 'orders' holds a, b, c, d and group 'totals' has committed offset 2.
import { afterEach, beforeAll, expect, test } from 'vitest';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { Broker, silentLogger } from 'brook';

const T = { timeout: 15_000 };

let fixture;
let broker;
let clients = [];

const kafkaFor = (b, clientId = 'orders-app') =>
  new Kafka({ clientId, brokers: [b.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
// Clients are disconnected before the broker stops (else stopping waits for them), also when a test fails.
const track = (client) => {
  clients.push(client);
  return client;
};
const values = (topic) => broker.records(topic).map((r) => r.value.toString());

beforeAll(async () => {
  const setup = await Broker.start({ port: 0, dataDir: null, log: silentLogger });
  setup.createTopic('orders', 1);
  const kafka = kafkaFor(setup);
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: ['a', 'b', 'c', 'd'].map((value) => ({ value })) });
  await producer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await admin.setOffsets({ groupId: 'totals', topic: 'orders', partitions: [{ partition: 0, offset: '2' }] });
  await admin.disconnect();
  fixture = await setup.snapshot();
  await setup.stop();
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.disconnect().catch(() => {})));
  clients = [];
  await broker?.stop();
  broker = undefined;
});

const fresh = async (options = {}) =>
  (broker = await Broker.restore(fixture, { port: 0, dataDir: null, log: silentLogger, groupInitialRebalanceDelayMs: 0, ...options }));

// Resolves on the consumer's next GROUP_JOIN event with its member id.
const joins = (consumer) => {
  const seen = [];
  let waiting = [];
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    seen.push(e.payload.memberId);
    for (const w of waiting) w();
    waiting = [];
  });
  const next = () => {
    const count = seen.length;
    return new Promise((resolve) => waiting.push(() => seen.length > count && resolve()));
  };
  return { seen, next };
};

test('hooks: the producer asks for acknowledgement by every replica', T, async () => {
  await fresh();
  const requests = [];
  const unsubscribe = broker.onRequest((request) => requests.push(request));
  const producer = track(kafkaFor(broker).producer());
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ key: 'ada', value: 'e' }] });
  unsubscribe();
  const produce = requests.find((r) => r.api === 'Produce');
  expect(produce.clientId).toBe('orders-app');
  expect(produce.body.acks).toBe(-1);
});

test('hooks: a consumer that leaves sends LeaveGroup, answered without error', T, async () => {
  await fresh();
  const responses = [];
  broker.onResponse((r) => {
    if (r.api === 'LeaveGroup') responses.push(r.body.errorCode); // the body is valid during the call only
  });
  const consumer = track(kafkaFor(broker, 'totals').consumer({ groupId: 'leavers', maxWaitTimeInMs: 100 }));
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'] });
  await consumer.run({ eachMessage: async () => {} });
  await broker.waitForGroupState('leavers', 'Stable', { timeoutMs: 5_000 });
  await consumer.disconnect();
  expect(responses).toEqual([0]);
  await broker.waitForGroupState('leavers', 'Empty', { timeoutMs: 0 });
});

test('injectFault error: a send survives NOT_LEADER_OR_FOLLOWER and lands once', T, async () => {
  await fresh();
  const fault = broker.injectFault({ api: 'Produce', topic: 'orders', error: 'NOT_LEADER_OR_FOLLOWER' });
  const producer = track(kafkaFor(broker).producer());
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ value: 'e' }] });
  expect(fault.hits).toBe(1);
  expect(values('orders')).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('injectFault delay and drop: sends wait for a slow broker and go again after a lost connection', T, async () => {
  await fresh();
  const producer = track(kafkaFor(broker).producer());
  await producer.connect();

  broker.injectFault({ api: 'Produce', delayMs: 200 });
  const started = performance.now();
  await producer.send({ topic: 'orders', messages: [{ value: 'slow' }] });
  expect(performance.now() - started).toBeGreaterThanOrEqual(200);

  const drop = broker.injectFault({ api: 'Produce', drop: true });
  await producer.send({ topic: 'orders', messages: [{ value: 'retried' }] });
  expect(drop.hits).toBe(1);
  expect(values('orders')).toEqual(['a', 'b', 'c', 'd', 'slow', 'retried']);
});

test('manual clock: a silent consumer is removed once its session timeout has passed', T, async () => {
  await fresh({ clock: 'manual' });
  // KafkaJS heartbeats every 29 s of real time, so none comes during the test: once it has
  // joined, the member is silent. (Heartbeats would not move the manual clock anyway.) A new
  // group starts at the end of 'orders': nothing to consume, so no offset commit, which would
  // count as a heartbeat too.
  const consumer = track(kafkaFor(broker, 'totals').consumer({ groupId: 'silent', sessionTimeout: 30_000, heartbeatInterval: 29_000, maxWaitTimeInMs: 100 }));
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'] });
  await consumer.run({ eachMessage: async () => {} });
  await broker.waitForGroupState('silent', 'Stable', { timeoutMs: 5_000 });

  await broker.advanceTime(29_999);
  await broker.waitForGroupState('silent', 'Stable', { timeoutMs: 0 }); // still there
  await broker.advanceTime(1);
  await broker.waitForGroupState('silent', 'Empty', { timeoutMs: 0 });
});

test('expireMember: a consumer whose session expired joins again as a new member', T, async () => {
  await fresh();
  const consumer = track(kafkaFor(broker, 'totals').consumer({ groupId: 'totals', heartbeatInterval: 100, maxWaitTimeInMs: 100 }));
  const join = joins(consumer);
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'] });
  const first = join.next();
  await consumer.run({ eachMessage: async () => {} });
  await first;

  const rejoined = join.next();
  await broker.expireMember('totals', join.seen[0]);
  await rejoined; // its next heartbeat was refused (UNKNOWN_MEMBER_ID): it joined as a new member
  expect(join.seen).toHaveLength(2);
  expect(join.seen[1]).not.toBe(join.seen[0]);
  await broker.waitForGroupState('totals', 'Stable', { timeoutMs: 5_000 });
});

test('triggerRebalance: the consumer hears REBALANCE_IN_PROGRESS and rejoins as the same member', T, async () => {
  await fresh();
  const consumer = track(kafkaFor(broker, 'totals').consumer({ groupId: 'totals', heartbeatInterval: 100, maxWaitTimeInMs: 100 }));
  const join = joins(consumer);
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'] });
  const first = join.next();
  await consumer.run({ eachMessage: async () => {} });
  await first;
  await broker.waitForGroupState('totals', 'Stable', { timeoutMs: 5_000 });

  const rejoined = join.next();
  await broker.triggerRebalance('totals');
  await rejoined;
  expect(join.seen).toHaveLength(2);
  expect(join.seen[1]).toBe(join.seen[0]);
  await broker.waitForGroupState('totals', 'Stable', { timeoutMs: 5_000 });
});

test('records, committed, waitForGroupState: the consumer commits what it processed', T, async () => {
  await fresh();
  const consumer = track(kafkaFor(broker, 'totals').consumer({ groupId: 'totals', maxWaitTimeInMs: 100 }));
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'] });
  const seen = [];
  const both = new Promise((resolve) => {
    consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
        seen.push(message.value.toString());
        if (seen.length === 2) resolve();
      },
    });
  });
  await both;
  await broker.waitForGroupState('totals', 'Stable', { timeoutMs: 5_000 });
  expect(broker.committed('totals')).toEqual({ orders: { 0: 2n } });
  await consumer.commitOffsets([{ topic: 'orders', partition: 0, offset: '4' }]);

  expect(seen).toEqual(['c', 'd']);
  expect(broker.committed('totals')).toEqual({ orders: { 0: 4n } });
  expect(broker.records('orders').map((r) => `${r.offset} ${r.value}`)).toEqual(['0 a', '1 b', '2 c', '3 d']);
});

test('moveCoordinator: a transaction commits although its coordinator moved', T, async () => {
  await fresh();
  const producer = track(kafkaFor(broker).producer({ transactionalId: 'orders-tx', idempotent: true, maxInFlightRequests: 1 }));
  await producer.connect();
  // The next two requests for the transactional id hear NOT_COORDINATOR; KafkaJS finds it again.
  const move = broker.moveCoordinator({ transactionalId: 'orders-tx' }, { count: 2 });
  const transaction = await producer.transaction();
  await transaction.send({ topic: 'orders', messages: [{ value: 'e' }] });
  await transaction.commit();
  expect(move.hits).toBe(2);
  expect(values('orders')).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('setPartitionOffline: a send waits until the partition has a leader again, and lands once', T, async () => {
  await fresh();
  const producer = track(kafkaFor(broker).producer({ idempotent: true, maxInFlightRequests: 1 }));
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ value: 'e' }] });

  broker.setPartitionOffline('orders', 0);
  let refused;
  const wasRefused = new Promise((resolve) => { refused = resolve; });
  broker.onResponse((r) => {
    if (r.api === 'Produce' && r.body.responses[0].partitionResponses[0].errorCode !== 0) refused();
  });
  const sent = producer.send({ topic: 'orders', messages: [{ value: 'f' }] });
  await wasRefused; // NOT_LEADER_OR_FOLLOWER: KafkaJS asks for metadata again, and again
  broker.setPartitionOnline('orders', 0);
  await sent;
  expect(values('orders')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
});

test('pause and resume: a send waits for a stalled broker', T, async () => {
  await fresh();
  const producer = track(kafkaFor(broker).producer());
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ value: 'early' }] }); // KafkaJS has the topic's metadata now

  broker.pause();
  let arrived;
  const produceArrived = new Promise((resolve) => { arrived = resolve; });
  broker.onRequest((r) => r.api === 'Produce' && arrived());
  let answered = false;
  const sent = producer.send({ topic: 'orders', messages: [{ value: 'late' }] }).then(() => { answered = true; });
  await produceArrived; // taken, not handled: nothing appended, no answer
  expect(broker.paused).toBe(true);
  expect(answered).toBe(false);
  expect(values('orders')).toEqual(['a', 'b', 'c', 'd', 'early']);

  broker.resume();
  await sent;
  expect(values('orders')).toEqual(['a', 'b', 'c', 'd', 'early', 'late']);
});

test('snapshot and restore: the consumer resumes where the fixture\'s group left off', T, async () => {
  await fresh();
  const consumer = track(kafkaFor(broker, 'totals').consumer({ groupId: 'totals', maxWaitTimeInMs: 100 }));
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'] });
  const seen = [];
  await new Promise((resolve) => {
    consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value.toString());
        if (seen.length === 2) resolve();
      },
    });
  });
  expect(seen).toEqual(['c', 'd']);
});
