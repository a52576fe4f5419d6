/**
 * @platformatic/kafka, in the benchmark's own process: 2.x, or 1.x on Node before 22.22 (the
 * tests' choice, test/support/clients/platformatic-kafka.ts). Consume: one Consumer in a fresh
 * group, consume() from the earliest offsets, counting stream records. Produce: send() of
 * 1,000 records, 4 sends in flight (window.ts), idempotence off for acks=1.
 */
import { platformaticKafka } from '../../test/support/clients/platformatic-kafka.js';
import type { ThroughputClient, ThroughputRun } from './types.js';
import { sendWindowed } from './window.js';

const { Consumer, MessagesStreamModes, Producer } = platformaticKafka;

export const platformaticClient: ThroughputClient = {
  name: 'platformatic',
  inProcess: true,
  unavailable: () => null,
  async consume(spec): Promise<ThroughputRun> {
    const consumer = new Consumer({ clientId: 'brook-bench-platformatic', groupId: spec.group, bootstrapBrokers: [spec.bootstrap] });
    const start = performance.now();
    let count = 0;
    let first: number | null = null;
    try {
      const stream = await consumer.consume({ topics: [spec.topic], mode: MessagesStreamModes.EARLIEST, autocommit: true });
      const ms = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`platformatic consumed ${count} of ${spec.records} in ${spec.timeoutMs} ms`)), spec.timeoutMs);
        stream.on('data', () => {
          first ??= performance.now() - start;
          count++;
          if (count === spec.records) {
            clearTimeout(timer);
            resolve(performance.now() - start);
          }
        });
        stream.on('error', reject);
      });
      await stream.close();
      return { records: count, ms, firstRecordMs: first, clientRssBytes: null };
    } finally {
      await consumer.close(true);
    }
  },
  async produce(spec): Promise<ThroughputRun> {
    const producer = new Producer({ clientId: 'brook-bench-platformatic', bootstrapBrokers: [spec.bootstrap], idempotent: spec.acks === -1 ? undefined : false });
    try {
      const value = Buffer.alloc(spec.valueBytes, 'x');
      const start = performance.now();
      await sendWindowed(spec.records, async (_from, count) => {
        await producer.send({ acks: spec.acks, messages: Array.from({ length: count }, () => ({ topic: spec.topic, value })) });
      });
      return { records: spec.records, ms: performance.now() - start, clientRssBytes: null };
    } finally {
      await producer.close();
    }
  },
};
