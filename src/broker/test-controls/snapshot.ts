/**
 * A broker's data as a value, to start other brokers from (fixtures for test suites): every
 * topic (internal ones too) with its id, partition count, configs and stored record batches,
 * the groups' own configs, and where producer ids go on. The group and transaction
 * coordinators keep their state in the internal topics, so committed offsets, group
 * metadata and transactions come back as they do after a broker restart: a restored broker
 * replays them, and members of groups must heartbeat again within their session timeout.
 *
 * The batches are copied as stored, so offsets, timestamps, producer ids and transaction
 * markers stay what they were; restoring appends them in order and checks each lands at its
 * offset. A log that does not run without gaps from offset 0 (records deleted, retention,
 * compaction) cannot be restored and says so.
 */
import type { Storage, TopicConfigs } from '../../storage/types.js';
import type { GroupConfigStore, GroupConfigs } from '../group-configs/group-config-store.js';

/** One partition's stored batches, in offset order. */
export interface SnapshotPartition {
  readonly partition: number;
  /** Buffers (Uint8Arrays after `structuredClone` or `v8.deserialize`, which restoring takes too). */
  readonly batches: readonly Uint8Array[];
}

export interface SnapshotTopic {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: number;
  /** The configs set for the topic (not the broker's defaults). */
  readonly configs: TopicConfigs;
  readonly isInternal: boolean;
  readonly logs: readonly SnapshotPartition[];
}

/** What `broker.snapshot()` returns and `Broker.start({ restore })` takes. Plain data: `structuredClone` and `v8.serialize` keep it. */
export interface BrokerSnapshot {
  readonly format: 1;
  readonly topics: readonly SnapshotTopic[];
  /** The groups' own configs (IncrementalAlterConfigs on GROUP resources), by group id. */
  readonly groupConfigs: Readonly<Record<string, GroupConfigs>>;
  /** The next producer id the broker would hand out: a restored broker hands out none below it. */
  readonly nextProducerId: bigint;
}

const READ_BYTES = 1 << 20;
/** A record batch's header: base offset (8), batch length (4), ..., last offset delta (int32 at 23). */
const BATCH_LENGTH_AT = 8;
const LAST_OFFSET_DELTA_AT = 23;

function* batchesOf(chunk: Buffer): Generator<Buffer> {
  let at = 0;
  while (at + 12 <= chunk.length) {
    const size = 12 + chunk.readInt32BE(at + BATCH_LENGTH_AT);
    yield chunk.subarray(at, at + size);
    at += size;
  }
}

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
const baseOffset = (batch: Buffer): bigint => batch.readBigInt64BE(0);
const lastOffset = (batch: Buffer): bigint => baseOffset(batch) + BigInt(batch.readInt32BE(LAST_OFFSET_DELTA_AT));

export async function takeSnapshot(storage: Storage, groupConfigs: GroupConfigStore): Promise<BrokerSnapshot> {
  await storage.flush();
  const topics: SnapshotTopic[] = [];
  for (const topic of storage.topics()) {
    const logs: SnapshotPartition[] = [];
    for (let p = 0; p < topic.partitions; p++) {
      const log = storage.partition(topic.name, p)!;
      const batches: Buffer[] = [];
      let offset = log.logStartOffset;
      const end = log.logEndOffset;
      while (offset < end) {
        const read = log.read(offset, READ_BYTES, { minOneBatch: true });
        let moved = false;
        for (const chunk of read.records) {
          for (const batch of batchesOf(chunk)) {
            if (lastOffset(batch) < offset) continue;
            batches.push(Buffer.from(batch));
            offset = lastOffset(batch) + 1n;
            moved = true;
          }
        }
        if (!moved) break;
      }
      logs.push({ partition: p, batches });
    }
    topics.push({ name: topic.name, topicId: topic.topicId, partitions: topic.partitions, configs: { ...topic.configs }, isInternal: topic.isInternal, logs });
  }
  return { format: 1, topics, groupConfigs: Object.fromEntries(groupConfigs.entries()), nextProducerId: storage.allocateProducerId() };
}

/** Fills an empty storage from a snapshot, before the coordinators load (Broker.start). */
export function restoreStorage(storage: Storage, snapshot: BrokerSnapshot, nowMs: number): void {
  if (snapshot.format !== 1) throw new TypeError(`unknown snapshot format ${String(snapshot.format)}`);
  if (storage.topics().length > 0) throw new Error('a snapshot restores into an empty broker (in memory, or a new data directory)');
  for (const topic of snapshot.topics) {
    storage.createTopic(topic.name, topic.partitions, topic.configs, { topicId: topic.topicId, isInternal: topic.isInternal });
    for (const { partition, batches } of topic.logs) {
      const log = storage.partition(topic.name, partition)!;
      for (const bytes of batches) {
        const batch = asBuffer(bytes);
        const result = log.append(Buffer.from(batch), { nowMs, origin: 'coordinator' });
        if (result.baseOffset !== baseOffset(batch)) {
          throw new Error(`cannot restore ${topic.name}-${partition}: the batch at offset ${baseOffset(batch)} would land at ${result.baseOffset} (a log that does not run from offset 0 without gaps)`);
        }
      }
    }
  }
  while (storage.allocateProducerId() + 1n < snapshot.nextProducerId);
}

/** The groups' configs, once the broker's storage is restored. */
export async function restoreGroupConfigs(store: GroupConfigStore, snapshot: BrokerSnapshot): Promise<void> {
  for (const [groupId, configs] of Object.entries(snapshot.groupConfigs)) {
    const error = await store.alter(groupId, () => ({ configs }), false, (message) => message);
    if (error !== null) throw new Error(`cannot restore the configs of group ${groupId}: ${error}`);
  }
}
