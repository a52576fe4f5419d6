/**
 * The producer against Brook's broker over real sockets: every codec, acks 0/1/all,
 * thousands of keyed records with headers, explicit partitions, timestamps, auto-created
 * topics; everything read back over Fetch and compared with what was sent and acknowledged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, partitionForKey, type CompressionName, type RecordMetadata } from '../../src/index.js';
import { Admin } from '../../src/client/admin.js';
import { startBrook } from '../support/brook.js';
import { readBack, readBatches } from '../support/producer/read-back.js';

async function createTopic(bootstrap: string, name: string, partitions: number): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name, partitions, replicationFactor: -1, configs: {} });
  } finally {
    admin.close();
  }
}

const CODECS: CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

for (const compression of CODECS) {
  test(`e2e ${compression}: 3,000 keyed records with headers over 6 partitions, acks=all, idempotent; read back intact at their acknowledged offsets`, { timeout: 60_000 }, async (t) => {
    const broker = await startBrook();
    t.after(() => broker.stop());
    const topic = `p-${compression}`;
    await createTopic(broker.bootstrap, topic, 6);
    const producer = new Producer({ bootstrapServers: broker.bootstrap, compression });
    t.after(() => producer.close());
    assert.equal(producer.idempotent, true);
    const n = 3000;
    const sends: Promise<RecordMetadata>[] = [];
    for (let i = 0; i < n; i++) {
      sends.push(producer.send({ topic, key: `key-${i % 500}`, value: `value-${i}-${'x'.repeat(i % 50)}`, headers: { seq: String(i), empty: null } }));
    }
    const acks = await Promise.all(sends);
    assert.ok(producer.producerIdAndEpoch.producerId >= 0n);
    for (let i = 0; i < n; i++) {
      assert.equal(acks[i]!.partition, partitionForKey(Buffer.from(`key-${i % 500}`), 6), `record ${i} went to the murmur2 partition`);
    }
    const records = await readBack(broker.bootstrap, topic, 6);
    assert.equal(records.length, n);
    const byOffset = new Map(records.map((r) => [`${r.partition}:${r.offset}`, r]));
    for (let i = 0; i < n; i++) {
      const r = byOffset.get(`${acks[i]!.partition}:${acks[i]!.offset}`);
      assert.ok(r, `record ${i} at its acknowledged offset`);
      assert.equal(r.value, `value-${i}-${'x'.repeat(i % 50)}`);
      assert.equal(r.key, `key-${i % 500}`);
      assert.deepEqual(r.headers, { seq: String(i), empty: null });
      assert.equal(r.timestamp, BigInt(acks[i]!.timestamp));
    }
    // Per partition, the send order is the log order.
    const seqs = new Map<number, number>();
    for (const r of records.sort((a, b) => (a.partition - b.partition) || Number(a.offset - b.offset))) {
      const seq = Number(r.headers['seq']);
      assert.ok(seq > (seqs.get(r.partition) ?? -1));
      seqs.set(r.partition, seq);
    }
    const batches = await readBatches(broker.bootstrap, topic, 6);
    if (compression !== 'none') assert.ok(batches.some((b) => b.batch.header.compression !== 0), 'some batches are compressed');
    assert.ok(batches.every((b) => b.batch.header.producerId === producerIdOf(producer)), 'batches carry the producer id');
    assert.ok(batches.length < n / 10, `records were batched (${batches.length} batches)`);
  });
}

function producerIdOf(p: Producer): bigint {
  return p.producerIdAndEpoch.producerId;
}

for (const acks of [0, 1, 'all'] as const) {
  test(`e2e acks=${acks}: 2,000 records reach the log; offsets reported unless acks=0`, { timeout: 60_000 }, async (t) => {
    const broker = await startBrook();
    t.after(() => broker.stop());
    const topic = `acks-${acks}`;
    await createTopic(broker.bootstrap, topic, 3);
    const producer = new Producer({ bootstrapServers: broker.bootstrap, acks });
    t.after(() => producer.close());
    assert.equal(producer.idempotent, acks === 'all');
    const metas = await producer.sendBatch(Array.from({ length: 2000 }, (_, i) => ({ topic, key: String(i), value: `v${i}` })));
    if (acks === 0) assert.ok(metas.every((m) => m.offset === -1n));
    else assert.deepEqual(new Set(metas.map((m) => `${m.partition}:${m.offset}`)).size, 2000);
    await producer.flush();
    // With acks=0 the broker may still be appending: read until all 2,000 are there, however
    // long that takes (the test's timeout is the bound), then check them.
    let records = await readBack(broker.bootstrap, topic, 3);
    while (records.length < 2000) {
      await new Promise((r) => setTimeout(r, 50));
      records = await readBack(broker.bootstrap, topic, 3);
    }
    assert.equal(records.length, 2000);
    assert.deepEqual(new Set(records.map((r) => r.value)), new Set(Array.from({ length: 2000 }, (_, i) => `v${i}`)));
  });
}

test('e2e: unknown topic is auto-created by the metadata request; explicit partition, explicit timestamp, unkeyed records stick to a partition', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook({ numPartitions: 4 });
  t.after(() => broker.stop());
  const producer = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 0 });
  t.after(() => producer.close());
  const meta = await producer.send({ topic: 'auto-created', value: 'first', timestamp: 1_700_000_000_123 });
  assert.equal(meta.timestamp, 1_700_000_000_123);
  assert.equal(meta.offset, 0n);
  const explicit = await producer.send({ topic: 'auto-created', partition: 0, value: 'p0', key: null });
  assert.equal(explicit.partition, 0);
  const records = await readBack(broker.bootstrap, 'auto-created', 4);
  assert.ok(records.some((r) => r.value === 'p0'));
  // 100 small unkeyed records (far below batchSize) land on one sticky partition.
  const unkeyed = await producer.sendBatch(Array.from({ length: 100 }, (_, i) => ({ topic: 'sticky', value: `u${i}` })));
  assert.equal(new Set(unkeyed.map((m) => m.partition)).size, 1);
  await producer.close();
  await assert.rejects(producer.send({ topic: 'sticky', value: 'late' }), { code: 'ERR_PRODUCER_CLOSED' });
});
