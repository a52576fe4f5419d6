/**
 * A segment's aborted-transaction index, Kafka's TransactionIndex (`<base>.txnindex`): one
 * entry per transaction whose ABORT marker was appended to the segment, in marker order.
 * read_committed fetches answer the entries overlapping the fetched range so consumers can
 * drop the aborted batches. File format, as Kafka's AbortedTxn (34 bytes an entry):
 *   version int16 (0) | producerId int64 | firstOffset int64 | lastOffset int64 | lastStableOffset int64
 * `lastOffset` is the marker's offset; `lastStableOffset` the partition's LSO once the
 * transaction completed, which lets a search stop early.
 */
import { ControlRecordType, CorruptRecordError, decodeEndTxnMarker, decodeRecordBatch } from '../protocol/records/index.js';

const ENTRY_SIZE = 34;
const VERSION = 0;

export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly lastStableOffset: bigint;
}

export interface TxnSearchResult {
  readonly aborted: AbortedTxn[];
  /** An entry's LSO reached the upper bound: later segments need not be searched. */
  readonly complete: boolean;
}

export class TxnIndex {
  private entries: AbortedTxn[] = [];

  get size(): number {
    return this.entries.length;
  }

  all(): readonly AbortedTxn[] {
    return this.entries;
  }

  append(txn: AbortedTxn): void {
    this.entries.push(txn);
  }

  /** Keeps the entries whose marker lies below `offset` (recovery replays the rest). */
  truncateTo(offset: bigint): void {
    this.entries = this.entries.filter((e) => e.lastOffset < offset);
  }

  /** Kafka's TransactionIndex.collectAbortedTxns. */
  collect(fetchOffset: bigint, upperBoundOffset: bigint): TxnSearchResult {
    const aborted: AbortedTxn[] = [];
    for (const e of this.entries) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset) aborted.push(e);
      if (e.lastStableOffset >= upperBoundOffset) return { aborted, complete: true };
    }
    return { aborted, complete: false };
  }

  bytes(): Buffer {
    const buf = Buffer.allocUnsafe(this.entries.length * ENTRY_SIZE);
    let at = 0;
    for (const e of this.entries) {
      at = buf.writeInt16BE(VERSION, at);
      at = buf.writeBigInt64BE(e.producerId, at);
      at = buf.writeBigInt64BE(e.firstOffset, at);
      at = buf.writeBigInt64BE(e.lastOffset, at);
      at = buf.writeBigInt64BE(e.lastStableOffset, at);
    }
    return buf;
  }

  /** Null when the bytes are not whole version-0 entries (the caller then rebuilds from the log). */
  static load(buf: Buffer): TxnIndex | null {
    if (buf.length % ENTRY_SIZE !== 0) return null;
    const index = new TxnIndex();
    for (let at = 0; at < buf.length; at += ENTRY_SIZE) {
      if (buf.readInt16BE(at) !== VERSION) return null;
      index.entries.push({
        producerId: buf.readBigInt64BE(at + 2),
        firstOffset: buf.readBigInt64BE(at + 10),
        lastOffset: buf.readBigInt64BE(at + 18),
        lastStableOffset: buf.readBigInt64BE(at + 26),
      });
    }
    return index;
  }
}

/** What a transaction marker (a control batch's one record) says. */
export interface TxnMarker {
  readonly isAbort: boolean;
  readonly coordinatorEpoch: number;
}

/**
 * The marker in control batch `batch` (Kafka's EndTransactionMarker.deserialize): null for
 * an empty control batch (its transaction was cleaned away); throws CorruptRecordError for
 * a record that is no COMMIT or ABORT marker.
 */
export function readTxnMarker(batch: Buffer): TxnMarker | null {
  const decoded = decodeRecordBatch(batch);
  const record = decoded.records[0];
  if (!record) return null;
  const type = decoded.control?.type;
  if (type !== ControlRecordType.Abort && type !== ControlRecordType.Commit) {
    throw new CorruptRecordError('invalid-control-record', `control record type ${type} is no transaction marker`);
  }
  return { isAbort: type === ControlRecordType.Abort, coordinatorEpoch: decodeEndTxnMarker(record.value).coordinatorEpoch };
}
