/**
 * Kafka's RecordAccumulator: a queue of batches per partition, the bytes they hold
 * against `bufferMemory`, and the batches that were sent and await an answer. The sender
 * drains the front of each queue; a batch to retry goes back to the front in sequence
 * order, so a partition's records keep their order.
 */
import type { CompressionType } from '../../protocol/records/compression.js';
import { HEADER_SIZE } from '../../protocol/records/record-batch.js';
import { BatchBufferPool, ProducerBatch } from './producer-batch.js';
import type { DeliveryTag, DeliveryTarget } from './delivery.js';
import type { MeasuredRecord } from './record-writer.js';

export class PartitionQueue {
  /** Waiting to be sent, oldest first. */
  readonly batches: ProducerBatch[] = [];
  /** Sent and not yet answered, in the order sent. */
  readonly inFlight: ProducerBatch[] = [];
  /** Sequence the next new batch gets (idempotence). */
  nextSequence = 0;
  /** The broker's last error for a batch of this partition: an expiry of a batch never answered says it. */
  lastErrorCode = 0;
  /**
   * True once the broker acknowledged a batch of this partition under the current producer
   * id and epoch. Until then the partition has one batch in flight: a broker that holds no
   * state for the producer accepts any sequence (KIP-360), so a second batch could be
   * written ahead of a first one that failed, which could then never land in order.
   */
  sequenceAcknowledged = false;

  constructor(readonly topic: string, readonly partition: number) {}

  /** Puts a batch back to be resent: before every unsent batch, ordered by sequence among retries. */
  requeue(batch: ProducerBatch): void {
    const i = this.inFlight.indexOf(batch);
    if (i >= 0) this.inFlight.splice(i, 1);
    let at = 0;
    while (at < this.batches.length) {
      const b = this.batches[at]!;
      if (b.attempts === 0 || (batch.baseSequence >= 0 && b.baseSequence > batch.baseSequence)) break;
      at++;
    }
    this.batches.splice(at, 0, batch);
  }

  removeInFlight(batch: ProducerBatch): void {
    const i = this.inFlight.indexOf(batch);
    if (i >= 0) this.inFlight.splice(i, 1);
  }
}

export interface AccumulatorOptions {
  readonly batchSize: number;
  readonly bufferMemory: number;
  readonly compression: CompressionType;
}

export class RecordAccumulator {
  private readonly topics = new Map<string, PartitionQueue[]>();
  /** Queues that hold batches waiting to be sent. */
  readonly pending = new Set<PartitionQueue>();
  /** Buffers of acknowledged batches, reused by new ones: up to a quarter of bufferMemory. */
  private readonly pool: BatchBufferPool;
  usedBytes = 0;
  /**
   * What the last append did (fields, not a result object per record): whether the sender
   * should wake (a batch filled up, or one was started: its linger timer must be armed)
   * and the bytes written.
   */
  appendWakesSender = false;
  appendedBytes = 0;
  /** The last queue appended to: a run of records for one partition skips the lookup. */
  private lastQueue: PartitionQueue | null = null;

  constructor(private readonly options: AccumulatorOptions) {
    this.pool = new BatchBufferPool(Math.floor(options.bufferMemory / 4));
  }

  queue(topic: string, partition: number): PartitionQueue {
    const last = this.lastQueue;
    if (last !== null && last.partition === partition && last.topic === topic) return last;
    let list = this.topics.get(topic);
    if (!list) {
      list = [];
      this.topics.set(topic, list);
    }
    let q = list[partition];
    if (!q) {
      q = new PartitionQueue(topic, partition);
      list[partition] = q;
    }
    this.lastQueue = q;
    return q;
  }

  *queues(): IterableIterator<PartitionQueue> {
    for (const list of this.topics.values()) for (const q of list) if (q) yield q;
  }

  /** Room for `bytes` more (an empty accumulator always takes one record, as a lone large record must pass). */
  hasRoom(bytes: number): boolean {
    return this.usedBytes === 0 || this.usedBytes + bytes <= this.options.bufferMemory;
  }

  /** Appends to the partition's open batch or a new one; see appendWakesSender and appendedBytes. */
  append(topic: string, partition: number, record: MeasuredRecord, timestamp: number, nowMs: number, target: DeliveryTarget, tag: DeliveryTag): void {
    const q = this.queue(topic, partition);
    const last = q.batches[q.batches.length - 1];
    if (last && last.attempts === 0) {
      const bytes = last.tryAppend(record, timestamp, target, tag);
      if (bytes > 0) {
        this.charge(last, bytes);
        this.appendWakesSender = last.isFull;
        this.appendedBytes = bytes;
        return;
      }
    }
    // A partition whose last batch filled up is busy: its next batch starts at full size (no doubling copies).
    const batch = new ProducerBatch(topic, partition, nowMs, this.options.batchSize, this.pool, last !== undefined && last.isFull);
    const bytes = batch.tryAppend(record, timestamp, target, tag);
    this.charge(batch, bytes + HEADER_SIZE);
    q.batches.push(batch);
    this.pending.add(q);
    this.appendWakesSender = true;
    this.appendedBytes = bytes;
  }

  private charge(batch: ProducerBatch, bytes: number): void {
    batch.reservedBytes += bytes;
    this.usedBytes += bytes;
  }

  /** Gives a finished batch's bytes back to bufferMemory. */
  release(batch: ProducerBatch): void {
    this.usedBytes -= batch.reservedBytes;
    batch.reservedBytes = 0;
  }

  /** Every batch not yet finished (waiting or in flight). */
  *incomplete(): IterableIterator<ProducerBatch> {
    for (const q of this.queues()) {
      yield* q.inFlight;
      yield* q.batches;
    }
  }

  get hasIncomplete(): boolean {
    for (const q of this.queues()) if (q.batches.length > 0 || q.inFlight.length > 0) return true;
    return false;
  }
}
