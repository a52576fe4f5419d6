/**
 * The ways a record's fate reaches the caller (delivery.ts), against Brook's broker:
 * `send(record, callback)` calls back once per record and never synchronously;
 * `sendBatch` resolves with every record's metadata in order through one shared delivery,
 * and rejects with the first failure while the valid records are still delivered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, partitionForKey, RecordTooLargeError, type RecordMetadata } from '../../src/index.js';
import { Admin } from '../../src/client/admin.js';
import { startBrook } from '../support/brook.js';

async function createTopic(bootstrap: string, name: string, partitions: number): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name, partitions, replicationFactor: -1, configs: {} });
  } finally {
    admin.close();
  }
}

/** Offsets per partition must be 0..n-1 in send order (one producer, one connection). */
function assertDenseInOrder(metas: readonly RecordMetadata[]): void {
  const next = new Map<number, bigint>();
  for (const m of metas) {
    const expected = next.get(m.partition) ?? 0n;
    assert.equal(m.offset, expected, `partition ${m.partition}`);
    next.set(m.partition, expected + 1n);
  }
}

test('send(record, callback): one call per record with its metadata, in order per partition; errors are called back asynchronously', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  await createTopic(broker.bootstrap, 'cb', 4);
  const producer = new Producer({ bootstrapServers: broker.bootstrap });
  t.after(() => producer.close());
  const n = 2000;
  const metas: (RecordMetadata | null)[] = new Array(n).fill(null);
  const calls = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    producer.send({ topic: 'cb', key: `k-${i}`, value: `v-${i}` }, (err, m) => {
      assert.equal(err, null);
      calls[i]!++;
      metas[i] = m;
    });
  }
  await producer.flush();
  assert.deepEqual(calls, new Array(n).fill(1));
  for (let i = 0; i < n; i++) assert.equal(metas[i]!.partition, partitionForKey(Buffer.from(`k-${i}`), 4));
  assertDenseInOrder(metas as RecordMetadata[]);

  let called: Error | null | undefined;
  producer.send({ topic: '', value: 'x' }, (err) => { called = err; });
  assert.equal(called, undefined, 'not called synchronously');
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok((called as unknown) instanceof TypeError);
});

test('sendBatch: metadata in the records\' order; an impossible record rejects the batch, the others are delivered; empty resolves []', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  await createTopic(broker.bootstrap, 'sb', 3);
  const producer = new Producer({ bootstrapServers: broker.bootstrap, maxRequestSize: 10_000 });
  t.after(() => producer.close());
  const records = Array.from({ length: 1500 }, (_, i) => ({ topic: 'sb', key: `key-${i}`, value: `value-${i}` }));
  const metas = await producer.sendBatch(records);
  assert.equal(metas.length, records.length);
  for (let i = 0; i < records.length; i++) {
    assert.equal(metas[i]!.topic, 'sb');
    assert.equal(metas[i]!.partition, partitionForKey(Buffer.from(`key-${i}`), 3));
  }
  assertDenseInOrder(metas);

  assert.deepEqual(await producer.sendBatch([]), []);

  const mixed = [{ topic: 'sb', partition: 0, value: 'before' }, { topic: 'sb', partition: 0, value: 'x'.repeat(20_000) }, { topic: 'sb', partition: 0, value: 'after' }];
  await assert.rejects(producer.sendBatch(mixed), RecordTooLargeError);
  await producer.flush();
  const last = await producer.send({ topic: 'sb', partition: 0, value: 'last' });
  const before = metas.filter((m) => m.partition === 0).length;
  assert.equal(last.offset, BigInt(before + 2), 'the two valid records of the rejected batch were delivered');
});
