// Vitest: one in-memory broker for the file, started in beforeAll and stopped in afterAll.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Admin, Broker, silentLogger } from 'brook';
import * as withBrook from '../src/orders.js';
import * as withKafkaJs from '../src/orders-kafkajs.js';
import { ORDERS, TOTALS } from '../src/fixtures.js';

let broker;

beforeAll(async () => {
  // Memory storage, a port the OS picks, no log lines, groups formed without Kafka's 3 s wait.
  broker = await Broker.start({ port: 0, dataDir: null, log: silentLogger, groupInitialRebalanceDelayMs: 0 });
});

afterAll(async () => {
  await broker.stop();
});

test('orders are totalled by customer (Brook clients)', { timeout: 30_000 }, async () => {
  await withBrook.publishOrders(broker.bootstrapServers, 'orders-brook', ORDERS);
  const totals = await withBrook.totalsByCustomer(broker.bootstrapServers, 'orders-brook', 'totals', ORDERS.length);
  expect(totals).toEqual(TOTALS);
  // The group committed what it read.
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrapServers });
  try {
    const { rows, totalLag } = await admin.describeGroupOffsets('totals');
    expect(totalLag).toBe(0n);
    expect(rows.reduce((sum, row) => sum + Number(row.committed), 0)).toBe(ORDERS.length);
  } finally {
    admin.close();
  }
});

test('orders are totalled by customer (KafkaJS)', { timeout: 30_000 }, async () => {
  await withKafkaJs.publishOrders(broker.bootstrapServers, 'orders-kafkajs', ORDERS);
  expect(await withKafkaJs.totalsByCustomer(broker.bootstrapServers, 'orders-kafkajs', 'totals-kafkajs', ORDERS.length)).toEqual(TOTALS);
});
