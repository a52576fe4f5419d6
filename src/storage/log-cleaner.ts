/**
 * Log compaction for cleanup.policy=compact (Kafka's LogCleaner and LogCleanerManager),
 * one partition at a time:
 *  - The cleanable section runs from the first dirty offset (where the last clean ended;
 *    the log start at first) to the first uncleanable segment: the active one, or an
 *    earlier one holding a record newer than min.compaction.lag.ms.
 *  - A log is cleaned when its dirty ratio (dirty bytes / (clean + dirty bytes)) exceeds
 *    min.cleanable.dirty.ratio, when its first dirty segment is older than
 *    max.compaction.lag.ms, or (Brook's addition) when a delete horizon it set has passed,
 *    so expired tombstones go without waiting for new writes.
 *  - An offset map of the dirty section (key → newest offset) is built, then every segment
 *    below the section's end, clean or dirty, is filtered through it (cleaner-filter.ts) in
 *    groups that fit segment.bytes; each group becomes one new segment, written aside,
 *    fsynced, and swapped in by the store (file-swap.ts for files).
 *
 * Where the work runs: for a store with `cleanerFiles` (the file engine) and a CleanerThread,
 * the map, the filtering and the writing of each cleaned segment run in the worker thread
 * (cleaner-thread.ts, cleaner-worker.ts), which reads and writes the segment files itself;
 * this thread decides what to clean and which segments make a group, and does the swap.
 * Otherwise (the memory engine, `cleanerThread: 'inline'`) it all runs here, yielding to the
 * event loop every YIELD_AFTER_MS. Either way appends go on meanwhile (only the active
 * segment changes), reads see the old segments until the synchronous swap, and a swap whose
 * segments changed meanwhile (retention, deletion, close) is dropped.
 */
import { HEADER_PREFIX, BatchWalker, Segment } from './segment.js';
import { LAST_OFFSET_DELTA_OFFSET, LENGTH_OFFSET, LOG_OVERHEAD, MAX_TIMESTAMP_OFFSET } from '../protocol/records/index.js';
import { addBatchToMap, filterBatch, OffsetMap, type AbortedRange, type FilterContext } from './cleaner-filter.js';
import type { CleanerThread, GroupResult } from './cleaner-thread.js';
import { OffsetIndex, TimeIndex } from './indexes.js';
import type { CleanerFileAccess, PartitionStore, SegmentFiles } from './segment-store.js';
import type { LogConfig } from './topic-configs.js';

const INT32_MAX = 0x7fffffff;

export interface CleanerView {
  /** Every segment, oldest first; the last is active. */
  readonly segments: readonly Segment[];
  readonly config: LogConfig;
  readonly store: PartitionStore;
  readonly logStartOffset: bigint;
  readonly activeProducers: ReadonlyMap<bigint, bigint>;
  readonly scratch: Buffer;
  /** Segments holding offsets from here on are not cleaned: an open transaction may yet abort. */
  readonly lastStableOffset: bigint;
  /** Every aborted transaction of the log (from the segments' transaction indexes). */
  readonly aborted: readonly AbortedRange[];
}

/** What the cleaner needs of a partition log (PartitionLogImpl). */
export interface CleanableLog {
  readonly topic: string;
  readonly partition: number;
  cleanerView(): CleanerView | null;
  replaceSegments(old: readonly Segment[], cleaned: Segment): boolean;
}

export interface CleanResult {
  readonly segmentsBefore: number;
  readonly segmentsAfter: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly recordsRemoved: number;
  /** Where the next clean's dirty section starts. */
  readonly firstDirtyOffset: bigint;
  /** From the decision to clean to the last swap (the broker logs it: benchmarks line commit latencies up with cleaning). */
  readonly durationMs: number;
  /** Time this thread spent in the swaps (renames, directory fsyncs): the event loop's share of the work. */
  readonly swapMs: number;
  /** The longest of those swaps: how long a request arriving at the worst moment waited for one. */
  readonly maxSwapMs: number;
  /** Where the map and the filtering ran. */
  readonly thread: 'worker' | 'inline';
}

export interface CleanerOptions {
  /** Largest number of keys in one offset map (Kafka bounds it by log.cleaner.dedupe.buffer.size). */
  readonly maxMapEntries?: number;
  /** Stop between steps (storage closing). */
  readonly aborted?: () => boolean;
  /** The worker thread for logs whose store has `cleanerFiles`; without it everything runs in this thread. */
  readonly thread?: CleanerThread;
}

interface LogState {
  firstDirtyOffset: bigint;
  /** The earliest delete horizon among kept tombstones, ms; Infinity when none. */
  nextHorizonMs: number;
}

/** What filtering one group produced: a cleaned segment outside the log, ready to swap in. */
interface CleanedGroup {
  readonly cleaned: Segment;
  readonly removed: number;
  readonly horizon: number;
}

/** The two places the heavy work can run; null answers mean "abandoned" (closing, segments gone). */
interface CleanerWork {
  readonly thread: 'worker' | 'inline';
  /** The offset map of `dirty` (whole segments, from `from`); how many segments went in. */
  buildMap(dirty: readonly Segment[], from: bigint, maxEntries: number): Promise<number | null>;
  cleanGroup(group: readonly Segment[], ctx: Omit<FilterContext, 'map'>, latestOffset: bigint): Promise<CleanedGroup | null>;
  /** After `group` was swapped out. */
  swapped(group: readonly Segment[]): void;
  release(): void;
}

const DEFAULT_MAX_MAP_ENTRIES = 1_000_000;
/**
 * CPU time the in-thread cleaner may take before it yields to the event loop: commits wait
 * behind it, so this bounds the cleaner's share of their latency (a 256 KiB slice of
 * __consumer_offsets took 10-40 ms and set the commit p99).
 */
const YIELD_AFTER_MS = 2;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class LogCleaner {
  /** In memory: after a restart the whole log is dirty once (Kafka keeps cleaner-offset-checkpoint). */
  private readonly states = new WeakMap<CleanableLog, LogState>();

  constructor(private readonly options: CleanerOptions = {}) {}

  /** Cleans `log` when it is due; null when it was not (or is not compacted, or the clean was abandoned). */
  async clean(log: CleanableLog, nowMs: number): Promise<CleanResult | null> {
    const view = log.cleanerView();
    if (!view || !view.config.compact) return null;
    let state = this.states.get(log);
    if (!state) {
      state = { firstDirtyOffset: view.logStartOffset, nextHorizonMs: Infinity };
      this.states.set(log, state);
    }
    const { segments, config } = view;
    const firstDirty = state.firstDirtyOffset < view.logStartOffset ? view.logStartOffset : state.firstDirtyOffset;
    const active = segments.length - 1;
    let dirtyIdx = segments.findIndex((s) => s.nextOffset > firstDirty);
    if (dirtyIdx < 0 || dirtyIdx > active) dirtyIdx = active;
    let uncleanableIdx = dirtyIdx;
    while (
      uncleanableIdx < active && segments[uncleanableIdx]!.largestTimestamp() <= nowMs - config.minCompactionLagMs
      && segments[uncleanableIdx]!.nextOffset <= view.lastStableOffset
    ) uncleanableIdx++;
    let cleanBytes = 0;
    let dirtyBytes = 0;
    for (let i = 0; i < uncleanableIdx; i++) {
      if (i < dirtyIdx) cleanBytes += segments[i]!.size;
      else dirtyBytes += segments[i]!.size;
    }
    const ratio = dirtyBytes === 0 ? 0 : dirtyBytes / (cleanBytes + dirtyBytes);
    const firstDirtySegment = segments[dirtyIdx]!;
    const dirtySince = Number(firstDirtySegment.firstBatchTimestamp ?? BigInt(firstDirtySegment.lastModifiedMs));
    const overdue = dirtyBytes > 0 && nowMs - dirtySince > config.maxCompactionLagMs;
    const horizonPassed = cleanBytes > 0 && state.nextHorizonMs <= nowMs;
    const due = (dirtyBytes > 0 && ratio > config.minCleanableDirtyRatio) || overdue || horizonPassed;
    if (!due) return null;
    const started = performance.now();

    const files = view.store.cleanerFiles;
    const work: CleanerWork = files && this.options.thread
      ? new WorkerWork(this.options.thread, files, log, view)
      : new InlineWork(log, view, this.options.aborted);
    try {
      // The offset map of the dirty section, whole segments only.
      const mapped = await work.buildMap(segments.slice(dirtyIdx, uncleanableIdx), firstDirty, this.options.maxMapEntries ?? DEFAULT_MAX_MAP_ENTRIES);
      if (mapped === null || this.options.aborted?.()) return null;
      const endIdx = dirtyIdx + mapped;
      const endOffset = segments[endIdx]!.baseOffset;

      const ctx = { nowMs, deleteRetentionMs: config.deleteRetentionMs, activeProducers: view.activeProducers };
      let removed = 0;
      let horizon = Infinity;
      let swapMs = 0;
      let maxSwapMs = 0;
      for (const group of groupBySize(segments.slice(0, endIdx), config)) {
        const outcome = await work.cleanGroup(group, ctx, endOffset - 1n);
        if (!outcome) return null;
        const swapStarted = performance.now();
        let swapped = false;
        try {
          if (this.options.aborted?.()) return null;
          swapped = log.replaceSegments(group, outcome.cleaned);
          if (!swapped) return null;
          work.swapped(group);
        } finally {
          if (!swapped) view.store.discardCleanedSegment(outcome.cleaned.files);
          const took = performance.now() - swapStarted;
          swapMs += took;
          if (took > maxSwapMs) maxSwapMs = took;
        }
        removed += outcome.removed;
        horizon = Math.min(horizon, outcome.horizon);
        await yieldToEventLoop();
      }
      state.firstDirtyOffset = endOffset;
      state.nextHorizonMs = horizon;
      const after = log.cleanerView()?.segments ?? [];
      return {
        segmentsBefore: segments.length, segmentsAfter: after.length,
        bytesBefore: segments.reduce((n, s) => n + s.size, 0), bytesAfter: after.reduce((n, s) => n + s.size, 0),
        recordsRemoved: removed, firstDirtyOffset: endOffset, durationMs: Math.round(performance.now() - started),
        swapMs: Math.round(swapMs * 10) / 10, maxSwapMs: Math.round(maxSwapMs * 100) / 100, thread: work.thread,
      };
    } finally {
      work.release();
    }
  }
}

/** Whether every segment of `group` is still in the log (nothing replaced or removed them meanwhile). */
function stillPresent(log: CleanableLog, group: readonly Segment[]): boolean {
  const segments = log.cleanerView()?.segments;
  return segments !== undefined && group.every((s) => segments.includes(s));
}

/** Appends one filtered batch to a cleaned segment, with Kafka's index bookkeeping. */
export function appendCleaned(cleaned: Segment, out: Buffer, indexIntervalBytes: number): void {
  const position = cleaned.size;
  cleaned.log.append(out);
  const lastOffset = out.readBigInt64BE(0) + BigInt(out.readInt32BE(LAST_OFFSET_DELTA_OFFSET));
  cleaned.onAppended(position, out.length, lastOffset, out.readBigInt64BE(MAX_TIMESTAMP_OFFSET), indexIntervalBytes);
}

/** Everything in this thread, yielding to the event loop as it goes (the memory engine; `cleanerThread: 'inline'`). */
class InlineWork implements CleanerWork {
  readonly thread = 'inline';
  private map = new OffsetMap();

  constructor(private readonly log: CleanableLog, private readonly view: CleanerView, private readonly aborted?: () => boolean) {}

  async buildMap(dirty: readonly Segment[], from: bigint, maxEntries: number): Promise<number | null> {
    let count = 0;
    while (count < dirty.length && (count === 0 || this.map.size < maxEntries)) {
      const segment = dirty[count]!;
      if (!(await this.forEachBatch([segment], segment, (bytes) => addBatchToMap(this.map, bytes, from, this.view.aborted)))) return null;
      count++;
      await yieldToEventLoop();
      if (this.aborted?.()) return null;
    }
    return count;
  }

  async cleanGroup(group: readonly Segment[], ctx: Omit<FilterContext, 'map'>, latestOffset: bigint): Promise<CleanedGroup | null> {
    const { store, config } = this.view;
    this.map.latestOffset = latestOffset;
    const filter: FilterContext = { ...ctx, map: this.map };
    const files = store.createCleanedSegment(group[0]!.baseOffset, group.at(-1)!.lastModifiedMs);
    let finished = false;
    try {
      const cleaned = new Segment(files, ctx.nowMs);
      let removed = 0;
      let horizon = Infinity;
      for (const old of group) {
        const completed = await this.forEachBatch(group, old, (bytes) => {
          const result = filterBatch(bytes, filter);
          removed += result.recordsRemoved;
          if (result.deleteHorizonMs !== null) horizon = Math.min(horizon, Number(result.deleteHorizonMs));
          if (result.bytes !== null) appendCleaned(cleaned, result.bytes, config.indexIntervalBytes);
        });
        if (!completed) return null;
      }
      cleaned.finalizeTimeIndex();
      await store.finishCleanedSegment(files, cleaned.offsetIndex.bytes(), cleaned.timeIndex.bytes());
      finished = true;
      return { cleaned, removed, horizon };
    } finally {
      if (!finished) store.discardCleanedSegment(files);
    }
  }

  swapped(): void {}

  release(): void {
    this.map = new OffsetMap();
  }

  /**
   * Calls `fn` with every whole batch of a sealed segment, in order, yielding to the event
   * loop every YIELD_AFTER_MS (a 100 MB `__consumer_offsets` segment would otherwise stall the
   * broker for a second). False when it stopped early: storage closing, or the segment left
   * the log (retention, deletion) while it yielded; `inUse` are the segments whose
   * removal abandons the work.
   */
  private async forEachBatch(inUse: readonly Segment[], segment: Segment, fn: (bytes: Buffer) => void): Promise<boolean> {
    const walker = new BatchWalker(segment.log, this.view.scratch);
    const size = segment.size;
    let position = 0;
    let sliceStart = performance.now();
    while (position < size) {
      if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
        if (this.aborted?.() || !stillPresent(this.log, inUse)) return false;
      }
      const at = walker.ensure(position, HEADER_PREFIX);
      if (at < 0) break;
      const batchSize = LOG_OVERHEAD + walker.view.readInt32BE(at + LENGTH_OFFSET);
      fn(segment.log.read(position, batchSize));
      position += batchSize;
    }
    return true;
  }
}

/** The map and the filtering in the worker thread, which reads and writes the files itself. */
class WorkerWork implements CleanerWork {
  readonly thread = 'worker';

  constructor(
    private readonly worker: CleanerThread,
    private readonly files: CleanerFileAccess,
    private readonly log: CleanableLog,
    private readonly view: CleanerView,
  ) {
    // Unlinking the replaced files (freeing their blocks) took most of a swap's time on the event loop.
    files.deferDeletes();
  }

  private refs(segments: readonly Segment[]): { path: string; size: number }[] {
    return segments.map((s) => ({ path: this.files.logPath(s.files), size: s.size }));
  }

  async buildMap(dirty: readonly Segment[], from: bigint, maxEntries: number): Promise<number | null> {
    const result = await this.settle(dirty, this.worker.map({ segments: this.refs(dirty), from, maxEntries, aborted: this.view.aborted }));
    return result === null ? null : result.segments;
  }

  async cleanGroup(group: readonly Segment[], ctx: Omit<FilterContext, 'map'>, latestOffset: bigint): Promise<CleanedGroup | null> {
    const baseOffset = group[0]!.baseOffset;
    const lastModifiedMs = group.at(-1)!.lastModifiedMs;
    let result: GroupResult | null;
    try {
      result = await this.settle(group, this.worker.group({
        segments: this.refs(group), baseOffset, stem: this.files.cleanedStem(baseOffset), lastModifiedMs, latestOffset,
        nowMs: ctx.nowMs, deleteRetentionMs: ctx.deleteRetentionMs, activeProducers: ctx.activeProducers, indexIntervalBytes: this.view.config.indexIntervalBytes,
      }));
    } catch (err) {
      // A worker that died leaves what it wrote.
      this.files.removeCleaned(baseOffset);
      throw err;
    }
    if (result === null || !stillPresent(this.log, group)) {
      this.files.removeCleaned(baseOffset);
      return null;
    }
    const files = this.files.openCleanedSegment(baseOffset, lastModifiedMs);
    try {
      if (files.log.size !== result.size) throw new Error(`the cleaned segment at ${baseOffset} has ${files.log.size} bytes, the worker wrote ${result.size}`);
      return { cleaned: restoreSegment(files, ctx.nowMs, result), removed: result.recordsRemoved, horizon: result.horizon };
    } catch (err) {
      this.view.store.discardCleanedSegment(files);
      throw err;
    }
  }

  swapped(group: readonly Segment[]): void {
    this.worker.unlink(this.files.deletedPaths(group.map((s) => s.files)));
  }

  release(): void {
    this.worker.release();
  }

  /**
   * The worker's answer, or null when the clean is abandoned: the storage is closing, or a
   * failure came from segments that left the log meanwhile (a file removed under the worker).
   */
  private async settle<T>(segments: readonly Segment[], answer: Promise<T | null>): Promise<T | null> {
    try {
      return await answer;
    } catch (err) {
      if (this.worker.aborted || !stillPresent(this.log, segments)) return null;
      throw err;
    }
  }
}

/** The main thread's Segment for a cleaned segment the worker wrote, from its bookkeeping (never appended to: it is never active). */
function restoreSegment(files: SegmentFiles, nowMs: number, r: GroupResult): Segment {
  const segment = new Segment(files, nowMs);
  const bytes = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  segment.offsetIndex = new OffsetIndex(bytes(r.offsetIndex));
  segment.timeIndex = new TimeIndex(bytes(r.timeIndex));
  segment.nextOffset = r.nextOffset;
  segment.maxTimestamp = r.maxTimestamp;
  segment.offsetOfMaxTimestamp = r.offsetOfMaxTimestamp;
  segment.firstBatchTimestamp = r.firstBatchTimestamp;
  return segment;
}

/**
 * Kafka's groupSegmentsBySize: consecutive segments whose total size fits segment.bytes,
 * whose indexes fit segment.index.bytes and whose offsets fit an int32 from the first base.
 */
function groupBySize(segments: readonly Segment[], config: LogConfig): Segment[][] {
  const groups: Segment[][] = [];
  let i = 0;
  while (i < segments.length) {
    const group = [segments[i]!];
    let bytes = segments[i]!.size;
    let indexBytes = segments[i]!.offsetIndex.bytes().length;
    let timeBytes = segments[i]!.timeIndex.bytes().length;
    i++;
    while (i < segments.length) {
      const next = segments[i]!;
      if (bytes + next.size > config.segmentBytes) break;
      if (indexBytes + next.offsetIndex.bytes().length > config.segmentIndexBytes) break;
      if (timeBytes + next.timeIndex.bytes().length > config.segmentIndexBytes) break;
      if (next.nextOffset - 1n - group[0]!.baseOffset > BigInt(INT32_MAX)) break;
      // A cleaned segment keeps its first segment's base offset and so its `.txnindex`:
      // a segment with aborted transactions of its own starts a new group.
      if (next.txnIndex.size > 0) break;
      group.push(next);
      bytes += next.size;
      indexBytes += next.offsetIndex.bytes().length;
      timeBytes += next.timeIndex.bytes().length;
      i++;
    }
    groups.push(group);
  }
  return groups;
}
