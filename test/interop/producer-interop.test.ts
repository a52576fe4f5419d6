/**
 * Brook's producer against third-party software:
 * - partitions: for thousands of random keys and 1, 3, 6, 12 and 100 partitions, the
 *   partition Brook picks equals Java's BuiltInPartitioner.partitionForKey on the same key
 *   bytes, both as a function and as actually produced (Brook's producer and Java's
 *   KafkaProducer, each to a Brook broker);
 * - records Brook produced with every codec are read intact by Java's KafkaConsumer, kcat
 *   (librdkafka) and KafkaJS;
 * - the idempotent producer against Apache Kafka 4.4.0, read back by Java's consumer.
 * librdkafka's mock cluster (test/support/mock-cluster) is not used here yet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Producer, partitionForKey, type CompressionName, type RecordMetadata } from '../../src/index.js';
import { Admin } from '../../src/client/admin.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar, runRoundTrip } from '../support/clients/java.js';
import { runProcess } from '../support/clients/run.js';
import { kcatAvailable, kcatConsume } from '../support/clients/kcat.js';
import { kafkaJs, KafkaJsReader } from '../support/clients/kafkajs.js';
import { startKafka } from '../support/kafka/kafka-broker.js';
import type { ClientRecord } from '../support/clients/records.js';

assert.ok(javaAvailable(), 'java 17+ and Maven are needed for the interop suite');
assert.ok(kcatAvailable(), 'kcat is needed for the interop suite');
const jar = javaJar();

/** Deterministic pseudo-random key bytes, lengths 0..40. */
function randomKeys(count: number, seed: string): Buffer[] {
  const keys: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const digest = createHash('sha256').update(`${seed}-${i}`).digest();
    const length = digest[0]! % 41;
    keys.push(Buffer.concat([digest, createHash('sha256').update(digest).digest()]).subarray(0, length));
  }
  return keys;
}

async function java(args: string[], input: string): Promise<string[]> {
  const result = await runProcess('java', ['-cp', jar, 'brook.conformance.ProducerPartitions', ...args], { input, timeoutMs: 120_000 });
  assert.equal(result.code, 0, result.stderr.slice(-2000));
  return result.stdout.split('\n').filter((l) => l !== '');
}

async function createTopic(bootstrap: string, name: string, partitions: number): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name, partitions, replicationFactor: -1, configs: {} });
  } finally {
    admin.close();
  }
}

const PARTITION_COUNTS = [1, 3, 6, 12, 100];

test('keyed partitioning equals Java BuiltInPartitioner.partitionForKey: 3,000 random keys x 5 partition counts, and Brook producer acks agree', { timeout: 180_000 }, async (t) => {
  const keys = randomKeys(3000, 'partitions');
  const input = PARTITION_COUNTS.flatMap((n) => keys.map((k) => `${n} ${k.toString('hex')}`)).join('\n');
  const javaPartitions = (await java(['hash'], input)).map(Number);
  assert.equal(javaPartitions.length, keys.length * PARTITION_COUNTS.length);
  let i = 0;
  for (const n of PARTITION_COUNTS) for (const k of keys) assert.equal(partitionForKey(k, n), javaPartitions[i++], `key ${k.toString('hex')} with ${n} partitions`);

  // The same keys actually produced by Brook's producer to a Brook broker.
  const broker = await startBrook();
  t.after(() => broker.stop());
  const producer = new Producer({ bootstrapServers: broker.bootstrap });
  t.after(() => producer.close());
  i = 0;
  for (const n of PARTITION_COUNTS) {
    await createTopic(broker.bootstrap, `keys-${n}`, n);
    const metas = await producer.sendBatch(keys.map((key) => ({ topic: `keys-${n}`, key, value: 'v' })));
    for (const m of metas) assert.equal(m.partition, javaPartitions[i++]);
  }
});

test("Java's KafkaProducer and Brook's producer put the same 2,000 keys on the same partitions of a 12-partition topic", { timeout: 120_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  await createTopic(broker.bootstrap, 'java-keys', 12);
  await createTopic(broker.bootstrap, 'brook-keys', 12);
  const keys = randomKeys(2000, 'java-producer').filter((k) => k.length > 0);
  const javaPartitions = (await java(['produce', broker.bootstrap, 'java-keys'], keys.map((k) => k.toString('hex')).join('\n') + '\n')).map(Number);
  assert.equal(javaPartitions.length, keys.length);
  const producer = new Producer({ bootstrapServers: broker.bootstrap });
  t.after(() => producer.close());
  const metas = await producer.sendBatch(keys.map((key) => ({ topic: 'brook-keys', key, value: Buffer.alloc(0) })));
  assert.deepEqual(metas.map((m) => m.partition), javaPartitions);
});

function sortRecords(records: readonly ClientRecord[]): { partition: number; offset: string; key: string | null; value: string | null; seq: string | undefined }[] {
  return records.map((r) => ({ partition: r.partition, offset: r.offset.toString(), key: r.key, value: r.value, seq: r.headers['seq'] }))
    .sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}

async function produceSeqRecords(bootstrap: string, topic: string, count: number, compression: CompressionName): Promise<RecordMetadata[]> {
  const producer = new Producer({ bootstrapServers: bootstrap, compression });
  try {
    return await producer.sendBatch(Array.from({ length: count }, (_, i) => ({
      topic, key: i % 97 === 96 ? null : `key-${i % 37}`, value: `value-${i}-${'the quick brown fox '.repeat(i % 5)}`, headers: { seq: String(i) },
    })));
  } finally {
    await producer.close();
  }
}

for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
  test(`${compression}: 2,000 records from Brook's producer are read intact by Java's KafkaConsumer, kcat and KafkaJS`, { timeout: 180_000 }, async (t) => {
    const broker = await startBrook();
    t.after(() => broker.stop());
    const topic = `codec-${compression}`;
    await createTopic(broker.bootstrap, topic, 3);
    const n = 2000;
    const metas = await produceSeqRecords(broker.bootstrap, topic, n, compression);
    const expected = sortRecords(metas.map((m, i) => ({
      partition: m.partition, offset: m.offset, key: i % 97 === 96 ? null : `key-${i % 37}`,
      value: `value-${i}-${'the quick brown fox '.repeat(i % 5)}`, headers: { seq: String(i) },
    })));
    const viaJava = await runRoundTrip(broker.bootstrap, topic, n, { mode: 'consume', timeoutMs: 90_000 });
    assert.deepEqual(viaJava.errors, []);
    assert.deepEqual(sortRecords(viaJava.records!), expected, 'Java consumer');
    assert.deepEqual(sortRecords(await kcatConsume(broker.bootstrap, topic)), expected, 'kcat');
    const reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap));
    const viaKafkaJs = await reader.readAll(topic);
    assert.deepEqual(sortRecords(viaKafkaJs), expected, 'KafkaJS');
    assert.ok(viaKafkaJs.every((r) => r.producerId >= 0n), 'idempotent batches');
  });
}

test('Apache Kafka 4.4.0: the idempotent producer (zstd and none) writes 5,000 records each; Java reads them intact, offsets as acknowledged', { timeout: 240_000 }, async (t) => {
  const kafka = await startKafka({ config: { 'num.partitions': '1' } });
  t.after(() => kafka.stop());
  for (const compression of ['none', 'zstd'] as const) {
    const topic = `kafka-${compression}`;
    await createTopic(kafka.bootstrap, topic, 4);
    const producer = new Producer({ bootstrapServers: kafka.bootstrap, compression });
    const metas = await producer.sendBatch(Array.from({ length: 5000 }, (_, i) => ({ topic, key: `k${i % 101}`, value: `v${i}`, headers: { seq: String(i) } })));
    assert.ok(producer.producerIdAndEpoch.producerId >= 0n, 'Kafka gave a producer id');
    await producer.close();
    const viaJava = await runRoundTrip(kafka.bootstrap, topic, 5000, { mode: 'consume', timeoutMs: 90_000 });
    assert.deepEqual(viaJava.errors, []);
    const expected = sortRecords(metas.map((m, i) => ({ partition: m.partition, offset: m.offset, key: `k${i % 101}`, value: `v${i}`, headers: { seq: String(i) } })));
    assert.deepEqual(sortRecords(viaJava.records!), expected);
    metas.forEach((m, i) => assert.equal(m.partition, partitionForKey(Buffer.from(`k${i % 101}`), 4)));
    // Idempotence keeps each partition's records in send order, even when the first batch
    // to a just-created partition is refused (NOT_LEADER_OR_FOLLOWER) and retried.
    const lastOffset = new Map<number, bigint>();
    for (const m of metas) {
      assert.ok(m.offset > (lastOffset.get(m.partition) ?? -1n), `send order kept on partition ${m.partition}`);
      lastOffset.set(m.partition, m.offset);
    }
  }
  // An unknown topic is created by the producer's metadata request (auto.create.topics.enable).
  const producer = new Producer({ bootstrapServers: kafka.bootstrap });
  t.after(() => producer.close());
  const meta = await producer.send({ topic: 'kafka-auto-created', value: 'hello' });
  assert.equal(meta.offset, 0n);
});
