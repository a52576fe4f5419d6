/**
 * The share groups' dead-letter queue (KIP-1191) as Kafka 4.4 runs it (the interop test
 * share-dlq-differential compares the records with Kafka's own): which archives go through
 * ARCHIVING, the DLQ batches and their causes, the ARCHIVED write that follows, and the
 * records written to the DLQ topic (headers, copied key and value, partition, the topic
 * checks and auto-creation).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcknowledgeType, RecordState, SharePartition, type DlqBatch } from '../../src/broker/share/share-partition.js';
import { ShareGroupDlq, type ShareGroupDlqOptions } from '../../src/broker/share/share-group-dlq.js';
import { ShareDeliveryCounters } from '../../src/broker/share/delivery-counters.js';
import { decodeRecords, encodeRecordBatch, readBatchHeader } from '../../src/protocol/records/index.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import type { Storage } from '../../src/storage/types.js';

const T = { timeout: 10_000 };
const { ACCEPT, RELEASE, REJECT, GAP } = AcknowledgeType;
const withDlq = { deliveryCountLimit: 2, maxInFlightRecords: 100, recordLockDurationMs: 1000, deadLetterQueue: () => true };
const ack = (first: number, last: number, ...types: number[]) => ({ firstOffset: first, lastOffset: last, acknowledgeTypes: types });
const states = (sp: SharePartition): number[] => sp.inFlight().map((r) => r.state);

test('with a DLQ topic, REJECT and the delivery count limit go ARCHIVING; GAP is ARCHIVED at once', T, () => {
  const sp = new SharePartition(withDlq, 0);
  sp.acquire('m', [{ baseOffset: 0, lastOffset: 4 }], 100, 500, false, 0);
  const write = sp.acknowledge('m', [ack(0, 0, REJECT), ack(1, 1, GAP), ack(2, 2, RELEASE), ack(3, 4, ACCEPT)], 0)!;
  assert.deepEqual(states(sp), [RecordState.ARCHIVING, RecordState.ARCHIVED, RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ACKNOWLEDGED]);
  // ARCHIVING is written as such (state 3) and is not done: the start offset stays.
  assert.deepEqual(write.stateBatches.map((b) => [Number(b.firstOffset), Number(b.lastOffset), b.deliveryState]), [[0, 0, 3], [1, 1, 4], [2, 2, 0], [3, 4, 2]]);
  assert.equal(write.startOffset, 0);
  assert.equal(write.deliveryCompleteCount, 3);
  assert.deepEqual(sp.dlqBatches(write), [{ firstOffset: 0, lastOffset: 0, deliveryCount: 1, cause: 'reject' }]);
  sp.completeTransitions(write);
  // 2 again (delivery count 2, the limit), released: ARCHIVING, by the limit.
  sp.acquire('m', [{ baseOffset: 0, lastOffset: 4 }], 100, 500, false, 0);
  const release = sp.acknowledge('m', [ack(2, 2, RELEASE)], 0)!;
  assert.deepEqual(sp.dlqBatches(release), [{ firstOffset: 2, lastOffset: 2, deliveryCount: 2, cause: 'limit' }]);
  // Every ARCHIVING record in flight, when no write is given (a share-partition loaded again).
  assert.deepEqual(sp.dlqBatches().map((b) => [b.firstOffset, b.cause]), [[0, 'reject'], [2, 'limit']]);
});

test('a DLQ batch done: ARCHIVED, written with the start offset it had; the next write moves it', T, () => {
  const sp = new SharePartition(withDlq, 0);
  sp.acquire('m', [{ baseOffset: 0, lastOffset: 2 }], 100, 500, false, 0);
  const write = sp.acknowledge('m', [ack(0, 0, REJECT), ack(1, 2, ACCEPT)], 0)!;
  const [batch] = sp.dlqBatches(write) as [DlqBatch];
  const archived = sp.completeArchiving(batch)!;
  assert.deepEqual(archived.stateBatches.map((b) => [Number(b.firstOffset), Number(b.lastOffset), b.deliveryState]), [[0, 0, RecordState.ARCHIVED]]);
  assert.equal(archived.startOffset, 0);
  assert.equal(archived.deliveryCompleteCount, 3);
  assert.equal(sp.startOffset, 3);
  assert.equal(sp.completeArchiving(batch), null, 'done once');
});

test('a lock running out at the limit goes ARCHIVING; without a DLQ topic the same archives are ARCHIVED', T, () => {
  const sp = new SharePartition(withDlq, 0);
  sp.acquire('m', [{ baseOffset: 0, lastOffset: 0 }], 100, 500, false, 0);
  sp.expireLocks(1000);
  sp.acquire('m', [{ baseOffset: 0, lastOffset: 0 }], 100, 500, false, 1000);
  const expired = sp.expireLocks(2000)!;
  assert.deepEqual(sp.dlqBatches(expired), [{ firstOffset: 0, lastOffset: 0, deliveryCount: 2, cause: 'limit' }]);

  const plain = new SharePartition({ ...withDlq, deadLetterQueue: () => false }, 0);
  plain.acquire('m', [{ baseOffset: 0, lastOffset: 1 }], 100, 500, false, 0);
  const w = plain.acknowledge('m', [ack(0, 1, REJECT)], 0)!;
  assert.deepEqual(states(plain), []);
  assert.equal(w.startOffset, 0);
  assert.equal(plain.startOffset, 2);
  assert.deepEqual(plain.dlqBatches(w), []);
});

test('loaded ARCHIVING records: their cause is the limit once reached, else a reject', T, () => {
  const sb = (first: number, last: number, deliveryCount: number) => ({ firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState: RecordState.ARCHIVING, deliveryCount });
  const sp = new SharePartition(withDlq, 0, [sb(0, 1, 1), sb(2, 2, 2)]);
  assert.deepEqual(sp.dlqBatches(), [{ firstOffset: 0, lastOffset: 1, deliveryCount: 1, cause: 'reject' }, { firstOffset: 2, lastOffset: 2, deliveryCount: 2, cause: 'limit' }]);
  assert.equal(sp.startOffset, 0);
});

interface Written { partition: number; offset: number; key: string | null; value: string | null; headers: [string, string | null][]; timestamp: number }

function dlqTopicRecords(storage: Storage, topic: string): Written[] {
  const out: Written[] = [];
  const meta = storage.topic(topic)!;
  for (let partition = 0; partition < meta.partitions; partition++) {
    const read = storage.partition(topic, partition)!.read(0n, 1 << 20, { minOneBatch: true });
    for (const buf of read.records) {
      for (let pos = 0; pos < buf.length;) {
        const h = readBatchHeader(buf, pos);
        for (const r of decodeRecords(buf.subarray(pos, pos + h.sizeInBytes))) {
          out.push({ partition, offset: Number(r.offset), key: r.key?.toString() ?? null, value: r.value?.toString() ?? null, headers: r.headers.map((x) => [x.key, x.value?.toString() ?? null]), timestamp: Number(r.timestamp) });
        }
        pos += h.sizeInBytes;
      }
    }
  }
  return out;
}

function setUp(group: { topic: string | undefined; copyRecord: boolean }, more: Partial<ShareGroupDlqOptions> = {}): { storage: Storage; dlq: ShareGroupDlq; counters: ShareDeliveryCounters; source: { groupId: string; topic: string; partition: number; log: NonNullable<ReturnType<Storage['partition']>> } } {
  const storage = openMemoryStorage({ clock: () => 5000 });
  storage.createTopic('src', 4);
  const log = storage.partition('src', 3)!;
  log.append(encodeRecordBatch({ records: [0, 1, 2].map((i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), headers: [{ key: 'h', value: Buffer.from('x') }], timestamp: 100 + i })) }), { nowMs: 5000 });
  const counters = new ShareDeliveryCounters();
  const dlq = new ShareGroupDlq({
    storage, clock: { nowMs: () => 7000 } as ShareGroupDlqOptions['clock'], appends: { notifyAppend: () => {} } as unknown as ShareGroupDlqOptions['appends'], counters,
    topicNamePrefix: 'dlq.', autoCreateTopics: false, numPartitions: 3, groupConfig: () => group, topicCreated: () => {}, ...more,
  });
  return { storage, dlq, counters, source: { groupId: 'g', topic: 'src', partition: 3, log } };
}

test('DLQ records: Kafka\'s headers, the original key and value when copied, partition modulo, timestamped now', T, async () => {
  const { storage, dlq, counters, source } = setUp({ topic: 'dlq.t', copyRecord: true });
  storage.createTopic('dlq.t', 2, { 'errors.deadletterqueue.group.enable': 'true' });
  await dlq.write(source, { firstOffset: 1, lastOffset: 2, deliveryCount: 2, cause: 'limit' });
  const headers = (offset: number): [string, string][] => [
    ['__dlq.errors.topic', 'src'], ['__dlq.errors.partition', '3'], ['__dlq.errors.offset', String(offset)], ['__dlq.errors.group', 'g'],
    ['__dlq.errors.delivery.count', '2'], ['__dlq.errors.message', 'Offset delivery count exceeded the threshold.'],
  ];
  assert.deepEqual(dlqTopicRecords(storage, 'dlq.t'), [
    { partition: 1, offset: 0, key: 'k1', value: 'v1', headers: headers(1), timestamp: 7000 },
    { partition: 1, offset: 1, key: 'k2', value: 'v2', headers: headers(2), timestamp: 7000 },
  ]);
  assert.equal(counters.dlqRecords.get('g'), 2);
  assert.equal(counters.dlqProduceRequests.get('g'), 1);
});

test('DLQ records without copy.record.enable: headers only; the reject message', T, async () => {
  const { storage, dlq, source } = setUp({ topic: 'dlq.t', copyRecord: false });
  storage.createTopic('dlq.t', 1, { 'errors.deadletterqueue.group.enable': 'true' });
  await dlq.write(source, { firstOffset: 0, lastOffset: 0, deliveryCount: 1, cause: 'reject' });
  const [r] = dlqTopicRecords(storage, 'dlq.t');
  assert.equal(r!.key, null);
  assert.equal(r!.value, null);
  assert.deepEqual(r!.headers.at(-1), ['__dlq.errors.message', 'Offset rejected by client.']);
});

test('the DLQ topic checks: prefix, existence, errors.deadletterqueue.group.enable; auto-creation', T, async () => {
  const batch: DlqBatch = { firstOffset: 0, lastOffset: 0, deliveryCount: 1, cause: 'reject' };
  const unprefixed = setUp({ topic: 'other', copyRecord: false });
  await assert.rejects(unprefixed.dlq.write(unprefixed.source, batch), /does not comply with the DLQ topic prefix in share group: g, topic: other, prefix: dlq\./);
  assert.equal(unprefixed.counters.dlqProduceFailed.get('g'), 1);
  const anyName = setUp({ topic: 'other', copyRecord: false }, { topicNamePrefix: '' });
  await assert.rejects(anyName.dlq.write(anyName.source, batch), /DLQ topic does not exist and auto create is disabled on cluster for share group: g, topic: other\./);

  const notEnabled = setUp({ topic: 'dlq.t', copyRecord: false });
  notEnabled.storage.createTopic('dlq.t', 1);
  await assert.rejects(notEnabled.dlq.write(notEnabled.source, batch), /DLQ is not enabled on configured DLQ topic for share group: g, topic: dlq\.t\./);

  const created = setUp({ topic: 'dlq.new', copyRecord: false }, { autoCreateTopics: true });
  await created.dlq.write(created.source, batch);
  const meta = created.storage.topic('dlq.new')!;
  assert.equal(meta.partitions, 3);
  assert.deepEqual(meta.configs, { 'errors.deadletterqueue.group.enable': 'true', 'message.timestamp.type': 'CreateTime' });
  assert.deepEqual(dlqTopicRecords(created.storage, 'dlq.new').map((r) => [r.partition, r.offset]), [[0, 0]]);
});

test('a DLQ batch larger than the DLQ topic\'s max.message.bytes is appended as smaller batches', T, async () => {
  const { storage, dlq, source } = setUp({ topic: 'dlq.t', copyRecord: false });
  storage.createTopic('dlq.t', 1, { 'errors.deadletterqueue.group.enable': 'true', 'max.message.bytes': '400' });
  await dlq.write(source, { firstOffset: 0, lastOffset: 2, deliveryCount: 1, cause: 'reject' });
  const log = storage.partition('dlq.t', 0)!;
  const batches = log.read(0n, 1 << 20, { minOneBatch: true }).records.flatMap((buf) => {
    const out = [];
    for (let pos = 0; pos < buf.length;) {
      const h = readBatchHeader(buf, pos);
      out.push(h.sizeInBytes);
      pos += h.sizeInBytes;
    }
    return out;
  });
  assert.ok(batches.length > 1 && batches.every((size) => size <= 400), `batch sizes ${batches.join(', ')}`);
  assert.deepEqual(dlqTopicRecords(storage, 'dlq.t').map((r) => r.headers[2]![1]), ['0', '1', '2']);
});
