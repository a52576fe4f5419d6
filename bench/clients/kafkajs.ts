/**
 * KafkaJS 2.x, in the benchmark's own process (its RSS is not separable from the harness's).
 * Consume: one consumer in a fresh group, fromBeginning, eachBatch counting records. Produce:
 * producer.send of 1,000 records, 4 sends in flight (window.ts).
 */
import { Kafka, logLevel } from 'kafkajs';
import type { ThroughputClient, ThroughputRun } from './types.js';
import { sendWindowed } from './window.js';

function kafka(bootstrap: string): Kafka {
  return new Kafka({
    clientId: 'brook-bench-kafkajs', brokers: [bootstrap], logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 },
  });
}

export const kafkajsClient: ThroughputClient = {
  name: 'kafkajs',
  inProcess: true,
  unavailable: () => null,
  async consume(spec): Promise<ThroughputRun> {
    const consumer = kafka(spec.bootstrap).consumer({ groupId: spec.group });
    const start = performance.now();
    let count = 0;
    let first: number | null = null;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
      const ms = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`kafkajs consumed ${count} of ${spec.records} in ${spec.timeoutMs} ms`)), spec.timeoutMs);
        consumer.run({
          eachBatch: async ({ batch }) => {
            first ??= performance.now() - start;
            count += batch.messages.length;
            if (count >= spec.records) {
              clearTimeout(timer);
              resolve(performance.now() - start);
            }
          },
        }).catch(reject);
      });
      return { records: count, ms, firstRecordMs: first, clientRssBytes: null };
    } finally {
      await consumer.disconnect();
    }
  },
  async produce(spec): Promise<ThroughputRun> {
    const producer = kafka(spec.bootstrap).producer();
    await producer.connect();
    try {
      const value = Buffer.alloc(spec.valueBytes, 'x');
      const start = performance.now();
      await sendWindowed(spec.records, async (_from, count) => {
        await producer.send({ topic: spec.topic, acks: spec.acks, messages: Array.from({ length: count }, () => ({ key: null, value })) });
      });
      return { records: spec.records, ms: performance.now() - start, clientRssBytes: null };
    } finally {
      await producer.disconnect();
    }
  },
};
