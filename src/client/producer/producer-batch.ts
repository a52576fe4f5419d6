/**
 * One record batch being filled for one partition (Kafka's ProducerBatch with its
 * MemoryRecordsBuilder): records are written straight into one buffer after a reserved
 * v2 header, whom to tell of each record's fate kept beside it (delivery.ts). When the sender drains the
 * batch it is sealed (compressed once) and stamped with the producer id, epoch and base
 * sequence; a retry resends the same bytes, so the broker can recognise a duplicate.
 *
 * The buffer starts small and doubles up to the batch size as records come (a large
 * batch.size costs memory only where records accumulate); buffers come from, and go back
 * to, the producer's BatchBufferPool, so a busy producer reuses the same few buffers.
 */
import { compress, CompressionType } from '../../protocol/records/compression.js';
import { writeBatchHeader } from '../../protocol/records/batch-header-writer.js';
import { batchAttributes } from '../../protocol/records/batch-header-writer.js';
import { HEADER_SIZE, TimestampType } from '../../protocol/records/record-batch.js';
import { sizeOfRecordBody, sizeOfVarint, writeRecordAt, type MeasuredRecord } from './record-writer.js';
import { deliver, deliverError, type DeliveryTag, type DeliveryTarget } from './delivery.js';

export interface RecordMetadata {
  readonly topic: string;
  readonly partition: number;
  /** -1n when unknown: acks=0, or a duplicate the broker no longer has offsets for. */
  readonly offset: bigint;
  /** CreateTime given or assigned at send, or the broker's LogAppendTime. */
  readonly timestamp: number;
  /** The broker's LogAppendTime when the topic uses it, else -1 (the Produce response's log_append_time_ms). */
  readonly logAppendTime: number;
  /** The partition's log start offset as the Produce response gave it; -1n when unknown (acks=0, a duplicate). */
  readonly logStartOffset: bigint;
}

/** BigInt(i) for offset deltas, made once: completing a batch allocates only the sums. */
const DELTAS: bigint[] = [];

function delta(i: number): bigint {
  let d = DELTAS[i];
  if (d === undefined) {
    while (DELTAS.length <= i) DELTAS.push(BigInt(DELTAS.length));
    d = DELTAS[i]!;
  }
  return d;
}

/** The first buffer of a batch (or the batch size, if smaller). */
export const INITIAL_BATCH_BUFFER = 16_384;

/**
 * Batch buffers handed back once their batch was acknowledged (its bytes were written and
 * answered), kept up to `maxBytes` in all (Java's BufferPool keeps batch.size buffers).
 */
export class BatchBufferPool {
  private readonly free: Buffer[] = [];
  private freeBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** A buffer of at least `min` bytes: the most recently returned one when it is large enough. */
  take(min: number): Buffer {
    const top = this.free[this.free.length - 1];
    if (top !== undefined && top.length >= min) {
      this.free.pop();
      this.freeBytes -= top.length;
      return top;
    }
    return Buffer.allocUnsafe(min);
  }

  give(buffer: Buffer): void {
    if (buffer.length === 0 || this.freeBytes + buffer.length > this.maxBytes) return;
    this.free.push(buffer);
    this.freeBytes += buffer.length;
  }
}

export class ProducerBatch {
  private buffer: Buffer;
  private position = HEADER_SIZE;
  private baseTimestamp = 0;
  private maxTimestamp = 0;
  private readonly targets: DeliveryTarget[] = [];
  private readonly tags: DeliveryTag[] = [];
  private readonly timestamps: number[] = [];
  private wire: Buffer | null = null;
  private attributes = 0;
  private compressed = false;
  recordCount = 0;
  /** Bytes charged to the accumulator's bufferMemory. */
  reservedBytes = 0;
  /** Sends so far (0 until first drained). */
  attempts = 0;
  /** The broker's last error for this batch (retried since): an expiry says why it never got through. */
  lastErrorCode = 0;
  /** Not to be resent before this time (retry backoff). */
  retryAtMs = 0;
  baseSequence = -1;
  producerId = -1n;
  producerEpoch = -1;
  done = false;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly createdMs: number,
    private readonly capacity: number,
    private readonly pool: BatchBufferPool,
    /** Start with a buffer of the full batch size (records are coming fast). */
    full = false,
  ) {
    this.buffer = pool.take(Math.max(full ? capacity : Math.min(capacity, INITIAL_BATCH_BUFFER), HEADER_SIZE));
  }

  /** The sealed batch as sent. */
  get wireBytes(): Buffer {
    if (this.wire === null) throw new Error('batch read before it was sealed');
    return this.wire;
  }

  get sealed(): boolean {
    return this.wire !== null;
  }

  /** Uncompressed size so far, header included. */
  get sizeInBytes(): number {
    return this.wire?.length ?? this.position;
  }

  /** No further record of at least a few bytes fits. */
  get isFull(): boolean {
    return this.wire !== null || this.position + 8 > this.capacity;
  }

  /**
   * Appends when the record fits (an empty batch takes any record, growing its buffer);
   * returns the bytes written, or 0 when it does not fit.
   */
  tryAppend(record: MeasuredRecord, timestamp: number, target: DeliveryTarget, tag: DeliveryTag): number {
    if (this.wire !== null) return 0;
    const first = this.recordCount === 0;
    if (first) this.baseTimestamp = timestamp;
    const offsetDelta = this.recordCount;
    const timestampDelta = timestamp - this.baseTimestamp;
    const bodySize = sizeOfRecordBody(record, offsetDelta, timestampDelta);
    const size = sizeOfVarint(bodySize) + bodySize;
    const end = this.position + size;
    if (end > this.buffer.length) {
      // Grows (doubling) while the batch size allows; an empty batch takes any record.
      if (end > this.capacity && !first) return 0;
      const grown = this.pool.take(Math.max(end, Math.min(this.capacity, this.buffer.length * 2)));
      this.buffer.copy(grown, 0, 0, this.position);
      this.pool.give(this.buffer);
      this.buffer = grown;
    }
    this.position = writeRecordAt(this.buffer, this.position, record, bodySize, offsetDelta, timestampDelta);
    if (first || timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    this.recordCount++;
    this.targets.push(target);
    this.tags.push(tag);
    this.timestamps.push(timestamp);
    return size;
  }

  /** Freezes the records (compressing them once); later appends go to a new batch. */
  seal(compression: CompressionType, compressionLevel?: number, isTransactional = false): void {
    if (this.wire !== null) return;
    if (compression === CompressionType.None) {
      this.wire = this.buffer.subarray(0, this.position);
    } else {
      const compressed = compress(compression, this.buffer.subarray(HEADER_SIZE, this.position), { level: compressionLevel });
      const wire = Buffer.allocUnsafe(HEADER_SIZE + compressed.length);
      compressed.copy(wire, HEADER_SIZE);
      this.pool.give(this.buffer);
      this.compressed = true;
      this.wire = wire;
      this.buffer = wire;
    }
    this.attributes = batchAttributes({
      compression, timestampType: TimestampType.CreateTime, isTransactional, isControl: false, hasDeleteHorizonMs: false,
    });
  }

  /** Writes the header with the idempotence fields (also after an epoch bump re-sequenced it). */
  stamp(producerId: bigint, producerEpoch: number, baseSequence: number): Buffer {
    const wire = this.wire;
    if (wire === null) throw new Error('batch stamped before it was sealed');
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    writeBatchHeader(wire, 0, wire.length, {
      baseOffset: 0n,
      partitionLeaderEpoch: -1,
      attributes: this.attributes,
      lastOffsetDelta: this.recordCount - 1,
      baseTimestamp: BigInt(this.baseTimestamp),
      maxTimestamp: BigInt(this.maxTimestamp),
      producerId,
      producerEpoch,
      baseSequence,
      recordCount: this.recordCount,
    });
    return wire;
  }

  /** Tells every record's sender; `logAppendTime` < 0 means CreateTime. */
  complete(baseOffset: bigint, logAppendTime: bigint, logStartOffset: bigint): void {
    if (this.done) return;
    this.done = true;
    const appendTime = logAppendTime >= 0n ? Number(logAppendTime) : -1;
    const { targets, tags, timestamps, topic, partition } = this;
    for (let i = 0; i < this.recordCount; i++) {
      deliver(targets[i]!, tags[i] as DeliveryTag, {
        topic,
        partition,
        offset: baseOffset < 0n ? -1n : i === 0 ? baseOffset : baseOffset + delta(i),
        timestamp: appendTime >= 0 ? appendTime : timestamps[i]!,
        logAppendTime: appendTime,
        logStartOffset,
      });
    }
    // Answered: the bytes were written, so the buffer can take another batch's (a
    // compressed batch gave its records' buffer back when it was sealed).
    if (!this.compressed) this.pool.give(this.buffer);
    this.release();
  }

  fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    for (let i = 0; i < this.recordCount; i++) deliverError(this.targets[i]!, this.tags[i] as DeliveryTag, err);
    this.release();
  }

  private release(): void {
    this.targets.length = 0;
    this.tags.length = 0;
    this.timestamps.length = 0;
    this.wire = null;
    this.buffer = EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);
