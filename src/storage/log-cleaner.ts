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
 * The work yields to the event loop between segments and groups; appends go on meanwhile
 * (only the active segment changes), reads see the old segments until the synchronous
 * swap. A swap whose segments changed meanwhile (retention, deletion, close) is dropped.
 */
import { HEADER_PREFIX, BatchWalker, Segment } from './segment.js';
import { decodeRecordBatch, LAST_OFFSET_DELTA_OFFSET, LENGTH_OFFSET, LOG_OVERHEAD, MAX_TIMESTAMP_OFFSET } from '../protocol/records/index.js';
import { filterBatch, OffsetMap, type FilterContext } from './cleaner-filter.js';
import type { PartitionStore } from './segment-store.js';
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
}

export interface CleanerOptions {
  /** Largest number of keys in one offset map (Kafka bounds it by log.cleaner.dedupe.buffer.size). */
  readonly maxMapEntries?: number;
  /** Stop between steps (storage closing). */
  readonly aborted?: () => boolean;
}

interface LogState {
  firstDirtyOffset: bigint;
  /** The earliest delete horizon among kept tombstones, ms; Infinity when none. */
  nextHorizonMs: number;
}

const DEFAULT_MAX_MAP_ENTRIES = 1_000_000;
/**
 * CPU time the cleaner may take before it yields to the event loop: commits wait behind it,
 * so this bounds the cleaner's share of their latency (a 256 KiB slice of __consumer_offsets
 * took 10-40 ms and set the commit p99).
 */
const YIELD_AFTER_MS = 2;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class LogCleaner {
  /** In memory: after a restart the whole log is dirty once (Kafka keeps cleaner-offset-checkpoint). */
  private readonly states = new WeakMap<CleanableLog, LogState>();

  constructor(private readonly options: CleanerOptions = {}) {}

  /** Cleans `log` when it is due; null when it was not (or is not compacted). */
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
    while (uncleanableIdx < active && segments[uncleanableIdx]!.largestTimestamp() <= nowMs - config.minCompactionLagMs) uncleanableIdx++;
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

    // The offset map of the dirty section, whole segments only.
    const map = new OffsetMap();
    const maxEntries = this.options.maxMapEntries ?? DEFAULT_MAX_MAP_ENTRIES;
    let endIdx = dirtyIdx;
    while (endIdx < uncleanableIdx && (endIdx === dirtyIdx || map.size < maxEntries)) {
      if (!(await this.addToMap(log, map, segments[endIdx]!, firstDirty, view.scratch))) return null;
      endIdx++;
      await yieldToEventLoop();
      if (this.options.aborted?.()) return null;
    }
    const endOffset = segments[endIdx]!.baseOffset;
    map.latestOffset = endOffset - 1n;

    const ctx: FilterContext = { map, nowMs, deleteRetentionMs: config.deleteRetentionMs, activeProducers: view.activeProducers };
    let removed = 0;
    let horizon = Infinity;
    for (const group of groupBySize(segments.slice(0, endIdx), config)) {
      const outcome = await this.cleanGroup(log, view, group, ctx, nowMs);
      if (!outcome) return null;
      removed += outcome.removed;
      horizon = Math.min(horizon, outcome.horizon);
    }
    state.firstDirtyOffset = endOffset;
    state.nextHorizonMs = horizon;
    const after = log.cleanerView()?.segments ?? [];
    return {
      segmentsBefore: segments.length, segmentsAfter: after.length,
      bytesBefore: segments.reduce((n, s) => n + s.size, 0), bytesAfter: after.reduce((n, s) => n + s.size, 0),
      recordsRemoved: removed, firstDirtyOffset: endOffset, durationMs: Math.round(performance.now() - started),
    };
  }

  private addToMap(log: CleanableLog, map: OffsetMap, segment: Segment, from: bigint, scratch: Buffer): Promise<boolean> {
    return this.forEachBatch(log, [segment], segment, scratch, (bytes) => {
      const { header, records } = decodeRecordBatch(bytes);
      if (header.isControl || header.lastOffset < from) return;
      for (const r of records) if (r.key !== null && r.offset >= from) map.put(r.key, r.offset);
    });
  }

  /** Writes one group's filtered batches into a new segment and swaps it in; null when abandoned. */
  private async cleanGroup(
    log: CleanableLog, view: CleanerView, group: readonly Segment[], ctx: FilterContext, nowMs: number,
  ): Promise<{ removed: number; horizon: number } | null> {
    const files = view.store.createCleanedSegment(group[0]!.baseOffset, group.at(-1)!.lastModifiedMs);
    let swapped = false;
    try {
      const cleaned = new Segment(files, nowMs);
      let removed = 0;
      let horizon = Infinity;
      for (const old of group) {
        const completed = await this.forEachBatch(log, group, old, view.scratch, (bytes) => {
          const result = filterBatch(bytes, ctx);
          removed += result.recordsRemoved;
          if (result.deleteHorizonMs !== null) horizon = Math.min(horizon, Number(result.deleteHorizonMs));
          if (result.bytes === null) return;
          const out = result.bytes;
          const position = cleaned.size;
          cleaned.log.append(out);
          const lastOffset = out.readBigInt64BE(0) + BigInt(out.readInt32BE(LAST_OFFSET_DELTA_OFFSET));
          cleaned.onAppended(position, out.length, lastOffset, out.readBigInt64BE(MAX_TIMESTAMP_OFFSET), view.config.indexIntervalBytes);
        });
        if (!completed) return null;
      }
      cleaned.finalizeTimeIndex();
      await view.store.finishCleanedSegment(files, cleaned.offsetIndex.bytes(), cleaned.timeIndex.bytes());
      if (this.options.aborted?.()) return null;
      swapped = log.replaceSegments(group, cleaned);
      if (!swapped) return null;
      await yieldToEventLoop();
      return { removed, horizon };
    } finally {
      if (!swapped) view.store.discardCleanedSegment(files);
    }
  }

  /**
   * Calls `fn` with every whole batch of a sealed segment, in order, yielding to the event
   * loop every YIELD_AFTER_MS (a 100 MB `__consumer_offsets` segment would otherwise stall the
   * broker for a second). False when it stopped early: storage closing, or the segment left
   * the log (retention, deletion) while it yielded; `inUse` are the segments whose
   * removal abandons the work.
   */
  private async forEachBatch(
    log: CleanableLog, inUse: readonly Segment[], segment: Segment, scratch: Buffer, fn: (bytes: Buffer) => void,
  ): Promise<boolean> {
    const walker = new BatchWalker(segment.log, scratch);
    const size = segment.size;
    let position = 0;
    let sliceStart = performance.now();
    while (position < size) {
      if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
        if (this.options.aborted?.() || !stillPresent(log, inUse)) return false;
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

/** Whether every segment of `group` is still in the log (nothing replaced or removed them meanwhile). */
function stillPresent(log: CleanableLog, group: readonly Segment[]): boolean {
  const segments = log.cleanerView()?.segments;
  return segments !== undefined && group.every((s) => segments.includes(s));
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
