/**
 * How a coordinator runtime writes its topic: the records of every result run in one turn
 * of the event loop go to each partition as one batch, one write and one fsync (sooner when
 * a batch reaches 512 KiB), as Kafka's runtime accumulates records into one batch per
 * append: per-commit writes and batch framing otherwise cost more than the commits
 * themselves. Records of a producer (TxnOffsetCommit) go in a transactional batch of their
 * own, and transaction markers in a control batch.
 *
 * Order: batches reach a partition in the order their records were given here; what
 * lingers is appended before any transactional batch or marker of the same partition.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { ControlRecordType, encodeEndTxnMarkerBatch, encodeRecordBatch } from '../../protocol/records/index.js';
import { StorageError } from '../../storage/index.js';
import type { PartitionLog, Storage } from '../../storage/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import { appendErrorCode } from './append-errors.js';
import type { RecordPosition, ShardRecord } from './shard.js';

/**
 * A lingering batch holding about this many key and value bytes is appended at once rather
 * than at the end of the turn (Kafka's runtime caps its batches by max.message.bytes).
 */
const MAX_LINGER_BATCH_BYTES = 512 * 1024;

/**
 * How a result's records fare: `appended` settles once they are written to the log (the
 * page cache), `durable` once an fsync covers them; each with NONE or the error the replies
 * carry (append-errors.ts). A write that fails settles both with its error.
 */
export interface AppendOutcome {
  readonly appended: Promise<number>;
  readonly durable: Promise<number>;
  /** Asked for (`appendRecords`' withPositions): where each record landed, valid once `appended` settled with NONE. */
  readonly positions?: () => RecordPosition[];
}

interface LingerBatch {
  readonly partition: number;
  readonly records: ShardRecord[];
  bytes: number;
  /** The offset its first record got, once appended. */
  baseOffset: bigint;
  readonly outcome: AppendOutcome;
  appended(errorCode: number): void;
  durable(errorCode: number): void;
}

const NONE = Promise.resolve(ErrorCode.NONE);
/** A result without records: nothing to wait for. */
export const NOTHING_APPENDED: AppendOutcome = { appended: NONE, durable: NONE };

/** The first error of several outcomes, else NONE. */
function firstError(codes: readonly number[]): number {
  return codes.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE;
}

function allOf(outcomes: readonly AppendOutcome[]): AppendOutcome {
  return {
    appended: Promise.all(outcomes.map((o) => o.appended)).then(firstError),
    durable: Promise.all(outcomes.map((o) => o.durable)).then(firstError),
  };
}

export interface AppenderOptions {
  readonly name: string;
  readonly topic: string;
  readonly storage: Storage;
  readonly clock: Clock;
  readonly log: Logger;
  /** Creates the topic when missing (the first write). */
  ensureTopic(): void;
}

export class Appender {
  /** The lingering batch of each partition. */
  private readonly lingering: (LingerBatch | null)[] = [];

  constructor(private readonly options: AppenderOptions) {}

  /**
   * Appends a result's records in order (see AppendOutcome). Runs of records of one producer
   * go in a transactional batch of that producer; the rest linger. `withPositions`: the
   * outcome tells where each record landed (records without a producer only).
   */
  appendRecords(records: readonly ShardRecord[], withPositions = false): AppendOutcome {
    if (records.every((r) => r.producerId === undefined)) return this.append(records, withPositions);
    const outcomes: AppendOutcome[] = [];
    let i = 0;
    while (i < records.length) {
      const producerId = records[i]!.producerId;
      let j = i + 1;
      while (j < records.length && records[j]!.producerId === producerId && records[j]!.producerEpoch === records[i]!.producerEpoch) j++;
      const run = records.slice(i, j);
      outcomes.push(producerId === undefined ? this.append(run) : this.appendTransactional(run, producerId, run[0]!.producerEpoch ?? 0));
      i = j;
    }
    return allOf(outcomes);
  }

  /** Each record's own durability (its batch's), for a shard that settles record by record. */
  appendEach(records: readonly ShardRecord[]): Promise<number[]> {
    return Promise.all(records.map((r) => (r.producerId === undefined ? this.append([r]) : this.appendTransactional([r], r.producerId, r.producerEpoch ?? 0)).durable));
  }

  /**
   * Appends a COMMIT or ABORT marker of `producerId` to one partition, behind everything
   * given here before; resolves once durable with NONE, else the storage's own error code
   * (WriteTxnMarkers answers it per partition, and the marker's sender decides what to
   * retry). The storage refuses a marker of an older producer epoch.
   */
  appendMarker(partition: number, producerId: bigint, producerEpoch: number, commit: boolean, coordinatorEpoch: number, transactionVersion: number): Promise<number> {
    const nowMs = this.options.clock.nowMs();
    const batch = encodeEndTxnMarkerBatch({
      producerId, producerEpoch, coordinatorEpoch, timestampMs: nowMs, type: commit ? ControlRecordType.Commit : ControlRecordType.Abort,
    });
    let durable: Promise<void>;
    try {
      const log = this.partitionLog(partition);
      this.flush(partition);
      durable = log.append(batch, { nowMs, origin: 'coordinator', transactionVersion }).durable;
    } catch (err) {
      durable = Promise.reject(err);
    }
    return durable.then(() => ErrorCode.NONE, (err: unknown) => {
      if (err instanceof StorageError) return err.errorCode;
      this.options.log.error('transaction marker append failed', { topic: this.options.topic, partition, err });
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    });
  }

  /** Appends what lingers now (shutdown), not at the end of the turn. */
  flushAll(): void {
    for (const batch of this.lingering) if (batch !== undefined && batch !== null) this.appendLingering(batch);
  }

  /** Drops what lingers unwritten, its results failing with `errorCode` (fail-stop). */
  dropAll(errorCode: number): void {
    for (let p = 0; p < this.lingering.length; p++) {
      const batch = this.lingering[p] ?? null;
      this.lingering[p] = null;
      batch?.appended(errorCode);
      batch?.durable(errorCode);
    }
  }

  /** Queues records for their partition's next append (see the module comment). */
  private append(records: readonly ShardRecord[], withPositions = false): AppendOutcome {
    let last: LingerBatch | null = null;
    let outcomes: AppendOutcome[] | null = null;
    // Each record's batch and index in it: its offset once the batch is appended.
    const placed: [LingerBatch, number][] | null = withPositions ? [] : null;
    for (const r of records) {
      const partition = r.partition ?? 0;
      const batch = this.lingering[partition] ?? this.newBatch(partition);
      placed?.push([batch, batch.records.length]);
      batch.records.push(r);
      batch.bytes += r.key.length + (r.value?.length ?? 0);
      if (last !== null && batch !== last) (outcomes ??= [last.outcome]).push(batch.outcome);
      last = batch;
      if (batch.bytes >= MAX_LINGER_BATCH_BYTES) this.appendLingering(batch);
    }
    if (last === null) return NOTHING_APPENDED;
    const outcome = outcomes === null ? last.outcome : allOf(outcomes);
    if (placed === null) return outcome;
    return { ...outcome, positions: () => placed.map(([b, i]) => ({ partition: b.partition, offset: b.baseOffset + BigInt(i) })) };
  }

  /** One transactional batch of `producerId` (no sequence: Kafka's coordinator writes none), behind what lingers. */
  private appendTransactional(records: readonly ShardRecord[], producerId: bigint, producerEpoch: number): AppendOutcome {
    const partition = records[0]!.partition ?? 0;
    try {
      const log = this.partitionLog(partition);
      this.flush(partition);
      const nowMs = this.options.clock.nowMs();
      const encoded = encodeRecordBatch({
        records: records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })),
        producerId, producerEpoch, baseSequence: -1, isTransactional: true,
      });
      const durable = log.append(encoded, { nowMs, origin: 'coordinator' }).durable.then(() => ErrorCode.NONE, (err: unknown) => this.failed(err));
      return { appended: NONE, durable };
    } catch (err) {
      const failed = Promise.resolve(this.failed(err));
      return { appended: failed, durable: failed };
    }
  }

  private newBatch(partition: number): LingerBatch {
    let appended!: (errorCode: number) => void;
    let durable!: (errorCode: number) => void;
    const outcome: AppendOutcome = {
      appended: new Promise<number>((res) => {
        appended = res;
      }),
      durable: new Promise<number>((res) => {
        durable = res;
      }),
    };
    const batch: LingerBatch = { partition, records: [], bytes: 0, baseOffset: -1n, outcome, appended, durable };
    this.lingering[partition] = batch;
    setImmediate(() => this.appendLingering(batch));
    return batch;
  }

  private flush(partition: number): void {
    const batch = this.lingering[partition];
    if (batch !== undefined && batch !== null) this.appendLingering(batch);
  }

  /** Appends a lingering batch (once: at its immediate, or earlier when it grew full or must go first). */
  private appendLingering(batch: LingerBatch): void {
    if (this.lingering[batch.partition] !== batch) return;
    this.lingering[batch.partition] = null;
    try {
      const log = this.partitionLog(batch.partition);
      const nowMs = this.options.clock.nowMs();
      const encoded = encodeRecordBatch({ records: batch.records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })) });
      const { durable, baseOffset } = log.append(encoded, { nowMs, origin: 'coordinator' });
      batch.baseOffset = baseOffset;
      batch.appended(ErrorCode.NONE);
      durable.then(
        () => batch.durable(ErrorCode.NONE),
        (err: unknown) => batch.durable(this.failed(err)),
      );
    } catch (err) {
      // The results that wrote these records are reverted when their replies fail.
      const errorCode = this.failed(err);
      batch.appended(errorCode);
      batch.durable(errorCode);
    }
  }

  private failed(err: unknown): number {
    this.options.log.error(`${this.options.name} records are not durable`, { topic: this.options.topic, err });
    return appendErrorCode(err);
  }

  private partitionLog(partition: number): PartitionLog {
    this.options.ensureTopic();
    const log = this.options.storage.partition(this.options.topic, partition);
    if (log === undefined) throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${this.options.topic} partition ${partition} is missing`);
    return log;
  }
}
