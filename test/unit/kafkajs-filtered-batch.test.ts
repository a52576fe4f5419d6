/**
 * A fetch that holds no record for the application (only an aborted transaction's record and
 * its abort marker, read_committed): brook/kafkajs reports it as the real KafkaJS 2.2.4 (the
 * oracle, on the same Brook broker) does: START_BATCH_PROCESS and END_BATCH_PROCESS with
 * batchSize 0 and the filtered data's first and last offsets, and the marker's offset is
 * resolved (brook/kafkajs's stop() commits it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 90_000 };

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyKafka = { consumer(config: any): any; producer(config?: any): any; admin(): any };

function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

test('a fetch of only an aborted record and its marker is an empty batch, whose offset is resolved', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const clients: [string, AnyKafka][] = [
    ['kafkajs', new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }) as unknown as AnyKafka],
    ['brook', new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }) as unknown as AnyKafka],
  ];
  const admin = clients[1]![1].admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'aborted', numPartitions: 1 }] });

  const events: Record<string, { type: string; payload: any }[]> = {};
  const consumers: any[] = [];
  for (const [name, kafka] of clients) {
    const consumer = kafka.consumer({ groupId: `filtered-${name}`, maxWaitTimeInMs: 100 });
    cleanup.add(`${name} consumer`, () => consumer.disconnect());
    const seen: { type: string; payload: any }[] = events[name] = [];
    const record = (e: any): void => { const { duration: _d, ...payload } = e.payload; seen.push({ type: e.type, payload }); };
    consumer.on(consumer.events.START_BATCH_PROCESS, record);
    consumer.on(consumer.events.END_BATCH_PROCESS, record);
    await consumer.connect();
    await consumer.subscribe({ topic: 'aborted', fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    consumers.push(consumer);
  }

  const producer = clients[0]![1].producer({ transactionalId: 'aborting', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const transaction = await producer.transaction();
  await transaction.send({ topic: 'aborted', acks: -1, messages: [{ key: 'k', value: 'v' }] });
  await transaction.abort();
  await producer.disconnect();

  for (const [name] of clients) await until(() => events[name]!.length >= 2, 30_000, `${name}: the batch events`);
  for (const c of consumers) await c.stop();
  // Both resolve the marker's offset; KafkaJS commits it with the run's next commit only (its
  // stop() commits nothing), brook/kafkajs's stop() commits what was resolved (docs/KAFKAJS.md).
  const offsets: Record<string, unknown> = {};
  for (const [name] of clients) {
    const [{ partitions }] = await admin.fetchOffsets({ groupId: `filtered-${name}`, topics: ['aborted'] });
    offsets[name] = partitions[0].offset;
  }
  const lag = (p: any): any => ({ ...p, offsetLag: typeof p.offsetLag, offsetLagLow: typeof p.offsetLagLow });
  const expected = { topic: 'aborted', partition: 0, highWatermark: '2', offsetLag: 'string', offsetLagLow: 'string', batchSize: 0, firstOffset: '0', lastOffset: '1' };
  assert.deepEqual(events['kafkajs']!.map((e) => ({ type: e.type, payload: lag(e.payload) })), [
    { type: 'consumer.start_batch_process', payload: expected },
    { type: 'consumer.end_batch_process', payload: expected },
  ]);
  assert.deepEqual(events['brook'], events['kafkajs']);
  assert.deepEqual(offsets, { kafkajs: '-1', brook: '2' });
});
