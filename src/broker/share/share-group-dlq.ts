/**
 * A share group's dead-letter queue (KIP-1191, Kafka's DefaultShareGroupDLQManager): the
 * records a share-partition archives because a member rejected them or they reached the
 * delivery count limit are written to the group's errors.deadletterqueue.topic.name
 * topic, one record per offset, before they become ARCHIVED.
 *
 * As Kafka 4.4 writes them: the DLQ topic's partition is the source partition modulo its
 * partition count; each record is timestamped now (CreateTime), uncompressed, and carries
 * the headers __dlq.errors.topic, .partition, .offset, .group, .delivery.count and .message
 * (the cause); its key and value are the original record's only with
 * errors.deadletterqueue.copy.record.enable (its headers and timestamp never are).
 *
 * The topic must start with errors.deadletterqueue.topic.name.prefix (broker config,
 * "dlq." by default), and exist with errors.deadletterqueue.group.enable=true, or be
 * created so when errors.deadletterqueue.auto.create.topics.enable (default false). When
 * the write cannot be made the records are archived all the same (Kafka logs "Failed to
 * write to DLQ, proceeding to ARCHIVED regardless."): `write` rejects and the caller goes on.
 */
import { encodeRecordBatch, decodeRecords } from '../../protocol/records/index.js';
import type { BatchRecord, RecordHeaderInput, RecordInput } from '../../protocol/records/record.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import type { AppendResult, PartitionLog, Storage } from '../../storage/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { AppendNotifier } from '../broker-context.js';
import type { DlqBatch, DlqCause } from './share-partition-types.js';
import type { ShareDeliveryCounters } from './delivery-counters.js';

/** Kafka's ShareGroupDLQManager.CLIENT_REJECT and DELIVERY_COUNT_EXCEEDED messages (the __dlq.errors.message header). */
export const DLQ_CAUSE_MESSAGES: Readonly<Record<DlqCause, string>> = {
  reject: 'Offset rejected by client.',
  limit: 'Offset delivery count exceeded the threshold.',
};

/** The topic config a DLQ topic must have set to true (Kafka's TopicConfig errors.deadletterqueue.group.enable). */
export const DLQ_GROUP_ENABLE = 'errors.deadletterqueue.group.enable';

/** How much of the source log one DLQ write reads to copy records (Kafka's record fetcher reads 1 MiB at a time). */
const COPY_READ_BYTES = 1024 * 1024;

export interface ShareGroupDlqOptions {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly appends: AppendNotifier;
  readonly counters: ShareDeliveryCounters;
  /** errors.deadletterqueue.topic.name.prefix: "" for no restriction. */
  readonly topicNamePrefix: string;
  /** errors.deadletterqueue.auto.create.topics.enable */
  readonly autoCreateTopics: boolean;
  /** num.partitions: an auto-created DLQ topic's partitions (Kafka creates it with the broker's defaults). */
  readonly numPartitions: number;
  /** The group's DLQ topic name ("" or undefined: none) and copy.record.enable. */
  readonly groupConfig: (groupId: string) => { readonly topic: string | undefined; readonly copyRecord: boolean };
  /** A topic was created (the group coordinator looks at subscriptions again). */
  readonly topicCreated: () => void;
}

/** Where the archived records come from. */
export interface DlqSource {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly log: PartitionLog;
}

export class DlqError extends Error {}

export class ShareGroupDlq {
  constructor(private readonly options: ShareGroupDlqOptions) {}

  /** Whether a group has a DLQ topic configured (Kafka's isDLQEnabledForGroup). */
  enabled(groupId: string): boolean {
    const topic = this.options.groupConfig(groupId).topic;
    return topic !== undefined && topic.trim() !== '';
  }

  /** Writes a DLQ batch's records to the group's DLQ topic; rejects with the reason it could not. */
  async write(source: DlqSource, batch: DlqBatch): Promise<void> {
    const { groupId } = source;
    const { counters } = this.options;
    counters.add(counters.dlqProduceRequests, groupId, 1);
    try {
      const log = this.dlqPartition(groupId, source.partition);
      const originals = this.options.groupConfig(groupId).copyRecord ? readOriginals(source.log, batch) : new Map<number, BatchRecord>();
      const now = this.options.clock.nowMs();
      const records: RecordInput[] = [];
      for (let o = batch.firstOffset; o <= batch.lastOffset; o++) {
        const original = originals.get(o);
        records.push({ key: original?.key ?? null, value: original?.value ?? null, headers: headers(source, o, batch), timestamp: now });
      }
      const results = appendSplit(log.log, records, now);
      this.options.appends.notifyAppend(log.topic, log.partition);
      counters.add(counters.dlqRecords, groupId, records.length);
      await Promise.all(results.map((r) => r.durable));
    } catch (err) {
      counters.add(counters.dlqProduceFailed, groupId, 1);
      throw err;
    }
  }

  /** The DLQ topic partition a group's records of `sourcePartition` go to, after Kafka's checks (validateDlqTopic). */
  private dlqPartition(groupId: string, sourcePartition: number): { topic: string; partition: number; log: PartitionLog } {
    const { storage, topicNamePrefix } = this.options;
    const topic = this.options.groupConfig(groupId).topic?.trim() ?? '';
    if (topic === '') throw new DlqError(`Configured DLQ topic name in share group: ${groupId} is empty.`);
    if (topic.startsWith('__')) throw new DlqError(`Configured DLQ topic name in share group: ${groupId} cannot start with __, topic: ${topic}.`);
    if (topicNamePrefix !== '' && !topic.startsWith(topicNamePrefix)) {
      throw new DlqError(`Configured DLQ topic name does not comply with the DLQ topic prefix in share group: ${groupId}, topic: ${topic}, prefix: ${topicNamePrefix}.`);
    }
    let metadata = storage.topic(topic);
    if (metadata !== undefined && metadata.configs[DLQ_GROUP_ENABLE] !== 'true') {
      throw new DlqError(`DLQ is not enabled on configured DLQ topic for share group: ${groupId}, topic: ${topic}.`);
    }
    if (metadata === undefined) {
      if (!this.options.autoCreateTopics) throw new DlqError(`DLQ topic does not exist and auto create is disabled on cluster for share group: ${groupId}, topic: ${topic}.`);
      // Kafka's CreateTopics for it: the broker's partitions, and these two configs.
      metadata = storage.createTopic(topic, this.options.numPartitions, { [DLQ_GROUP_ENABLE]: 'true', 'message.timestamp.type': 'CreateTime' });
      this.options.topicCreated();
    }
    const partition = sourcePartition % metadata.partitions;
    const log = storage.partition(topic, partition);
    if (log === undefined) throw new DlqError(`DLQ topic partition leader node for share group ${groupId} with DLQ topic ${topic} and partition ${partition} could not be found.`);
    return { topic, partition, log };
  }
}

/**
 * Writes each DLQ batch to the dead-letter queue, then has it archived whether the write
 * succeeded or not (Kafka's initiateDLQAndArchive); without a DLQ or a source log (a topic
 * deleted meanwhile) the records are archived without one.
 */
export function writeThenArchive(dlq: ShareGroupDlq | undefined, source: DlqSource | undefined, batches: readonly DlqBatch[], log: Logger, archive: (batch: DlqBatch) => Promise<void>): void {
  for (const batch of batches) {
    const written = dlq === undefined || source === undefined ? Promise.reject(new DlqError('no dead-letter queue for the share-partition')) : dlq.write(source, batch);
    void written.catch((err: unknown) => {
      log.error('Failed to write to DLQ, proceeding to ARCHIVED regardless.', {
        groupId: source?.groupId, topic: source?.topic, partition: source?.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset, error: String(err),
      });
    }).then(() => archive(batch));
  }
}

/**
 * Appends the records as one batch, or as smaller ones when the DLQ topic's
 * max.message.bytes refuses it (Kafka sizes its DLQ produce requests to that limit).
 */
function appendSplit(log: PartitionLog, records: readonly RecordInput[], nowMs: number): AppendResult[] {
  try {
    return [log.append(encodeRecordBatch({ records, baseTimestamp: nowMs }), { nowMs })];
  } catch (err) {
    if (!(err instanceof StorageError) || err.errorCode !== ErrorCode.MESSAGE_TOO_LARGE || records.length === 1) throw err;
    const half = Math.ceil(records.length / 2);
    return [...appendSplit(log, records.slice(0, half), nowMs), ...appendSplit(log, records.slice(half), nowMs)];
  }
}

/** Kafka's DLQ record headers, in its order; values as UTF-8 text. */
function headers(source: DlqSource, offset: number, batch: DlqBatch): RecordHeaderInput[] {
  const text = (s: string): Buffer => Buffer.from(s, 'utf8');
  return [
    { key: '__dlq.errors.topic', value: text(source.topic) },
    { key: '__dlq.errors.partition', value: text(String(source.partition)) },
    { key: '__dlq.errors.offset', value: text(String(offset)) },
    { key: '__dlq.errors.group', value: text(source.groupId) },
    { key: '__dlq.errors.delivery.count', value: text(String(batch.deliveryCount)) },
    { key: '__dlq.errors.message', value: text(DLQ_CAUSE_MESSAGES[batch.cause]) },
  ];
}

/**
 * The original records of a batch's offsets, as far as the log still has them: an offset
 * compacted or deleted away goes out with headers only, as Kafka's record fetcher skips it.
 */
function readOriginals(log: PartitionLog, batch: DlqBatch): Map<number, BatchRecord> {
  const out = new Map<number, BatchRecord>();
  let next = Math.max(batch.firstOffset, Number(log.logStartOffset));
  while (next <= batch.lastOffset && next < Number(log.highWatermark)) {
    const read = log.read(BigInt(next), COPY_READ_BYTES, { minOneBatch: true });
    if (read.records.length === 0) break;
    let progressed = false;
    for (const buf of read.records) {
      for (const r of decodeRecords(buf)) {
        const o = Number(r.offset);
        if (o < next || o > batch.lastOffset) continue;
        out.set(o, { ...r, key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value) });
        next = o + 1;
        progressed = true;
      }
    }
    if (!progressed) break;
  }
  return out;
}
