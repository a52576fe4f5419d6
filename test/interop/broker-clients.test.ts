/**
 * Acceptance tests of the broker with third-party runtimes: kcat (librdkafka) and Apache
 * Kafka's Java clients 4.4.0 (KafkaProducer, and KafkaConsumer with assign() and no group;
 * groups are in broker-groups.test.ts), plus cross-checks between them and KafkaJS. Every
 * test starts its own broker (in process, or `bin/brook broker` when it gets killed) on a port
 * the OS picks, with a temp data dir, and removes everything afterwards (also on failure).
 *
 * Needs: kcat (librdkafka; `apt-get install kcat`), java 17+ and Maven (the Java clients come
 * from Maven Central into test/support/java's jar, built by its build.sh on first use). As in
 * the rest of the interop suite these are required, not optional: a missing one fails its tests.
 */
import { Api } from '../../src/protocol/messages/index.js';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { spawnBrook, startBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs, KafkaJsReader, baseOffsets, createTopicWithKafkaJs, topicOffsets } from '../support/clients/kafkajs.js';
import { CODEC_ID, storedCodecSet } from '../support/clients/stored.js';
import { kcatAvailable, kcatConsume, kcatProduce } from '../support/clients/kcat.js';
import { javaAvailable, javaJar, roundTripKey, roundTripValue, runRoundTrip, type JavaCompression, type RoundTripSummary } from '../support/clients/java.js';
import {
  assertDeliveredInOrder, assertGapFree, assertSameRecords, byPartition, countsByPartition,
  type AckedRecord, type ClientRecord,
} from '../support/clients/records.js';

const PARTITIONS = 3;
const KCAT_CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const KCAT = kcatAvailable();
const JAVA = javaAvailable();
const NEED_KCAT = 'kcat is needed for the interop suite (apt-get install kcat)';
const NEED_JAVA = 'java 17+ and Maven are needed for the interop suite';

before(() => {
  // Build the Java client jar up front (it blocks the event loop; no broker runs yet).
  if (JAVA) javaJar();
});

/** Records written from "key-(i % 41):value-i" lines: value i carries key-(i % 41), each partition in i order, each key in one partition. */
function checkKcatLines(read: readonly ClientRecord[], count: number, label: string): void {
  assert.equal(read.length, count, `${label}: record count`);
  const seen = new Set<number>();
  const keyPartition = new Map<string, number>();
  for (const r of read) {
    const m = /^value-(\d+)$/.exec(r.value ?? '');
    assert.ok(m, `${label}: unexpected value ${JSON.stringify(r.value)}`);
    const i = Number(m[1]);
    assert.ok(!seen.has(i), `${label}: value-${i} twice`);
    seen.add(i);
    assert.equal(r.key, `key-${i % 41}`, `${label}: key of value-${i}`);
    const p = keyPartition.get(r.key!);
    assert.ok(p === undefined || p === r.partition, `${label}: ${r.key} in partitions ${p} and ${r.partition}`);
    keyPartition.set(r.key!, r.partition);
  }
  for (const [partition, list] of byPartition(read)) {
    const order = list.map((r) => Number(/\d+$/.exec(r.value!)![0]));
    assert.ok(order.every((v, j) => j === 0 || v > order[j - 1]!), `${label}: partition ${partition} is not in production order`);
  }
}

// --- kcat ----------------------------------------------------------------------------------

test('kcat: 5,000 keyed records (-X acks=all) into a 3-partition topic, all consumed back (-C -e) in order; after kill -9 and a restart the same records at the same offsets', { timeout: 60_000 }, async (t) => {
  assert.ok(KCAT, NEED_KCAT);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const first: BrookProcess = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  cleanup.add('kill first broker', () => first.kill());
  const topic = 'kcat-5000';
  await createTopicWithKafkaJs(first.bootstrap, topic, PARTITIONS);

  const COUNT = 5_000;
  const produced = await kcatProduce(first.bootstrap, topic, Array.from({ length: COUNT }, (_, i) => `key-${i % 41}:value-${i}`));
  const read = await kcatConsume(first.bootstrap, topic);
  checkKcatLines(read, COUNT, 'kcat -C');
  assertDeliveredInOrder(read, 'kcat -C');
  assertGapFree(read, 'kcat -C');
  const counts = countsByPartition(read);
  assert.equal(Object.keys(counts).length, PARTITIONS, `records over partitions ${JSON.stringify(counts)}`);
  assert.deepEqual(await topicOffsets(first.bootstrap, topic),
    Object.fromEntries(Object.entries(counts).map(([p, n]) => [p, { low: 0, high: n }])), 'ListOffsets = 0 .. records per partition');

  await first.kill();
  assert.equal(first.child.signalCode, 'SIGKILL');
  const second = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  cleanup.add('stop second broker', () => second.stop());
  const again = await kcatConsume(second.bootstrap, topic);
  assertSameRecords(again, read, 'kcat -C after kill -9 and restart');
  t.diagnostic(`produced in ${produced.ms} ms; records per partition ${JSON.stringify(counts)}`);
});

test('kcat: librdkafka\'s idempotent producer (-X enable.idempotence=true -X acks=all), with -z none/gzip/snappy/lz4/zstd: nothing duplicated, nothing lost, batches carry a producer id', { timeout: 60_000 }, async (t) => {
  assert.ok(KCAT, NEED_KCAT);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap, 'kcat-check-reader'));
  cleanup.add('close reader', () => reader.close());

  const summary: string[] = [];
  for (const codec of KCAT_CODECS) {
    const topic = `kcat-idempotent-${codec}`;
    await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);
    const COUNT = 2_000;
    await kcatProduce(broker.bootstrap, topic, Array.from({ length: COUNT }, (_, i) => `key-${i % 41}:value-${i}`),
      ['-X', 'enable.idempotence=true', '-z', codec]);
    const read = await kcatConsume(broker.bootstrap, topic);
    checkKcatLines(read, COUNT, `kcat idempotent ${codec}`);
    assertGapFree(read, `kcat idempotent ${codec}`);
    // The same records through KafkaJS's decoder, with the batches' producer ids.
    const viaKafkaJs = await reader.readAll(topic);
    assertSameRecords(viaKafkaJs, read, `KafkaJS vs kcat, ${codec}`);
    const producerIds = new Set(viaKafkaJs.map((r) => r.producerId));
    assert.equal(producerIds.size, 1, `one producer id: ${[...producerIds].join(',')}`);
    assert.ok([...producerIds][0]! >= 0n, 'batches carry the idempotent producer id');
    summary.push(`${codec}: ${JSON.stringify(countsByPartition(read))}`);
  }
  t.diagnostic(summary.join('; '));
});

test('kcat -z gzip/snappy/lz4/zstd: librdkafka compresses its batches for Brook as it does for Kafka 4.4 (the stored batches carry the codec)', { timeout: 30_000 }, async (t) => {
  // librdkafka (2.0.2 here) compresses with gzip or snappy only if the broker's ApiVersions
  // range for Produce includes v0, and with lz4 only if it also lists FindCoordinator v0;
  // otherwise it logs "Broker does not support compression type ...: not compressing batch"
  // and sends the batch uncompressed. Kafka 4.4 no longer accepts Produce v0-2 but still
  // advertises Produce 0-13 for this reason (KAFKA-18659).
  assert.ok(KCAT, NEED_KCAT);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const wrong: string[] = [];
  for (const codec of KCAT_CODECS) {
    const topic = `kcat-codec-${codec}`;
    await createTopicWithKafkaJs(broker.bootstrap, topic, 1);
    await kcatProduce(broker.bootstrap, topic, Array.from({ length: 500 }, (_, i) => `key-${i % 41}:value-${i}`), ['-z', codec]);
    assert.equal((await kcatConsume(broker.bootstrap, topic)).length, 500, `${codec}: records read back`);
    const stored = storedCodecSet(broker, topic, 1);
    // librdkafka only uses lz4 when the broker lists FindCoordinator v0; a broker without
    // the group APIs gets its lz4 batches uncompressed.
    const lz4Usable = broker.context.handlers.has(Api.FindCoordinator.apiKey);
    const expected = codec === 'lz4' && !lz4Usable ? 0 : CODEC_ID[codec];
    // librdkafka sends a batch uncompressed when compressing does not make it smaller (small
    // batches, frame overhead), so codec 0 may appear beside the requested one.
    const ok = stored.includes(expected) && stored.every((id) => id === expected || id === 0);
    if (!ok) wrong.push(`-z ${codec}: stored batches have codec ids ${JSON.stringify(stored)}, expected [${expected}] (or also 0)`);
  }
  assert.deepEqual(wrong, [], 'batches not compressed as asked');
});

// --- Java ----------------------------------------------------------------------------------

function assertRoundTrip(s: RoundTripSummary, count: number, label: string): void {
  assert.deepEqual(s.errors, [], `${label}: RoundTrip errors`);
  assert.equal(s.produced, count, `${label}: produced`);
  assert.equal(s.consumed, count, `${label}: consumed`);
  const partitions = Object.entries(s.partitions);
  assert.equal(partitions.length, PARTITIONS, `${label}: partitions used ${JSON.stringify(s.partitions)}`);
  for (const [p, info] of partitions) {
    assert.equal(info.consumed, info.produced, `${label}: partition ${p} consumed`);
    assert.equal(info.lastConsumedOffset, info.lastProducedOffset, `${label}: partition ${p} last offset`);
    assert.equal(info.endOffset, (info.lastProducedOffset ?? -1) + 1, `${label}: partition ${p} end offset = last produced + 1`);
    assert.equal(info.endOffset, info.produced, `${label}: partition ${p} offsets from 0 without a gap`);
  }
}

test('Java clients 4.4.0: KafkaProducer (acks=all, idempotent on and off, every codec) → KafkaConsumer with assign() + seekToBeginning (no group), 3 partitions', { timeout: 90_000 }, async (t) => {
  assert.ok(JAVA, NEED_JAVA);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());

  const COUNT = 1_000;
  const codecs: JavaCompression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
  const cases = [true, false].flatMap((idempotent) => codecs.map((compression) => ({ idempotent, compression })));
  const results: string[] = [];
  // Two JVMs at a time.
  const queue = [...cases];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      const label = `idempotent=${c.idempotent} compression=${c.compression}`;
      const topic = `java-${c.idempotent ? 'idem' : 'plain'}-${c.compression}`;
      await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);
      const s = await runRoundTrip(broker.bootstrap, topic, COUNT, { idempotent: c.idempotent, compression: c.compression, timeoutMs: 40_000 });
      assertRoundTrip(s, COUNT, label);
      const code = CODEC_ID[c.compression];
      assert.deepEqual(storedCodecSet(broker, topic, PARTITIONS), [code], `${label}: stored batch codecs`);
      results.push(`${label}: produce ${s.produceMs} ms, consume ${s.consumeMs} ms`);
    }
  };
  await Promise.all([worker(), worker()]);
  t.diagnostic(results.join('; '));
});

test('cross-check: KafkaJS produces (acks=-1), the Java KafkaConsumer (assign, no group) reads every record at its acknowledged offset', { timeout: 60_000 }, async (t) => {
  assert.ok(JAVA, NEED_JAVA);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'kafkajs-to-java';
  await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);

  const producer = kafkaJs(broker.bootstrap, 'kafkajs-to-java').producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());
  const partitioner = Partitioners.DefaultPartitioner();
  const metadata: PartitionMetadata[] = Array.from({ length: PARTITIONS }, (_, i) => ({ partitionErrorCode: 0, partitionId: i, leader: 1, replicas: [1], isr: [1] }));
  const acked: AckedRecord[] = [];
  for (let send = 0; send < 10; send++) {
    const messages = Array.from({ length: 100 }, (_, j) => {
      const i = send * 100 + j;
      return { key: `key-${i % 37}`, value: `kafkajs-value-${i}`, headers: { seq: String(i) } };
    });
    const next = new Map(baseOffsets(await producer.send({ topic, acks: -1, messages })));
    for (const m of messages) {
      const partition = partitioner({ topic, partitionMetadata: metadata, message: m });
      const offset = next.get(partition)!;
      next.set(partition, offset + 1n);
      acked.push({ partition, offset, key: m.key, value: m.value, headers: m.headers });
    }
  }
  const s = await runRoundTrip(broker.bootstrap, topic, acked.length, { mode: 'consume', timeoutMs: 40_000 });
  assert.deepEqual(s.errors, [], 'RoundTrip errors');
  assertDeliveredInOrder(s.records!, 'Java consumer');
  assertSameRecords(s.records!, acked, 'Java consumer vs KafkaJS acknowledgements');
  t.diagnostic(`Java consumed ${s.consumed} records in ${s.consumeMs} ms: ${JSON.stringify(countsByPartition(s.records!))}`);
});

test('cross-check: the Java KafkaProducer (idempotent, lz4) produces, kcat consumes every record at the offset Java was told', { timeout: 60_000 }, async (t) => {
  assert.ok(JAVA, NEED_JAVA);
  assert.ok(KCAT, NEED_KCAT);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'java-to-kcat';
  await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);

  const COUNT = 1_000;
  const s = await runRoundTrip(broker.bootstrap, topic, COUNT, { mode: 'produce', compression: 'lz4', timeoutMs: 40_000 });
  assert.deepEqual(s.errors, [], 'RoundTrip errors');
  const acked = s.records!;
  assert.equal(acked.length, COUNT);
  // What Java says it sent is what RoundTrip is documented to send.
  for (const r of acked) {
    const i = Number(r.headers['seq']);
    assert.equal(r.key, roundTripKey(i));
    assert.equal(r.value, roundTripValue(i));
  }
  const read = await kcatConsume(broker.bootstrap, topic);
  assertDeliveredInOrder(read, 'kcat -C');
  assertSameRecords(read, acked, 'kcat vs Java acknowledgements');
  assert.ok(read.some((r) => r.key === null), 'null keys come back as null');
  t.diagnostic(`Java produced ${COUNT} in ${s.produceMs} ms: ${JSON.stringify(countsByPartition(read))}`);
});
