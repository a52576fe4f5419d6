/**
 * Acceptance tests of the broker with clients Brook did not write, Node-only peers (runs in
 * `npm test`): KafkaJS 2.2 and @platformatic/kafka (2.x; 1.x on Node before 22.22: support/
 * clients/platformatic-kafka.ts) (npm dev dependencies), raw TCP for
 * malformed input, and `bin/brook broker` as a child process for kill -9, SIGTERM and the
 * command-line contract. Every test starts its own broker on a port the OS picks, with a temp
 * data dir, and removes everything afterwards (also on failure).
 *
 * Reading without a consumer group (groups are tested in broker-groups.test.ts): KafkaJS has no
 * group-less consumer, and @platformatic/kafka's `consume()` always joins a group. So records
 * are read back through KafkaJS's own Fetch path below its group logic (support/clients/
 * kafkajs.ts) and through @platformatic/kafka's group-less `Consumer.fetch()`.
 *
 * Needs: Node 20 or newer, `npm ci`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { CompressionTypes, Partitioners, type Producer as KafkaJsProducer, type PartitionMetadata } from 'kafkajs';
import type { CompressionAlgorithmValue } from '@platformatic/kafka';
import { startBrook, spawnBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { kafkaJs, KafkaJsReader, baseOffsets, createTopicWithKafkaJs, topicOffsets, type ReadRecord } from '../support/clients/kafkajs.js';
import { CODEC_ID, storedCodecSet } from '../support/clients/stored.js';
import { platformaticReadAll } from '../support/clients/platformatic.js';
import { PLATFORMATIC_KAFKA, platformaticKafka } from '../support/clients/platformatic-kafka.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { within } from '../support/clients/run.js';
import { frame, requestV1, seededBytes, sendRaw, openRaw } from '../support/clients/raw-socket.js';
import {
  assertContainsAcked, assertDeliveredInOrder, assertGapFree, assertSameRecords, byPartition, countsByPartition,
  type AckedRecord, type ClientRecord,
} from '../support/clients/records.js';

const PARTITIONS = 3;

function partitionMetadata(n: number): PartitionMetadata[] {
  return Array.from({ length: n }, (_, i) => ({ partitionErrorCode: 0, partitionId: i, leader: 1, replicas: [1], isr: [1], offlineReplicas: [] }));
}

/** The sequence numbers in the `seq` header, per partition, must increase (the producer's order). */
function assertSeqOrder(records: readonly ClientRecord[], label: string): void {
  for (const [partition, list] of byPartition(records)) {
    let previous = -1;
    for (const r of list) {
      const seq = Number(r.headers['seq']);
      assert.ok(seq > previous, `${label}: partition ${partition} offset ${r.offset} has seq ${seq} after ${previous}`);
      previous = seq;
    }
  }
}

test('KafkaJS: admin creates a 3-partition topic; 1,000 keyed records with headers, acks=-1, plain and gzip batches; all read back in order at their acknowledged offsets', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'kafkajs-roundtrip';
  const kafka = kafkaJs(broker.bootstrap);
  await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);

  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());

  // 10 sends of 100 records; odd sends gzip-compressed. The partition of each record is the
  // one KafkaJS's (Java-compatible murmur2) partitioner picks for its key; within one send the
  // records of a partition get consecutive offsets from the base offset the broker acknowledged.
  const partitioner = Partitioners.DefaultPartitioner();
  const metadata = partitionMetadata(PARTITIONS);
  const expected: AckedRecord[] = [];
  for (let send = 0; send < 10; send++) {
    const messages = Array.from({ length: 100 }, (_, j) => {
      const i = send * 100 + j;
      return { key: `key-${i % 13}`, value: `value-${i}`, headers: { seq: String(i), client: 'kafkajs' } };
    });
    const result = await producer.send({ topic, acks: -1, compression: send % 2 === 1 ? CompressionTypes.GZIP : CompressionTypes.None, messages });
    const bases = baseOffsets(result);
    const next = new Map(bases);
    for (const m of messages) {
      const partition = partitioner({ topic, partitionMetadata: metadata, message: m });
      const offset = next.get(partition);
      assert.ok(offset !== undefined, `send ${send}: no acknowledgement for partition ${partition}`);
      next.set(partition, offset + 1n);
      expected.push({ partition, offset, key: m.key, value: m.value, headers: m.headers });
    }
  }

  const reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap, 'kafkajs-reader'));
  cleanup.add('close reader', () => reader.close());
  const read = await reader.readAll(topic);
  assertDeliveredInOrder(read, 'KafkaJS fetch');
  assertGapFree(read, 'KafkaJS fetch');
  assertSameRecords(read, expected, 'KafkaJS fetch vs acknowledged');
  assertSeqOrder(read, 'KafkaJS fetch');
  const counts = countsByPartition(read);
  assert.ok(Object.keys(counts).length === PARTITIONS, `records spread over ${JSON.stringify(counts)}`);
  // A second, independent reader: @platformatic/kafka's group-less Consumer.fetch (Fetch v17).
  assertSameRecords(await platformaticReadAll(broker.bootstrap, topic), expected, '@platformatic/kafka fetch vs acknowledged');

  // ListOffsets (KafkaJS admin): earliest 0, latest = records per partition.
  assert.deepEqual(await topicOffsets(broker.bootstrap, topic),
    Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [p, { low: 0, high: counts[p] }])));

  // The gzip sends were stored as gzip batches (fetch serves the stored bytes).
  assert.deepEqual(storedCodecSet(broker, topic, PARTITIONS), [CODEC_ID.none, CODEC_ID.gzip], 'stored batch codecs');
  t.diagnostic(`records per partition ${JSON.stringify(counts)}`);
});

// --- @platformatic/kafka -------------------------------------------------------------------

const { Admin, Producer, defaultPartitioner, stringSerializers, ProduceAcks } = platformaticKafka;

/** zstd needs node:zlib's zstd (Node 22.15+); @platformatic/kafka refuses it otherwise. */
const PLATFORMATIC_CODECS: CompressionAlgorithmValue[] = ['none', 'gzip', 'snappy', 'lz4',
  ...(typeof (zlib as unknown as Record<string, unknown>)['zstdCompressSync'] === 'function' ? ['zstd' as const] : [])];

/**
 * Creates a 3-partition topic with @platformatic/kafka's Admin and produces `perCodec` keyed
 * records per codec with its idempotent Producer (acks=-1); returns what was acknowledged,
 * each record at (the partition its default partitioner picks, base offset + position).
 */
async function platformaticProduce(bootstrap: string, topic: string, perCodec: number, cleanup: Cleanup): Promise<AckedRecord[]> {
  const admin = new Admin({ clientId: 'brook-test-platformatic-admin', bootstrapBrokers: [bootstrap], retries: 1 });
  cleanup.add('close platformatic admin', () => admin.close());
  const created = await admin.createTopics({ topics: [topic], partitions: PARTITIONS, replicas: 1 });
  assert.equal(created[0]?.partitions, PARTITIONS);

  const producer = new Producer({
    clientId: 'brook-test-platformatic-producer', bootstrapBrokers: [bootstrap], serializers: stringSerializers,
    idempotent: true, acks: ProduceAcks.ALL, retries: 1, autocreateTopics: false,
  });
  cleanup.add('close platformatic producer', () => producer.close(true));
  const acked: AckedRecord[] = [];
  let i = 0;
  for (const compression of PLATFORMATIC_CODECS) {
    const messages = Array.from({ length: perCodec }, () => {
      const n = i++;
      return { topic, key: `key-${n % 11}`, value: `value-${n}-${compression}`, headers: { seq: String(n), codec: compression } };
    });
    const result = await producer.send({ messages, compression });
    const next = new Map((result.offsets ?? []).map((o) => [o.partition, o.offset]));
    for (const m of messages) {
      const partition = defaultPartitioner(m, Buffer.from(m.key)) % PARTITIONS;
      const offset = next.get(partition);
      assert.ok(offset !== undefined, `${compression}: no acknowledgement for partition ${partition}: ${JSON.stringify(result.offsets, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
      next.set(partition, offset + 1n);
      acked.push({ partition, offset, key: m.key, value: m.value, headers: m.headers });
    }
  }
  return acked;
}

test(`${PLATFORMATIC_KAFKA}: idempotent Producer, acks=-1, codecs ${PLATFORMATIC_CODECS.join('/')}: every record at its acknowledged offset (read back by KafkaJS)`, { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'platformatic-produce';
  const acked = await platformaticProduce(broker.bootstrap, topic, 200, cleanup);

  const reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap, 'kafkajs-reader'));
  cleanup.add('close reader', () => reader.close());
  const read = await reader.readAll(topic);
  assertDeliveredInOrder(read, 'KafkaJS fetch');
  assertGapFree(read, 'KafkaJS fetch');
  assertSameRecords(read, acked, 'KafkaJS fetch vs @platformatic/kafka acknowledgements');
  assert.ok(read.every((r: ReadRecord) => r.producerId >= 0n), 'every batch carries the idempotent producer id');
  assert.deepEqual(storedCodecSet(broker, topic, PARTITIONS), PLATFORMATIC_CODECS.map((c) => CODEC_ID[c]), 'stored batch codecs');
  t.diagnostic(`records per partition ${JSON.stringify(countsByPartition(read))}`);
});

test(`${PLATFORMATIC_KAFKA}: produce → group-less Consumer.fetch (Fetch v17, topics by id) round trip`, { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'platformatic-roundtrip';
  const acked = await platformaticProduce(broker.bootstrap, topic, 100, cleanup);
  const read = await platformaticReadAll(broker.bootstrap, topic);
  assertDeliveredInOrder(read, '@platformatic/kafka fetch');
  assertGapFree(read, '@platformatic/kafka fetch');
  assertSameRecords(read, acked, '@platformatic/kafka fetch vs acknowledged');
});

// --- kill -9, SIGTERM, command line --------------------------------------------------------

test('kill -9 mid-stream: every record KafkaJS\'s idempotent producers had acknowledged (acks=-1) is there after a restart, at its offset, and appends continue after it', { timeout: 45_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  let brook: BrookProcess = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  const first = brook;
  cleanup.add('kill first broker', () => first.kill());
  const topic = 'crash';
  await createTopicWithKafkaJs(brook.bootstrap, topic, PARTITIONS);

  // One lane per partition, each its own idempotent producer (own connection and producer id)
  // sending small batches (1-3 records) one request at a time; after KILL_AFTER acknowledged
  // records the broker gets SIGKILL while the other lanes' requests are in flight.
  const producers = await Promise.all(Array.from({ length: PARTITIONS }, async (_, p) => {
    const producer = kafkaJs(brook.bootstrap, `crash-producer-${p}`, 1).producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    cleanup.add(`disconnect producer ${p}`, () => producer.disconnect());
    return producer;
  }));
  const KILL_AFTER = 450;
  const acked: AckedRecord[] = [];
  const sent = new Set<string>();
  let seq = 0;
  let killed: Promise<void> | null = null;
  let killedAfterMs = 0;
  const started = Date.now();
  const failures: string[] = [];
  const lane = async (partition: number): Promise<void> => {
    for (let n = 0; killed === null; n++) {
      const messages = Array.from({ length: 1 + (n % 3) }, () => {
        const s = seq++;
        const value = `p${partition}-seq${s}`;
        sent.add(value);
        return { partition, key: `key-${s % 7}`, value, headers: { seq: String(s) } };
      });
      let base: bigint;
      try {
        const result = await producers[partition]!.send({ topic, acks: -1, messages });
        base = baseOffsets(result).get(partition)!;
      } catch (err) {
        if (killed === null) failures.push(`partition ${partition}: ${(err as Error).message}`);
        return;
      }
      messages.forEach((m, k) => acked.push({ partition, offset: base + BigInt(k), key: m.key, value: m.value, headers: m.headers }));
      if (acked.length >= KILL_AFTER && killed === null) {
        killedAfterMs = Date.now() - started;
        killed = brook.kill();
      }
    }
  };
  await within(30_000, 'producer lanes', Promise.all(Array.from({ length: PARTITIONS }, (_, p) => lane(p))));
  assert.deepEqual(failures, [], 'no send failed before the kill');
  await killed;
  assert.equal(first.child.signalCode, 'SIGKILL');
  await within(10_000, 'producers disconnect', Promise.allSettled(producers.map((p) => p.disconnect())));

  brook = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  const second = brook;
  cleanup.add('stop second broker', () => second.stop());
  const reader = await KafkaJsReader.connect(kafkaJs(brook.bootstrap, 'crash-reader'));
  cleanup.add('close reader', () => reader.close());
  const read = await reader.readAll(topic);

  assertContainsAcked(read, acked, 'after kill -9 and restart');
  assertGapFree(read, 'after kill -9 and restart');
  assertSeqOrder(read, 'after kill -9 and restart');
  const values = read.map((r) => r.value ?? '');
  assert.equal(new Set(values).size, values.length, 'no record twice');
  assert.ok(values.every((v) => sent.has(v)), 'nothing that was not sent');
  assert.ok(read.every((r) => r.producerId >= 0n), 'batches carry the idempotent producer id');

  // The recovered log takes new appends right after its last record.
  const recovered = countsByPartition(read);
  const after = kafkaJs(brook.bootstrap, 'after-restart').producer({ allowAutoTopicCreation: false });
  await after.connect();
  cleanup.add('disconnect second producer', () => after.disconnect());
  for (let p = 0; p < PARTITIONS; p++) {
    const result = await after.send({ topic, acks: -1, messages: [{ partition: p, value: `after-restart-${p}` }] });
    assert.equal(baseOffsets(result).get(p), BigInt(recovered[p] ?? 0), `partition ${p}: first offset after the restart`);
  }
  t.diagnostic(`killed after ${acked.length} acks (${killedAfterMs} ms); recovered ${read.length} records ` +
    `(${read.length - acked.length} written but not acknowledged) ${JSON.stringify(recovered)}`);
});

test('SIGTERM: bin/brook broker exits 0 promptly with a fetch parked on it; a restart on the same data dir has every record', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const first = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  cleanup.add('kill first broker', () => first.kill());
  const topic = 'shutdown';
  const kafka = kafkaJs(first.bootstrap, 'shutdown-test', 0);
  await createTopicWithKafkaJs(first.bootstrap, topic, 2);
  const producer: KafkaJsProducer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());
  for (let i = 0; i < 20; i++) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${j}`, value: `v${i * 10 + j}`, headers: { seq: String(i * 10 + j) } })) });
  }
  const reader = await KafkaJsReader.connect(kafkaJs(first.bootstrap, 'shutdown-reader', 0));
  cleanup.add('close reader', () => reader.close());
  const before = await reader.readAll(topic);
  assert.equal(before.length, 200);

  // A fetch at the end of partition 0 that parks on the broker while SIGTERM arrives. Its
  // maxWaitMs is far beyond the test's 30 s timeout, so the broker exiting at all within the
  // test shows it did not wait for the fetch ("promptly"), whatever the machine's speed. (The
  // 300 ms only gives the fetch time to reach the broker; were it late, the test would check
  // less, never fail wrongly.)
  const end = BigInt(countsByPartition(before)[0] ?? 0);
  const parked = reader.fetchOnce(topic, 0, end, 600_000).then(() => 'answered', () => 'failed');
  await new Promise((r) => setTimeout(r, 300));
  const stopping = Date.now();
  const code = await first.stop();
  const exitMs = Date.now() - stopping; // reported, not asserted
  assert.equal(code, 0, `exit code after SIGTERM; stderr: ${first.stderr().slice(-1000)}`);
  const parkedOutcome = await parked; // the broker is gone: answered or failed, not left hanging
  await producer.disconnect().catch(() => undefined);
  await reader.close().catch(() => undefined);

  const second = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  cleanup.add('stop second broker', () => second.stop());
  const reader2 = await KafkaJsReader.connect(kafkaJs(second.bootstrap, 'shutdown-reader-2'));
  cleanup.add('close second reader', () => reader2.close());
  const afterRestart = await reader2.readAll(topic);
  assertSameRecords(afterRestart, before, 'after SIGTERM and restart');
  assert.equal(await within(10_000, 'SIGTERM of the second broker', second.stop()), 0);
  t.diagnostic(`exit 0 in ${exitMs} ms after SIGTERM; the parked fetch ${parkedOutcome}`);
});

test('command line: `node bin/brook broker --port 0 --data-dir DIR` prints "listening on 127.0.0.1:PORT", serves clients on that port, SIGTERM exits 0', { timeout: 20_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  // spawnBrook runs exactly `node bin/brook broker ARGS` (what `npm start -- ARGS` runs) and
  // waits for the `listening on HOST:PORT` line.
  const brook = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  cleanup.add('kill broker', () => brook.kill());
  assert.equal(brook.host, '127.0.0.1');
  assert.ok(brook.port > 0 && brook.port < 65536);
  const admin = kafkaJs(brook.bootstrap, 'cli-admin').admin();
  await admin.connect();
  cleanup.add('disconnect admin', () => admin.disconnect());
  const cluster = await admin.describeCluster();
  assert.deepEqual(cluster.brokers.map((b) => ({ host: b.host, port: b.port })), [{ host: '127.0.0.1', port: brook.port }], 'Metadata advertises the printed address');
  assert.ok(cluster.clusterId.length > 0);
  await admin.disconnect();
  const started = Date.now();
  assert.equal(await within(10_000, 'exit after SIGTERM', brook.stop()), 0);
  t.diagnostic(`exit 0 in ${Date.now() - started} ms after SIGTERM`);
});

// --- malformed input -----------------------------------------------------------------------

test('malformed input: the broker closes each bad connection, while a KafkaJS producer on another connection keeps producing; healthy afterwards', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'steady';
  const kafka = kafkaJs(broker.bootstrap, 'steady-producer', 0);
  await createTopicWithKafkaJs(broker.bootstrap, topic, 1);

  // A client that sent half a frame and waits: must not hold anyone else up.
  const slow = await openRaw('127.0.0.1', broker.port);
  cleanup.add('close slow client', () => slow.destroy());
  slow.on('error', () => undefined);
  slow.write(Buffer.from([0, 0, 0, 100, 0, 18, 0]));

  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());
  const acked: AckedRecord[] = [];
  const errors: string[] = [];
  let stop = false;
  const steady = (async () => {
    for (let i = 0; !stop; i++) {
      try {
        const result = await producer.send({ topic, acks: -1, messages: [{ key: `k${i}`, value: `v${i}` }] });
        acked.push({ partition: 0, offset: baseOffsets(result).get(0)!, key: `k${i}`, value: `v${i}`, headers: {} });
      } catch (err) {
        errors.push((err as Error).message);
        return;
      }
    }
  })();
  cleanup.add('stop the steady producer', () => { stop = true; });

  const random = seededBytes(1, 4096);
  assert.ok(random.readInt32BE(0) > 100 * 1024 * 1024, 'seed 1 starts with a size prefix beyond socket.request.max.bytes');
  const randomFrame = frame(seededBytes(2, 512));
  const cases: { name: string; bytes: Buffer }[] = [
    { name: 'random bytes', bytes: random },
    { name: 'a frame of random bytes', bytes: randomFrame },
    { name: 'size -1', bytes: Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]) },
    { name: 'size 0x80000000', bytes: Buffer.from([0x80, 0, 0, 0, 1, 2, 3, 4]) },
    { name: 'size 0x7fffffff', bytes: Buffer.concat([Buffer.from([0x7f, 0xff, 0xff, 0xff]), Buffer.alloc(1024)]) },
    { name: 'an empty frame (size 0)', bytes: Buffer.from([0, 0, 0, 0]) },
    { name: 'a header too short for its client id', bytes: frame(Buffer.from([0, 18, 0, 0, 0, 0, 0, 1, 0, 50, 0x61])) },
    { name: 'unknown API key 32767', bytes: requestV1(0x7fff, 0, 1) },
    { name: 'unknown API key -1', bytes: requestV1(-1, 0, 1) },
    { name: 'Produce v99', bytes: requestV1(0, 99, 1) },
    { name: 'Metadata v4 with a truncated body', bytes: requestV1(3, 4, 1, Buffer.from([0, 0, 0, 5, 0, 3])) },
    { name: 'Produce v7 with an undecodable body', bytes: requestV1(0, 7, 1, seededBytes(3, 64)) },
  ];
  const outcomes: string[] = [];
  for (const c of cases) {
    const ackedBefore = acked.length;
    const outcome = await sendRaw('127.0.0.1', broker.port, c.bytes, 5_000);
    assert.ok(outcome.closedByBroker, `${c.name}: the broker did not close the connection within 5 s`);
    assert.equal(outcome.received.length, 0, `${c.name}: the broker answered ${outcome.received.toString('hex').slice(0, 80)}`);
    outcomes.push(`${c.name}: closed in ${outcome.ms} ms`);
    // Let the producer get a few requests through between the bad connections.
    await within(5_000, `producer progress after "${c.name}"`, (async () => {
      while (acked.length < ackedBefore + 3 && errors.length === 0) await new Promise((r) => setTimeout(r, 5));
    })());
  }
  stop = true;
  await within(10_000, 'steady producer stops', steady);
  assert.deepEqual(errors, [], 'the steady producer saw no error');
  assert.ok(acked.length >= cases.length * 3, `${acked.length} records acknowledged meanwhile`);

  // A connection that behaved (ApiVersions answered) and then sends garbage is closed too.
  const good = await openRaw('127.0.0.1', broker.port);
  cleanup.add('close well-behaved client', () => good.destroy());
  good.on('error', () => undefined);
  const answer = new Promise<Buffer>((resolve) => good.once('data', resolve));
  const closed = new Promise<void>((resolve) => good.once('close', () => resolve()));
  good.write(requestV1(18, 0, 7));
  const response = await within(5_000, 'ApiVersions answer', answer);
  assert.equal(response.readInt32BE(4), 7, 'correlation id of the ApiVersions answer');
  good.write(Buffer.from([0xff, 0xff, 0xff, 0xfe]));
  await within(5_000, 'close after garbage on a good connection', closed);
  assert.ok(!slow.destroyed, 'the half-sent frame did not get its connection closed (it is just slow)');

  // Still healthy: a new client connects, and every acknowledged record reads back.
  const reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap, 'after-garbage-reader'));
  cleanup.add('close reader', () => reader.close());
  const read = await reader.readAll(topic);
  assertSameRecords(read, acked, 'records produced during the malformed input');
  t.diagnostic(`${acked.length} records produced meanwhile; ${outcomes.join('; ')}`);
});

test('malformed input after valid requests in the same write: the valid requests are answered first, then the connection closes (as Kafka does)', { timeout: 20_000 }, async (t) => {
  // Kafka reads, handles and answers one request at a time per connection, so every request
  // before the bad bytes gets its response before the close.
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const cases = [
    { name: 'ApiVersions v0 + size -2', bytes: Buffer.concat([requestV1(18, 0, 7), Buffer.from([0xff, 0xff, 0xff, 0xfe])]) },
    { name: 'ApiVersions v0 + unknown API key 32767', bytes: Buffer.concat([requestV1(18, 0, 7), requestV1(0x7fff, 0, 8)]) },
  ];
  const failures: string[] = [];
  for (const c of cases) {
    const outcome = await sendRaw('127.0.0.1', broker.port, c.bytes, 5_000);
    assert.ok(outcome.closedByBroker, `${c.name}: the broker did not close the connection`);
    const r = outcome.received;
    if (r.length < 8 || r.readInt32BE(0) !== r.length - 4 || r.readInt32BE(4) !== 7) {
      failures.push(`${c.name}: received ${r.length} bytes before the close (${r.toString('hex').slice(0, 40)}), expected the ApiVersions response (correlation id 7)`);
    }
  }
  assert.deepEqual(failures, []);
});
