/**
 * Moved coordinators against KafkaJS, which only sees the wire: while the group's (or the
 * transactional id's) coordinator answers NOT_COORDINATOR, the client looks it up again
 * (FindCoordinator) and carries on once it is back:
 * - a consumer in a group keeps consuming and committing: every record is seen (at least
 *   once) and the committed offset reaches the end;
 * - a transactional producer finishes its transaction: its records are committed once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EachMessagePayload } from 'kafkajs';
import { startBrook } from '../support/brook.js';
import { waitFor } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 60_000 };

test('a KafkaJS consumer finds its moved group coordinator again: every record consumed, offsets committed to the end', T, async (t) => {
  const broker = await startBrook();
  const clients: { disconnect(): Promise<void> }[] = [];
  // Clients first, then the broker: a client left connected would retry against a stopped broker.
  t.after(async () => {
    for (const c of clients.reverse()) await c.disconnect().catch(() => undefined);
    await broker.stop();
  });
  broker.createTopic('moved-orders', 1);
  const finds: string[] = [];
  broker.onRequest((r) => {
    if (r.api === 'FindCoordinator') finds.push(r.body.key ?? r.body.coordinatorKeys?.join(',') ?? '');
  });
  const kafka = kafkaJs(broker.bootstrap, 'brook-test-moved-group', 10);
  const producer = kafka.producer();
  clients.push(producer);
  await producer.connect();
  const send = (from: number, to: number) => producer.send({ topic: 'moved-orders', messages: Array.from({ length: to - from }, (_, i) => ({ value: `v${from + i}` })) });

  const seen: string[] = [];
  const consumer = kafka.consumer({ groupId: 'moved-group', heartbeatInterval: 200, sessionTimeout: 10_000 });
  clients.push(consumer);
  await consumer.connect();
  await consumer.subscribe({ topic: 'moved-orders', fromBeginning: true });
  await consumer.run({ autoCommitInterval: 100, eachMessage: async ({ message }: EachMessagePayload) => void seen.push(message.value!.toString()) });
  await send(0, 10);
  await waitFor('the first 10 records', () => new Set(seen).size === 10);
  await waitFor('the first commit', () => broker.committed('moved-group')['moved-orders']?.[0] === 10n);

  const findsBefore = finds.length;
  const move = broker.moveCoordinator({ groupId: 'moved-group' });
  await send(10, 20);
  await waitFor('the client to hit the moved coordinator', () => move.hits >= 2);
  move.restore();
  await waitFor('all 20 records', () => new Set(seen).size === 20);
  await waitFor('the commit of all 20', () => broker.committed('moved-group')['moved-orders']?.[0] === 20n);

  assert.ok(finds.length > findsBefore, 'the consumer looked its coordinator up again');
  assert.deepEqual([...new Set(seen)].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))), Array.from({ length: 20 }, (_, i) => `v${i}`));
});

test('a KafkaJS transactional producer finds its moved transaction coordinator again: the transaction commits, its records once', T, async (t) => {
  const broker = await startBrook();
  broker.createTopic('moved-payments', 1);
  const kafka = kafkaJs(broker.bootstrap, 'brook-test-moved-txn', 10);
  const producer = kafka.producer({ transactionalId: 'moved-tx', maxInFlightRequests: 1, idempotent: true });
  t.after(async () => {
    await producer.disconnect().catch(() => undefined);
    await broker.stop();
  });
  await producer.connect();

  const first = await producer.transaction();
  await first.send({ topic: 'moved-payments', messages: [{ value: 'p0' }] });
  await first.commit();

  const move = broker.moveCoordinator({ transactionalId: 'moved-tx' }, { count: 3 });
  const second = await producer.transaction();
  await second.send({ topic: 'moved-payments', messages: [{ value: 'p1' }, { value: 'p2' }] });
  await second.commit();
  assert.deepEqual([move.hits, move.moved], [3, false], 'AddPartitionsToTxn (or EndTxn) met the moved coordinator and was retried');

  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(() => conn.close());
  const described = await conn.request('DescribeTransactions', 0, { transactionalIds: ['moved-tx'] });
  assert.equal(described.transactionStates[0]!.transactionState, 'CompleteCommit');
  assert.deepEqual(broker.records('moved-payments').map((r) => r.value?.toString()), ['p0', 'p1', 'p2']);
  const ends = await conn.request('ListOffsets', 4, {
    replicaId: -1, isolationLevel: 1, topics: [{ name: 'moved-payments', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
  });
  // p0, its commit marker, p1, p2, their commit marker: the last stable offset is past both transactions.
  assert.equal(ends.topics[0]!.partitions[0]!.offset, 5n);
});
