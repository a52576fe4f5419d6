/**
 * A group of brook/kafkajs consumers (and optionally KafkaJS 2.2.4 consumers) on a topic of
 * records produced beforehand, for tests of brook/kafkajs's group protocols against Brook's and
 * Kafka's brokers. `done()` waits until every record is handled and the committed offsets are
 * the end offsets (read with KafkaJS 2.2.4's admin client), then checks that no record was
 * handled twice and no member crashed.
 */
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, type ConsumerConfig } from '../../src/kafkajs/index.js';
import { Cleanup } from './clients/cleanup.js';
import { until as untilValue } from './clients/run.js';

export const PARTITIONS = 6;
export const RECORDS = 60;

export function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

export interface KafkaJsGroupOptions {
  bootstrap: string;
  topic: string;
  groupId: string;
  /** brook/kafkajs's consumer config beyond groupId. */
  config: Omit<ConsumerConfig, 'groupId'>;
  /** Which package each member runs; default two brook/kafkajs members. */
  members?: ('brook' | 'kafkajs')[];
}

export async function kafkajsGroup(cleanup: Cleanup, o: KafkaJsGroupOptions) {
  const realKafka = new real.Kafka({ brokers: [o.bootstrap], logLevel: real.logLevel.NOTHING });
  const admin = realKafka.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: o.topic, numPartitions: PARTITIONS }] });
  const producer = realKafka.producer();
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());
  await producer.send({ topic: o.topic, messages: Array.from({ length: RECORDS }, (_, i) => ({ value: `r${i}`, partition: i % PARTITIONS })) });

  const handled: string[] = [];
  const crashes: string[] = [];
  for (const [i, kind] of (o.members ?? ['brook', 'brook']).entries()) {
    const clientId = `${kind}-${i + 1}`;
    const onCrash = (e: { payload: { error: Error } }): void => { crashes.push(`${clientId}: ${e.payload.error.message}`); };
    const eachMessage = async ({ partition, message }: { partition: number; message: { offset: string } }): Promise<void> => { handled.push(`${partition}:${message.offset}`); };
    if (kind === 'brook') {
      const c = new Kafka({ brokers: [o.bootstrap], clientId, logLevel: logLevel.NOTHING }).consumer({ groupId: o.groupId, maxWaitTimeInMs: 100, ...o.config });
      cleanup.add(clientId, () => c.disconnect());
      c.on(c.events.CRASH, (e) => onCrash(e as never));
      await c.connect();
      await c.subscribe({ topics: [o.topic], fromBeginning: true });
      await c.run({ eachMessage });
    } else {
      const c = new real.Kafka({ brokers: [o.bootstrap], clientId, logLevel: real.logLevel.NOTHING }).consumer({ groupId: o.groupId, maxWaitTimeInMs: 100 });
      cleanup.add(clientId, () => c.disconnect());
      c.on(c.events.CRASH, (e) => onCrash(e as never));
      await c.connect();
      await c.subscribe({ topics: [o.topic], fromBeginning: true });
      await c.run({ eachMessage });
    }
  }
  const done = async (): Promise<void> => {
    await until(() => handled.length >= RECORDS, 60_000, 'every record handled');
    await until(async () => {
      const [{ partitions }] = await admin.fetchOffsets({ groupId: o.groupId, topics: [o.topic] });
      return partitions.every((p) => p.offset === String(RECORDS / PARTITIONS));
    }, 30_000, 'offsets committed up to the end');
    assert.deepEqual(crashes, []);
    assert.equal(new Set(handled).size, handled.length, 'no record handled twice');
    assert.equal(handled.length, RECORDS);
  };
  return { admin, done };
}
