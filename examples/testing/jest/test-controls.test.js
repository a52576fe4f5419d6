// Jest (native ESM): the broker's test controls (docs/TESTING.md, "Faults, hooks and time"), with KafkaJS.
// A fixture is built once (beforeAll) and snapshotted; each test starts a fresh broker from it.
import { afterEach, beforeAll, expect, jest, test } from '@jest/globals';
import { Kafka, logLevel } from 'kafkajs';
import { Broker, silentLogger } from 'brook';

jest.setTimeout(30_000);

let fixture;
let broker;

const kafkaFor = (b) => new Kafka({ clientId: 'orders-app', brokers: [b.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });

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
  await broker?.stop();
  broker = undefined;
});

const fresh = async () => (broker = await Broker.restore(fixture, { port: 0, dataDir: null, log: silentLogger, groupInitialRebalanceDelayMs: 0 }));

test('a send survives an injected NOT_LEADER_OR_FOLLOWER and lands once', async () => {
  await fresh();
  const fault = broker.injectFault({ api: 'Produce', topic: 'orders', error: 'NOT_LEADER_OR_FOLLOWER' });
  const producer = kafkaFor(broker).producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ value: 'e' }] });
  await producer.disconnect();
  expect(fault.hits).toBe(1);
  expect(broker.records('orders').map((r) => r.value.toString())).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('a transaction commits although its coordinator moved', async () => {
  await fresh();
  const producer = kafkaFor(broker).producer({ transactionalId: 'orders-tx', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const move = broker.moveCoordinator({ transactionalId: 'orders-tx' }, { count: 2 });
  const transaction = await producer.transaction();
  await transaction.send({ topic: 'orders', messages: [{ value: 'e' }] });
  await transaction.commit();
  await producer.disconnect();
  expect(move.hits).toBe(2);
  expect(broker.records('orders').map((r) => r.value.toString())).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('the consumer resumes where the fixture\'s group left off', async () => {
  await fresh();
  const consumer = kafkaFor(broker).consumer({ groupId: 'totals', maxWaitTimeInMs: 100 });
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
  await consumer.disconnect();
  expect(seen).toEqual(['c', 'd']);
});
