/**
 * A transactional producer's own send() is outside any transaction, as in KafkaJS 2.2.4 (only
 * the transaction object's sends are in it): before a transaction, and while one is open, the
 * record is written at once and a read_committed reader sees it before the transaction ends.
 * The real KafkaJS producer does the same calls first (the oracle), and both runs must read
 * back alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

interface TxProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; messages: { value: string }[] }): Promise<unknown>;
  transaction(): Promise<{ send(r: { topic: string; messages: { value: string }[] }): Promise<unknown>; commit(): Promise<void> }>;
}

/** The values a read_committed KafkaJS consumer reads from `topic` within `ms` (expecting `count`). */
async function committedValues(bootstrap: string, topic: string, count: number, ms = 3_000): Promise<string[]> {
  const consumer = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING }).consumer({ groupId: `reader-${topic}-${Math.random()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: string[] = [];
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    void consumer.run({ eachMessage: async ({ message }) => { got.push(String(message.value)); if (got.length >= count) { clearTimeout(timer); resolve(); } } });
  });
  await consumer.disconnect();
  return got;
}

async function scenario(producer: TxProducer, bootstrap: string, prefix: string): Promise<string[][]> {
  await producer.connect();
  await producer.send({ topic: `${prefix}-out`, messages: [{ value: 'before' }] });
  const tx = await producer.transaction();
  await tx.send({ topic: `${prefix}-in`, messages: [{ value: 'in-tx' }] });
  await producer.send({ topic: `${prefix}-out`, messages: [{ value: 'during' }] });
  const whileOpen = [await committedValues(bootstrap, `${prefix}-out`, 2), await committedValues(bootstrap, `${prefix}-in`, 1, 1_500)];
  await tx.commit();
  const after = await committedValues(bootstrap, `${prefix}-in`, 1);
  await producer.disconnect();
  return [...whileOpen, after];
}

test('a transactional producer\'s send() writes outside the transaction, before and during one, as KafkaJS\'s does', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING })
    .producer({ transactionalId: 'tx-theirs', idempotent: true, maxInFlightRequests: 1, createPartitioner: real.Partitioners.DefaultPartitioner });
  const expected = await scenario(theirs as unknown as TxProducer, broker.bootstrap, 'theirs');
  assert.deepEqual(expected, [['before', 'during'], [], ['in-tx']]);
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer({ transactionalId: 'tx-ours', idempotent: true, maxInFlightRequests: 1 });
  assert.deepEqual(await scenario(ours as unknown as TxProducer, broker.bootstrap, 'ours'), expected);
});

test('an ended transaction rejects further calls with KafkaJS\'s error; send() outside it takes acks 1 unless idempotent was asked for', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const outcome = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: Error) => `${e.name}: ${e.message}`);
  const run = async (producer: { connect(): Promise<void>; disconnect(): Promise<void>; send(r: object): Promise<unknown>; transaction(): Promise<{ commit(): Promise<void>; send(r?: object): Promise<unknown>; sendBatch(b?: object): Promise<unknown> }> }, topic: string): Promise<string[]> => {
    await producer.connect();
    const tx = await producer.transaction();
    await tx.send({ topic, messages: [{ value: 'x' }] });
    await tx.commit();
    const out = [await outcome(tx.send()), await outcome(tx.sendBatch()), await outcome(producer.send({ topic, acks: 1, messages: [{ value: 'y' }] }))];
    await producer.disconnect();
    return out;
  };
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).producer({ transactionalId: 'ended-theirs', createPartitioner: real.Partitioners.DefaultPartitioner });
  const expected = await run(theirs as never, 'ended-theirs');
  assert.deepEqual(expected, ['KafkaJSNonRetriableError: Cannot continue to use transaction once ended', 'KafkaJSNonRetriableError: Cannot continue to use transaction once ended', 'resolved']);
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer({ transactionalId: 'ended-ours' });
  assert.deepEqual(await run(ours as never, 'ended-ours'), expected);
});
