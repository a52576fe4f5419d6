/**
 * One share-partition: the records of one topic-partition as a share group sees them
 * (Kafka's SharePartition). Offsets before the start offset are done with; from it on, the
 * in-flight records each have a state:
 *
 *   AVAILABLE ──acquire──► ACQUIRED ──ACCEPT──► ACKNOWLEDGED
 *       ▲                    │  │ └──REJECT / GAP──► ARCHIVED
 *       └──RELEASE, lock─────┘  └──RELEASE, lock at the delivery count limit──► ARCHIVED
 *          timeout, member leaving
 *
 * With a dead-letter queue topic, REJECT and the delivery count limit lead to ARCHIVING
 * instead, and to ARCHIVED once the records were written there (share-group-dlq.ts).
 *
 * plus a delivery count (how often it was acquired) and, while ACQUIRED, its owner and the
 * time its acquisition lock runs out. The start offset moves past every leading record in a
 * terminal state (ACKNOWLEDGED, ARCHIVED). New records are acquired from the end of the
 * in-flight window, as long as the window holds fewer than the max record locks.
 *
 * Pure: the caller gives the time, reads the log and persists what `StateWrite`s say (the
 * start offset and the changed offsets as state batches, Kafka's WriteShareGroupState) before
 * it answers an acknowledgement. Acquisitions are not persisted, as in Kafka: after a restart
 * an acquired record is AVAILABLE again with the delivery count last written.
 *
 * Kafka keeps the in-flight records as batches split per offset when needed; Brook keeps one
 * slot per offset in typed arrays (the window is bounded by the max record locks plus one
 * log batch), which gives the same answers with simpler code.
 */
import type { StateBatch } from '../../coordinator/share-state/state-batches.js';
import { ErrorCode } from '../../protocol/errors.js';
import {
  AcknowledgeType, RecordState, ShareAcknowledgeError,
  type AcknowledgementBatch, type AcquiredRecords, type DlqBatch, type DlqCause, type FetchedBatch, type SharePartitionSettings, type StateWrite,
} from './share-partition-types.js';

export {
  AcknowledgeType, RecordState, ShareAcknowledgeError,
  type AcknowledgementBatch, type AcquiredRecords, type DlqBatch, type FetchedBatch, type SharePartitionSettings, type StateWrite,
} from './share-partition-types.js';

const INITIAL_CAPACITY = 64;
const NO_DEADLINE = Number.POSITIVE_INFINITY;

interface Acquisition {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly deadlineMs: number;
}

export class SharePartition {
  private _startOffset: number;
  /** The first offset never acquired (Kafka's endOffset is this minus one). */
  private windowEnd: number;
  /** Offset of slot 0 of the arrays. */
  private base: number;
  private states = new Uint8Array(INITIAL_CAPACITY);
  private deliveryCounts = new Uint16Array(INITIAL_CAPACITY);
  private deadlines = new Float64Array(INITIAL_CAPACITY);
  private owners: (string | undefined)[] = new Array<string | undefined>(INITIAL_CAPACITY);
  /** 1 where one of Kafka's in-flight batches begins: a run of new records acquired together. */
  private batchStarts = new Uint8Array(INITIAL_CAPACITY);
  /** Pending acquisition locks, by deadline (one lock duration for all: appended in order). */
  private locks: Acquisition[] = [];
  /**
   * Offsets an acknowledgement released whose write is not durable yet: AVAILABLE, but not
   * acquired until the write completes (Kafka's ongoing state transition), so a ShareFetch
   * does not take back the records its own piggybacked acknowledgements release.
   */
  private readonly inTransition = new Set<number>();
  /** Why each ARCHIVING offset archived this way is (one loaded ARCHIVING has none: see dlqBatches). */
  private readonly dlqCauses = new Map<number, DlqCause>();

  /**
   * `startOffset` and `stateBatches` as read from the share coordinator (ReadShareGroupState);
   * a record persisted ACQUIRED (never written by Brook) counts as AVAILABLE, and offsets
   * between the batches were never delivered.
   */
  constructor(readonly settings: SharePartitionSettings, startOffset: number, stateBatches: readonly StateBatch[] = []) {
    this._startOffset = startOffset;
    this.base = startOffset;
    this.windowEnd = startOffset;
    for (const batch of stateBatches) {
      const last = Number(batch.lastOffset);
      if (last < startOffset) continue;
      const first = Math.max(Number(batch.firstOffset), startOffset);
      this.extendTo(last + 1);
      const state = batch.deliveryState === RecordState.ACQUIRED ? RecordState.AVAILABLE : batch.deliveryState;
      for (let o = first; o <= last; o++) {
        const i = o - this.base;
        this.states[i] = state;
        this.deliveryCounts[i] = batch.deliveryCount;
      }
      // Kafka rebuilds its in-flight batches from the state batches.
      this.batchStarts[first - this.base] = 1;
    }
    this.advanceStartOffset();
  }

  get startOffset(): number {
    return this._startOffset;
  }

  /** Kafka's endOffset: the last offset in flight or acquired so far (start offset minus one when none). */
  get endOffset(): number {
    return this.windowEnd - 1;
  }

  /** Records from the start offset to the end offset (Kafka's numInFlightRecords). */
  get inFlightRecords(): number {
    return this.windowEnd - this._startOffset;
  }

  /** The offset the next log read starts at: the first AVAILABLE in-flight record, or the end of the window. */
  nextFetchOffset(): number {
    for (let o = this._startOffset; o < this.windowEnd; o++) {
      if (this.states[o - this.base] === RecordState.AVAILABLE) return o;
    }
    return this.windowEnd;
  }

  /** Whether a fetch may acquire anything: an in-flight record is AVAILABLE, or there is room for new ones. */
  canAcquireRecords(): boolean {
    return this.acquirableFrom() !== null;
  }

  /** nextFetchOffset() when a fetch may acquire anything (canAcquireRecords), else null: one scan for both. */
  acquirableFrom(): number | null {
    const next = this.nextFetchOffset();
    return next < this.windowEnd || this.inFlightRecords < this.settings.maxInFlightRecords ? next : null;
  }

  /**
   * Acquires for `memberId` what the log batches read at nextFetchOffset() hold: the AVAILABLE
   * in-flight records among them, then new records, up to `maxRecords`. In batch-optimized
   * mode (Kafka's default) a log batch is taken whole, so the limit may be passed up to the
   * end of a batch; `recordLimit` stops at `maxRecords` exactly, and the rest of that log
   * batch joins the in-flight records, AVAILABLE (Kafka caches whole log batches). New
   * records stop at the max record locks.
   *
   * The acquired runs come back as Kafka's AcquiredRecords, cut as Kafka's in-flight batches
   * are: in-flight records by the batches they were acquired in (`batchStarts`), apart from
   * the new ones; new records (batch-optimized) at a log batch boundary once a run holds
   * `batchSize` records, each run then an in-flight batch of its own.
   */
  acquire(memberId: string, batches: readonly FetchedBatch[], maxRecords: number, batchSize: number, recordLimit: boolean, nowMs: number): AcquiredRecords[] {
    const out: AcquiredRecords[] = [];
    if (maxRecords <= 0 || batches.length === 0) return out;
    const deadlineMs = nowMs + this.settings.recordLockDurationMs;
    const oldEnd = this.windowEnd;
    let acquired = 0;
    let runFirst = -1;
    let runLast = -1;
    let runCount = 0;
    const closeRun = (): void => {
      if (runFirst < 0) return;
      out.push({ firstOffset: runFirst, lastOffset: runLast, deliveryCount: runCount });
      runFirst = -1;
    };
    const take = (o: number, count: number): void => {
      const i = o - this.base;
      if (runFirst >= 0 && (runLast !== o - 1 || runCount !== count || this.batchStarts[i] === 1 || (o === oldEnd && runFirst < oldEnd))) closeRun();
      if (runFirst < 0) {
        runFirst = o;
        runCount = count;
        if (o >= oldEnd) this.batchStarts[i] = 1;
      }
      runLast = o;
    };
    let lockFirst = -1;
    let lockLast = -1;
    const newRoom = (): number => this.settings.maxInFlightRecords - this.inFlightRecords;
    for (const batch of batches) {
      if (acquired >= maxRecords) break;
      // Only whole batches for new records once the room for new locks ran out.
      const first = Math.max(batch.baseOffset, this._startOffset);
      if (first >= this.windowEnd && newRoom() <= 0) break;
      // A run of new records ends at a log batch boundary once it holds batchSize records.
      if (!recordLimit && runFirst >= oldEnd && first >= oldEnd && first - runFirst >= batchSize) closeRun();
      if (batch.aborted === true) {
        this.archiveAborted(first, batch.lastOffset);
        closeRun();
        continue;
      }
      for (let o = first; o <= batch.lastOffset; o++) {
        if (recordLimit && acquired >= maxRecords) {
          // The rest of the log batch stays in flight, AVAILABLE, as Kafka caches it.
          this.extendTo(batch.lastOffset + 1);
          break;
        }
        if (o >= this.windowEnd) {
          if (o > this.windowEnd) this.skipTo(o);
          this.extendTo(o + 1);
          this.deliveryCounts[o - this.base] = 0;
        } else if (this.states[o - this.base] !== RecordState.AVAILABLE || this.inTransition.has(o)) {
          closeRun();
          continue;
        }
        const i = o - this.base;
        this.states[i] = RecordState.ACQUIRED;
        const count = this.deliveryCounts[i]! + 1;
        this.deliveryCounts[i] = count;
        this.owners[i] = memberId;
        this.deadlines[i] = deadlineMs;
        take(o, count);
        if (lockFirst < 0) lockFirst = o;
        lockLast = o;
        acquired++;
      }
    }
    closeRun();
    if (lockFirst >= 0) this.locks.push({ firstOffset: lockFirst, lastOffset: lockLast, deadlineMs });
    return out;
  }

  /**
   * Acknowledges records `memberId` holds. All or nothing: an invalid type, or a record
   * not ACQUIRED by this member, fails the whole call with Kafka's error and changes
   * nothing. Offsets before the start offset are skipped. RENEW extends the lock.
   */
  acknowledge(memberId: string, batches: readonly AcknowledgementBatch[], nowMs: number): StateWrite | null {
    let previousLast = -1;
    for (const b of batches) {
      this.validate(memberId, b);
      // Kafka applies the batches in turn: an offset the previous batch ended on is no
      // longer acquired when the next one starts on it.
      if (b.firstOffset === previousLast && previousLast >= this._startOffset) {
        throw new ShareAcknowledgeError(ErrorCode.INVALID_RECORD_STATE, 'The offset cannot be acknowledged. The offset is not acquired.');
      }
      previousLast = b.lastOffset;
    }
    const changed: number[] = [];
    const renewUntil = nowMs + this.settings.recordLockDurationMs;
    let renewFirst = -1;
    let renewLast = -1;
    for (const b of batches) {
      const from = Math.max(b.firstOffset, this._startOffset);
      for (let o = from; o <= b.lastOffset; o++) {
        const type = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0]! : b.acknowledgeTypes[o - b.firstOffset]!;
        const i = o - this.base;
        if (type === AcknowledgeType.RENEW) {
          this.deadlines[i] = renewUntil;
          if (renewFirst < 0 || o < renewFirst) renewFirst = o;
          renewLast = Math.max(renewLast, o);
          continue;
        }
        this.states[i] = type === AcknowledgeType.ACCEPT ? RecordState.ACKNOWLEDGED
          : type === AcknowledgeType.RELEASE ? this.releasedState(o)
            : type === AcknowledgeType.REJECT ? this.archived(o, 'reject') : RecordState.ARCHIVED;
        if (this.states[i] === RecordState.AVAILABLE) this.inTransition.add(o);
        this.owners[i] = undefined;
        this.deadlines[i] = NO_DEADLINE;
        changed.push(o);
      }
    }
    if (renewFirst >= 0) this.locks.push({ firstOffset: renewFirst, lastOffset: renewLast, deadlineMs: renewUntil });
    return this.stateWrite(changed);
  }

  /** The write of an acknowledgement is durable: the records it released may be acquired. */
  completeTransitions(write: StateWrite): void {
    for (const b of write.stateBatches) {
      for (let o = Number(b.firstOffset); o <= Number(b.lastOffset); o++) this.inTransition.delete(o);
    }
  }

  /** Makes every record `memberId` holds AVAILABLE again (or ARCHIVED at the limit): the member left. */
  releaseAcquiredRecords(memberId: string): StateWrite | null {
    const changed: number[] = [];
    for (let o = this._startOffset; o < this.windowEnd; o++) {
      const i = o - this.base;
      if (this.states[i] !== RecordState.ACQUIRED || this.owners[i] !== memberId) continue;
      this.release(i);
      changed.push(o);
    }
    return this.stateWrite(changed);
  }

  /** When the next acquisition lock runs out, if any is pending. */
  nextLockDeadlineMs(): number | null {
    return this.locks.length === 0 ? null : this.locks[0]!.deadlineMs;
  }

  /** Releases the records whose acquisition lock ran out by `nowMs` (Kafka's acquisition lock timeout). */
  expireLocks(nowMs: number): StateWrite | null {
    const changed: number[] = [];
    let n = 0;
    while (n < this.locks.length && this.locks[n]!.deadlineMs <= nowMs) {
      const lock = this.locks[n++]!;
      const from = Math.max(lock.firstOffset, this._startOffset);
      const to = Math.min(lock.lastOffset, this.windowEnd - 1);
      for (let o = from; o <= to; o++) {
        const i = o - this.base;
        // A renewed lock has a later deadline of its own, in a later entry.
        if (this.states[i] !== RecordState.ACQUIRED || this.deadlines[i]! > nowMs) continue;
        this.release(i);
        changed.push(o);
      }
    }
    if (n > 0) this.locks.splice(0, n);
    return this.stateWrite(changed);
  }

  /**
   * The log's start offset moved past records in flight (retention, DeleteRecords): what is
   * AVAILABLE before it is archived, and the start offset moves to it when nothing before it
   * is still in flight (Kafka's updateCacheAndOffsets).
   */
  logStartOffsetMoved(logStartOffset: number): StateWrite | null {
    if (logStartOffset <= this._startOffset) return null;
    if (this.noneAcquiredBefore(Math.min(logStartOffset, this.windowEnd)) && logStartOffset >= this.windowEnd) {
      // Nothing in flight is left: the window starts over at the log's start.
      this._startOffset = this.base = this.windowEnd = logStartOffset;
      this.locks = [];
      return { startOffset: logStartOffset, stateBatches: [], deliveryCompleteCount: 0 };
    }
    const changed: number[] = [];
    for (let o = this._startOffset; o < Math.min(logStartOffset, this.windowEnd); o++) {
      const i = o - this.base;
      if (this.states[i] === RecordState.AVAILABLE) {
        this.states[i] = RecordState.ARCHIVED;
        changed.push(o);
      }
    }
    return this.stateWrite(changed, true);
  }

  /**
   * The ARCHIVING runs a write holds, or with none every ARCHIVING record in flight (loaded
   * so: the write to the dead-letter queue did not finish), cut by delivery count and
   * cause. A loaded record's cause is the delivery count limit once reached, else a reject,
   * as Kafka's maybeResumeDlqArchiving decides.
   */
  dlqBatches(write?: StateWrite): DlqBatch[] {
    const out: DlqBatch[] = [];
    const add = (o: number): void => {
      const i = o - this.base;
      if (o < this._startOffset || o >= this.windowEnd || this.states[i] !== RecordState.ARCHIVING) return;
      const deliveryCount = this.deliveryCounts[i]!;
      const cause = this.dlqCauses.get(o) ?? (deliveryCount >= this.settings.deliveryCountLimit ? 'limit' : 'reject');
      const last = out[out.length - 1];
      if (last !== undefined && last.lastOffset === o - 1 && last.deliveryCount === deliveryCount && last.cause === cause) out[out.length - 1] = { ...last, lastOffset: o };
      else out.push({ firstOffset: o, lastOffset: o, deliveryCount, cause });
    };
    if (write === undefined) {
      for (let o = this._startOffset; o < this.windowEnd; o++) add(o);
    } else {
      for (const b of write.stateBatches) {
        if (b.deliveryState !== RecordState.ARCHIVING) continue;
        for (let o = Number(b.firstOffset); o <= Number(b.lastOffset); o++) add(o);
      }
    }
    return out;
  }

  /** The records of a DLQ batch were written to the dead-letter queue (or could not be): ARCHIVED. */
  completeArchiving(batch: DlqBatch): StateWrite | null {
    const changed: number[] = [];
    for (let o = Math.max(batch.firstOffset, this._startOffset); o <= Math.min(batch.lastOffset, this.windowEnd - 1); o++) {
      if (this.states[o - this.base] !== RecordState.ARCHIVING) continue;
      this.states[o - this.base] = RecordState.ARCHIVED;
      this.dlqCauses.delete(o);
      changed.push(o);
    }
    return this.stateWrite(changed);
  }

  /** Each in-flight offset's state and delivery count (for describe and tests). */
  inFlight(): { offset: number; state: RecordState; deliveryCount: number; owner: string | undefined }[] {
    const out = [];
    for (let o = this._startOffset; o < this.windowEnd; o++) {
      const i = o - this.base;
      out.push({ offset: o, state: this.states[i] as RecordState, deliveryCount: this.deliveryCounts[i]!, owner: this.owners[i] });
    }
    return out;
  }

  /** An aborted transaction's records: ARCHIVED where new or AVAILABLE (nothing to write: a read finds them aborted again). */
  private archiveAborted(first: number, last: number): void {
    for (let o = first; o <= last; o++) {
      if (o >= this.windowEnd) {
        if (o > this.windowEnd) this.skipTo(o);
        this.extendTo(o + 1);
        this.states[o - this.base] = RecordState.ARCHIVED;
      } else if (this.states[o - this.base] === RecordState.AVAILABLE && !this.inTransition.has(o)) {
        this.states[o - this.base] = RecordState.ARCHIVED;
      }
    }
  }

  private noneAcquiredBefore(end: number): boolean {
    for (let o = this._startOffset; o < end; o++) if (this.states[o - this.base] === RecordState.ACQUIRED) return false;
    return true;
  }

  private validate(memberId: string, b: AcknowledgementBatch): void {
    const { INVALID_REQUEST, INVALID_RECORD_STATE } = ErrorCode;
    if (b.lastOffset < b.firstOffset) throw new ShareAcknowledgeError(INVALID_REQUEST, `Invalid acknowledgement batch: last offset ${b.lastOffset} before first offset ${b.firstOffset}`);
    const types = b.acknowledgeTypes;
    if (types.length !== 1 && types.length !== b.lastOffset - b.firstOffset + 1) {
      throw new ShareAcknowledgeError(INVALID_REQUEST, `Invalid acknowledge type: ${types.length} types for ${b.lastOffset - b.firstOffset + 1} offsets`);
    }
    for (const t of types) {
      if (t < AcknowledgeType.GAP || t > AcknowledgeType.RENEW) throw new ShareAcknowledgeError(INVALID_REQUEST, `Invalid acknowledge type: ${t}`);
    }
    // Kafka's fetchSubMapForAcknowledgementBatch: offsets before the start offset are done
    // with; then nothing in flight, or offsets past the last one in flight.
    if (b.lastOffset < this._startOffset) return;
    if (this._startOffset === this.windowEnd) throw new ShareAcknowledgeError(INVALID_RECORD_STATE, 'Batch record not found. The request batch offsets are not found in the cache.');
    if (b.firstOffset >= this.windowEnd) throw new ShareAcknowledgeError(INVALID_REQUEST, 'Batch record not found. The first offset in request is past acquired records.');
    if (b.lastOffset >= this.windowEnd) throw new ShareAcknowledgeError(INVALID_REQUEST, 'Batch record not found. The last offset in request is past acquired records.');
    // In-flight batch by in-flight batch, with Kafka's wording: a batch whose records all
    // share one state and owner is checked whole (Kafka tracks it as one), else per offset.
    for (let o = Math.max(b.firstOffset, this._startOffset); o <= b.lastOffset;) {
      const [from, to] = this.inFlightBatchOf(o);
      // A batch the start offset moved into was acknowledged in part: Kafka tracks it per offset.
      if (this.batchStarts[from - this.base] === 1 && this.uniform(from, to)) {
        const i = from - this.base;
        if (this.states[i] !== RecordState.ACQUIRED) throw new ShareAcknowledgeError(INVALID_RECORD_STATE, 'The batch cannot be acknowledged. The batch is not in the acquired state.');
        if (this.owners[i] !== memberId) throw new ShareAcknowledgeError(INVALID_RECORD_STATE, 'Member is not the owner of batch record');
      }
      for (; o <= Math.min(to, b.lastOffset); o++) {
        const i = o - this.base;
        if (this.states[i] !== RecordState.ACQUIRED || this.inTransition.has(o)) throw new ShareAcknowledgeError(INVALID_RECORD_STATE, 'The offset cannot be acknowledged. The offset is not acquired.');
        if (this.owners[i] !== memberId) throw new ShareAcknowledgeError(INVALID_RECORD_STATE, 'Member is not the owner of offset');
      }
    }
  }

  /** The in-flight batch (as Kafka would hold it) `offset` is in, from the start offset on. */
  private inFlightBatchOf(offset: number): [number, number] {
    let from = offset;
    while (from > this._startOffset && this.batchStarts[from - this.base] !== 1) from--;
    let to = offset;
    while (to + 1 < this.windowEnd && this.batchStarts[to + 1 - this.base] !== 1) to++;
    return [from, to];
  }

  private uniform(from: number, to: number): boolean {
    const i = from - this.base;
    for (let o = from + 1; o <= to; o++) {
      const j = o - this.base;
      if (this.states[j] !== this.states[i] || this.owners[j] !== this.owners[i] || this.deliveryCounts[j] !== this.deliveryCounts[i] || this.inTransition.has(o)) return false;
    }
    return !this.inTransition.has(from);
  }

  /** The state a released record takes: AVAILABLE, or archived once delivered as often as allowed. */
  private releasedState(o: number): RecordState {
    return this.deliveryCounts[o - this.base]! >= this.settings.deliveryCountLimit ? this.archived(o, 'limit') : RecordState.AVAILABLE;
  }

  /** ARCHIVING, on the way to the dead-letter queue, when the group has one; else ARCHIVED (Kafka's recordStateWithDlq). */
  private archived(o: number, cause: DlqCause): RecordState {
    if (this.settings.deadLetterQueue?.() !== true) return RecordState.ARCHIVED;
    this.dlqCauses.set(o, cause);
    return RecordState.ARCHIVING;
  }

  private release(i: number): void {
    this.states[i] = this.releasedState(i + this.base);
    this.owners[i] = undefined;
    this.deadlines[i] = NO_DEADLINE;
  }

  /**
   * Describes the changed offsets as state batches, then moves the start offset past
   * terminal records. The write carries the start offset from before the move, as Kafka's
   * SharePartition writes before it moves its start offset: the next write carries the
   * move, and the share coordinator prunes then. `moveFirst` writes the moved start offset
   * (a log start offset that moved: Kafka sets its start offset to it at once).
   */
  private stateWrite(changed: number[], moveFirst = false): StateWrite | null {
    if (changed.length === 0) return null;
    changed.sort((a, b) => a - b);
    const stateBatches: StateBatch[] = [];
    let first = -1;
    let last = -1;
    let state = -1;
    let count = -1;
    const flush = (): void => {
      if (first >= 0) stateBatches.push({ firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState: state, deliveryCount: count });
    };
    for (const o of changed) {
      const i = o - this.base;
      const s = this.states[i]!;
      const c = this.deliveryCounts[i]!;
      if (first >= 0 && o === last + 1 && s === state && c === count) {
        last = o;
        continue;
      }
      flush();
      first = last = o;
      state = s;
      count = c;
    }
    flush();
    if (moveFirst) this.advanceStartOffset();
    const write = { startOffset: this._startOffset, stateBatches, deliveryCompleteCount: this.deliveryCompleteCount() };
    this.advanceStartOffset();
    return write;
  }

  /** Terminal records from the start offset to the end of the window (the start offset's own is not: it moved past those). */
  private deliveryCompleteCount(): number {
    let n = 0;
    for (let i = this._startOffset - this.base; i < this.windowEnd - this.base; i++) {
      const state = this.states[i];
      if (state === RecordState.ACKNOWLEDGED || state === RecordState.ARCHIVED) n++;
    }
    return n;
  }

  private advanceStartOffset(): void {
    let o = this._startOffset;
    while (o < this.windowEnd) {
      const s = this.states[o - this.base];
      if (s !== RecordState.ACKNOWLEDGED && s !== RecordState.ARCHIVED) break;
      o++;
    }
    this._startOffset = o;
    // Drop the slots before the start offset once they are half the arrays.
    const dead = o - this.base;
    if (dead > 0 && dead * 2 >= this.states.length) this.shift(dead);
  }

  private shift(by: number): void {
    const live = this.windowEnd - this.base - by;
    this.states.copyWithin(0, by, by + live);
    this.deliveryCounts.copyWithin(0, by, by + live);
    this.deadlines.copyWithin(0, by, by + live);
    this.owners.copyWithin(0, by, by + live);
    this.batchStarts.copyWithin(0, by, by + live);
    this.base += by;
  }

  /**
   * The log has no records from the window's end to `offset` (compacted away, or before the
   * log's start): with nothing in flight the window starts at `offset`, else the missing
   * offsets are ARCHIVED (no record to deliver; they need no write, a restart skips them too).
   */
  private skipTo(offset: number): void {
    if (this._startOffset === this.windowEnd) {
      this._startOffset = this.base = this.windowEnd = offset;
      return;
    }
    const from = this.windowEnd;
    this.extendTo(offset);
    for (let o = from; o < offset; o++) this.states[o - this.base] = RecordState.ARCHIVED;
  }

  /** Makes the window reach `end` (exclusive), new slots AVAILABLE with no delivery. */
  private extendTo(end: number): void {
    if (end <= this.windowEnd) return;
    const need = end - this.base;
    if (need > this.states.length) {
      let capacity = this.states.length;
      while (capacity < need) capacity *= 2;
      const states = new Uint8Array(capacity);
      states.set(this.states);
      this.states = states;
      const counts = new Uint16Array(capacity);
      counts.set(this.deliveryCounts);
      this.deliveryCounts = counts;
      const deadlines = new Float64Array(capacity);
      deadlines.set(this.deadlines);
      this.deadlines = deadlines;
      const starts = new Uint8Array(capacity);
      starts.set(this.batchStarts);
      this.batchStarts = starts;
      this.owners.length = capacity;
    }
    for (let i = this.windowEnd - this.base; i < need; i++) {
      this.states[i] = RecordState.AVAILABLE;
      this.deliveryCounts[i] = 0;
      this.deadlines[i] = NO_DEADLINE;
      this.owners[i] = undefined;
      this.batchStarts[i] = 0;
    }
    this.windowEnd = end;
  }
}
