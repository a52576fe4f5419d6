/**
 * The batches eachBatch gets, against KafkaJS 2.2.4's on the same topic: KafkaJS hands a
 * partition's whole fetched data to one eachBatch call (and commits once after it), so a
 * topic of 3,000 small records in one record batch comes as one batch of 3,000, not as six of
 * Brook's 500-record polls (six handler calls and six commits: half KafkaJS's throughput when
 * commits are fsynced).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';

const T = { timeout: 60_000 };
const RECORDS = 3_000;

interface BatchApi {
  consumer(config: { groupId: string }): {
    connect(): Promise<void>;
    subscribe(s: { topics: string[]; fromBeginning: boolean }): Promise<void>;
    run(config: { eachBatch: (p: { batch: { messages: unknown[] } }) => Promise<void> }): Promise<void>;
    disconnect(): Promise<void>;
  };
}

async function batchSizes(kafka: BatchApi, topic: string, groupId: string, cleanup: Cleanup): Promise<number[]> {
  const consumer = kafka.consumer({ groupId });
  cleanup.add(`consumer ${groupId}`, () => consumer.disconnect());
  const sizes: number[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachBatch: async ({ batch }) => void sizes.push(batch.messages.length) });
  await until(`${groupId}: all records`, 20_000, async () => (sizes.reduce((a, b) => a + b, 0) >= RECORDS ? true : undefined));
  await consumer.disconnect();
  return sizes;
}

test('eachBatch gets a partition\'s whole fetched data at once, as KafkaJS\'s does', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const kafkajs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const admin = kafkajs.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 1 }] });
  const producer = kafkajs.producer();
  await producer.connect();
  // One send: one record batch of about 300 KB, within one fetch of either client.
  await producer.send({ topic: 'events', messages: Array.from({ length: RECORDS }, (_, i) => ({ value: `event-${i}-${'x'.repeat(90)}` })) });
  await producer.disconnect();

  const theirs = await batchSizes(kafkajs as unknown as BatchApi, 'events', 'g-kafkajs', cleanup);
  const ours = await batchSizes(new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }) as unknown as BatchApi, 'events', 'g-brook', cleanup);
  assert.deepEqual(theirs, [RECORDS]);
  assert.deepEqual(ours, theirs);
});
