/**
 * Start-up replay of `__consumer_offsets`. Like Kafka's loader (GroupMetadataManager's
 * doLoadGroupsAndOffsets kept the newest offset per key and the newest metadata per group,
 * then applied them), the log is first reduced to the records whose effect survives, and
 * only those reach the coordinator: a consumer committing every 5 s leaves thousands of
 * records per partition, of which replay needs the last. Finding a record's key costs a
 * hash of its bytes; decoding and applying the record cost several times that.
 *
 * Applying the reduced records gives the state that applying every record gives:
 * - a key's records overwrite each other, so its last record decides its offset or group
 *   metadata;
 * - across keys, the only effect is on groups: an offset record creates its (Empty) group
 *   when missing, a group tombstone drops the group (its offsets stay). So a group's
 *   existence depends on the order of its group key's last record and its offset keys' last
 *   records carrying a value. The reduced records keep log order, and a key whose last
 *   record is a tombstone keeps its last value too, just before it in log order, where it
 *   created the group.
 * Records of transactions (TxnOffsetCommit) are held per producer until the transaction's
 * marker: a COMMIT adds them at the marker's place (where they take effect, as Kafka's
 * replayEndTransactionMarker), an ABORT drops them; those of transactions still open at the
 * end are replayed last, with their producer id, as pending offsets.
 */
import { ControlRecordType, decodeRecordBatch, forEachRecordSpan, iterateBatches, MAGIC_V2, readBatchHeader } from '../protocol/records/index.js';
import type { CoordinatorRecord } from '../coordinator/index.js';
import type { PartitionLog } from '../storage/types.js';

/** Bytes read per step: large enough that replay is not read-bound, small enough not to matter in RSS. */
const REPLAY_READ_BYTES = 8 * 1024 * 1024;

interface KeyState {
  readonly key: Buffer;
  value: Buffer | null;
  /** Position (records replayed before it) of the key's last record. */
  at: number;
  /** When the last record is a tombstone: the key's last value and its position. */
  lastValue: Buffer | null;
  lastValueAt: number;
  /** The next key with the same hash. */
  next: KeyState | null;
}

/**
 * The last record of every key seen, and how to replay them. Keys are found by a hash of
 * their bytes where they lie (no string or view per record: those were most of the cost).
 */
export class LatestRecordPerKey {
  private readonly byHash = new Map<number, KeyState>();
  private readonly keys: KeyState[] = [];
  private count = 0;
  /** Records of open transactions by producer id, with the epoch of their batch. */
  private readonly openTxns = new Map<bigint, CoordinatorRecord[]>();

  /** Records seen so far. */
  get records(): number {
    return this.count;
  }

  /**
   * Notes one record: key `keyBuf[keyStart, +keyLength)`, value `valueBuf[valueStart,
   * +valueLength)` or a tombstone when valueLength is -1. Both are copied when kept, so the
   * buffers may be reused afterwards.
   */
  add(keyBuf: Buffer, keyStart: number, keyLength: number, valueBuf: Buffer, valueStart: number, valueLength: number): void {
    const at = this.count++;
    const hash = hashBytes(keyBuf, keyStart, keyLength);
    let state = this.byHash.get(hash) ?? null;
    while (state !== null && !sameBytes(state.key, keyBuf, keyStart, keyLength)) state = state.next;
    if (state === null) {
      const value = valueLength < 0 ? null : Buffer.from(valueBuf.subarray(valueStart, valueStart + valueLength));
      const created: KeyState = { key: Buffer.from(keyBuf.subarray(keyStart, keyStart + keyLength)), value, at, lastValue: null, lastValueAt: -1, next: this.byHash.get(hash) ?? null };
      this.byHash.set(hash, created);
      this.keys.push(created);
      return;
    }
    if (valueLength < 0) {
      if (state.value !== null) {
        state.lastValue = state.value;
        state.lastValueAt = state.at;
        state.value = null;
      }
    } else if (state.value !== null && state.value.length === valueLength) {
      // Commits of one partition usually encode to the same length: no allocation. A loop,
      // as Buffer#copy builds a view per call, which costs more for these few dozen bytes.
      const target = state.value;
      for (let i = 0; i < valueLength; i++) target[i] = valueBuf[valueStart + i]!;
    } else {
      state.value = Buffer.from(valueBuf.subarray(valueStart, valueStart + valueLength));
      state.lastValue = null;
    }
    state.at = at;
  }

  /** A record of a transactional batch: held until the transaction's marker. */
  addTransactional(producerId: bigint, producerEpoch: number, key: Buffer, value: Buffer | null): void {
    this.count++;
    let records = this.openTxns.get(producerId);
    if (records === undefined) this.openTxns.set(producerId, (records = []));
    records.push({ key: Buffer.from(key), value: value === null ? null : Buffer.from(value), producerId, producerEpoch });
  }

  /** The producer's transaction ended here: a commit's records take effect now. */
  endTransaction(producerId: bigint, commit: boolean): void {
    const records = this.openTxns.get(producerId);
    this.openTxns.delete(producerId);
    if (!commit || records === undefined) return;
    for (const r of records) {
      this.count--; // counted when held
      this.add(r.key, 0, r.key.length, r.value ?? r.key, 0, r.value === null ? -1 : r.value.length);
    }
  }

  /** Records of transactions still open at the end of the log, in log order per producer. */
  openTransactionRecords(): CoordinatorRecord[] {
    return [...this.openTxns.values()].flat();
  }

  /** The records to replay, in log order. */
  toReplay(): CoordinatorRecord[] {
    const out: { at: number; record: CoordinatorRecord }[] = [];
    for (const s of this.keys) {
      if (s.value === null && s.lastValue !== null) out.push({ at: s.lastValueAt, record: { key: s.key, value: s.lastValue } });
      out.push({ at: s.at, record: { key: s.key, value: s.value } });
    }
    out.sort((a, b) => a.at - b.at);
    return out.map((o) => o.record);
  }
}

/** FNV-1a over the bytes, kept to 30 bits so map keys stay small integers. */
function hashBytes(buf: Buffer, start: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = start, end = start + length; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return h & 0x3fffffff;
}

function sameBytes(key: Buffer, buf: Buffer, start: number, length: number): boolean {
  if (key.length !== length) return false;
  for (let i = 0; i < length; i++) if (key[i] !== buf[start + i]) return false;
  return true;
}

/**
 * Reads `log` from its start and returns the last record of every key. Uncompressed v2
 * batches are walked in place (no per-record objects); others are decoded.
 */
export function readForReplay(log: PartitionLog): LatestRecordPerKey {
  const latest = new LatestRecordPerKey();
  let offset = log.logStartOffset;
  let baseOffset = 0n;
  let partial = false;
  const add = (offsetDelta: number, batch: Buffer, keyStart: number, keyLength: number, valueStart: number, valueLength: number): void => {
    if (keyLength < 0) return;
    if (partial && baseOffset + BigInt(offsetDelta) < offset) return;
    latest.add(batch, keyStart, keyLength, batch, valueStart, valueLength);
  };
  while (offset < log.logEndOffset) {
    const read = log.read(offset, REPLAY_READ_BYTES, { minOneBatch: true });
    if (read.records.length === 0) break;
    let advanced = false;
    for (const chunk of read.records) {
      for (const view of iterateBatches(chunk)) {
        const header = view.magic === MAGIC_V2 ? readBatchHeader(view.buffer) : decodeRecordBatch(view.buffer).header;
        if (header.lastOffset < offset) continue;
        if (header.isControl && header.producerId >= 0n) {
          const type = decodeRecordBatch(view.buffer).control?.type;
          if (type === ControlRecordType.Commit || type === ControlRecordType.Abort) latest.endTransaction(header.producerId, type === ControlRecordType.Commit);
        } else if (header.isTransactional && header.producerId >= 0n) {
          for (const record of decodeRecordBatch(view.buffer).records) {
            if (record.offset >= offset && record.key !== null) latest.addTransactional(header.producerId, header.producerEpoch, record.key, record.value);
          }
        } else if (!header.isControl) {
          baseOffset = header.baseOffset;
          partial = baseOffset < offset;
          if (view.magic !== MAGIC_V2 || !forEachRecordSpan(view.buffer, header, add)) {
            for (const record of decodeRecordBatch(view.buffer).records) {
              if (record.offset < offset || record.key === null) continue;
              const value = record.value ?? record.key;
              latest.add(record.key, 0, record.key.length, value, 0, record.value === null ? -1 : value.length);
            }
          }
        }
        offset = header.lastOffset + 1n;
        advanced = true;
      }
    }
    if (!advanced) break;
  }
  return latest;
}

/** A record of the log and the offset it lies at. */
export interface LoggedRecord {
  readonly record: CoordinatorRecord;
  readonly offset: bigint;
}

/**
 * Every keyed record of `log` from its start, in log order, with its offset, for a topic
 * whose records do not overwrite each other by key (`__share_group_state`: each ShareUpdate
 * adds to the state its key's earlier records built, and the share coordinator tracks where
 * each snapshot lies to prune the topic). Such a topic has no transactional batches.
 */
export function readEveryRecord(log: PartitionLog): LoggedRecord[] {
  const out: LoggedRecord[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const read = log.read(offset, REPLAY_READ_BYTES, { minOneBatch: true });
    if (read.records.length === 0) break;
    let advanced = false;
    for (const chunk of read.records) {
      for (const view of iterateBatches(chunk)) {
        const batch = decodeRecordBatch(view.buffer);
        if (batch.header.lastOffset < offset) continue;
        if (!batch.header.isControl) {
          for (const r of batch.records) {
            if (r.offset < offset || r.key === null) continue;
            out.push({ record: { key: Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value) }, offset: r.offset });
          }
        }
        offset = batch.header.lastOffset + 1n;
        advanced = true;
      }
    }
    if (!advanced) break;
  }
  return out;
}
