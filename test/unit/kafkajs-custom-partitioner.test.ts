/**
 * A custom KafkaJS partitioner sees each message's key as the application gave it (a string
 * stays a string, a Buffer a Buffer, no key null), as KafkaJS 2.2.4 calls it: partitioners
 * call string methods on keys (KafkaJS's own tests' `message.key.replace(...)`). The oracle is
 * what the same partitioner sees under the real KafkaJS producer, and the partitions it picks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, type ICustomPartitioner } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

/** A partitioner that records what it was given: the key's type and text, and picks by the key's digits. */
function recording(seen: string[]): ICustomPartitioner {
  return () => ({ partitionMetadata, message }) => {
    const key = message.key as unknown;
    const kind = key === null || key === undefined ? 'none' : typeof key === 'string' ? 'string' : Buffer.isBuffer(key) ? 'buffer' : typeof key;
    seen.push(`${kind}:${key === null || key === undefined ? '' : String(key)}`);
    const digits = kind === 'string' ? Number((key as string).replace(/[^\d]/g, '')) : 0;
    return digits % partitionMetadata.length;
  };
}

test('a custom partitioner gets string keys as strings, Buffer keys as Buffers and missing keys as null, as under KafkaJS', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'p-theirs', numPartitions: 3 }, { topic: 'p-ours', numPartitions: 3 }] });
  const messages = [{ key: 'key-1', value: 'a' }, { key: 'key-5', value: 'b' }, { key: Buffer.from('key-7'), value: 'c' }, { key: null, value: 'd' }, { key: 'key-1', value: 'e' }];

  const theirsSeen: string[] = [];
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).producer({ createPartitioner: recording(theirsSeen) as unknown as real.ICustomPartitioner });
  await theirs.connect();
  cleanup.add('their producer', () => theirs.disconnect());
  const theirResult = await theirs.send({ topic: 'p-theirs', messages });

  const oursSeen: string[] = [];
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer({ createPartitioner: recording(oursSeen) });
  await ours.connect();
  cleanup.add('our producer', () => ours.disconnect());
  const ourResult = await ours.send({ topic: 'p-ours', messages });

  assert.deepEqual(oursSeen, theirsSeen);
  const partitions = (r: { partition: number }[]): number[] => r.map((x) => x.partition).sort();
  assert.deepEqual(partitions(ourResult), partitions(theirResult));
});
