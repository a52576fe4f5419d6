/**
 * Opening a partition (Kafka's LogLoader): segments are trusted from their stored indexes
 * when the last shutdown was clean or they lie below the recovery point; the others are
 * recovered batch by batch with CRC checks and truncated at the first bad or partial batch,
 * and every segment after a truncated one is dropped, as Kafka does. Producer state comes
 * from the newest usable snapshot plus a header-only replay of the log after it.
 */
import { HEADER_SIZE, readBatchHeader } from '../protocol/records/index.js';
import type { Logger } from '../util/log.js';
import { lastSequence, ProducerStateManager } from './producer-state.js';
import { BatchWalker, Segment } from './segment.js';
import type { PartitionStore, ProducerSnapshotFile } from './segment-store.js';
import type { LogConfig } from './topic-configs.js';

export interface LoadContext {
  readonly name: string;
  readonly config: LogConfig;
  readonly nowMs: number;
  readonly producerIdExpirationMs: number;
  /** A large reusable buffer for recovery reads. */
  readonly scratch: Buffer;
  readonly log?: Logger;
}

export interface LoadedLog {
  readonly segments: Segment[];
  readonly logStartOffset: bigint;
  readonly producers: ProducerStateManager;
  /** Offsets of the producer snapshots kept on disk, ascending. */
  readonly snapshotOffsets: bigint[];
}

/** Opens the partition's store (or, `recovering`, reopens it after a lost fsync) and loads its log. */
export function loadLog(store: PartitionStore, ctx: LoadContext, recovering = false): LoadedLog {
  const state = recovering ? store.recover() : store.open();
  const segments: Segment[] = [];
  const recovered: Segment[] = [];
  let dropRest = false;
  state.segments.forEach((files, i) => {
    const prev = segments.at(-1);
    if (dropRest || (prev && files.baseOffset < prev.nextOffset)) {
      ctx.log?.warn('deleting segment after a truncated or overlapping one', { partition: ctx.name, baseOffset: files.baseOffset });
      store.deleteSegment(files);
      dropRest = true;
      return;
    }
    const segment = new Segment(files, ctx.nowMs);
    const isLast = i === state.segments.length - 1;
    const trusted = state.cleanShutdown || (!isLast && files.baseOffset < state.recoveryPoint);
    if (!trusted || !segment.loadTrusted(ctx.scratch)) {
      const cut = segment.recover(ctx.scratch, ctx.config.indexIntervalBytes);
      if (cut > 0) {
        ctx.log?.warn('truncated a torn or corrupt log tail', { partition: ctx.name, baseOffset: files.baseOffset, bytes: cut });
        dropRest = true;
      }
      recovered.push(segment);
    }
    segments.push(segment);
  });
  if (segments.length === 0) {
    const base = state.logStartOffset > 0n ? state.logStartOffset : 0n;
    segments.push(new Segment(store.createSegment(base), ctx.nowMs));
  }
  // Recovered segments that are no longer active get their rebuilt indexes persisted and
  // synced, so the next unclean start can skip them.
  for (const segment of recovered) {
    const next = segments[segments.indexOf(segment) + 1];
    if (!next) continue;
    segment.finalizeTimeIndex();
    store.sealSegment(segment.files, segment.offsetIndex.bytes(), segment.timeIndex.bytes(), next.baseOffset);
  }
  const logEndOffset = segments.at(-1)!.nextOffset;
  let logStartOffset = segments[0]!.baseOffset;
  if (state.logStartOffset > logStartOffset) logStartOffset = state.logStartOffset;
  if (logStartOffset > logEndOffset) logStartOffset = logEndOffset;
  const { producers, snapshotOffsets } = loadProducerState(store, state.snapshots, segments, logEndOffset, ctx);
  return { segments, logStartOffset, producers, snapshotOffsets };
}

function loadProducerState(
  store: PartitionStore, snapshots: readonly ProducerSnapshotFile[], segments: Segment[], logEndOffset: bigint, ctx: LoadContext,
): { producers: ProducerStateManager; snapshotOffsets: bigint[] } {
  const kept: bigint[] = [];
  let producers: ProducerStateManager | null = null;
  let from = segments[0]!.baseOffset;
  for (let i = snapshots.length - 1; i >= 0; i--) {
    const snapshot = snapshots[i]!;
    // A snapshot past the log end describes data lost in recovery.
    if (snapshot.offset > logEndOffset) {
      store.deleteProducerSnapshot(snapshot.offset);
      continue;
    }
    if (!producers) {
      const data = snapshot.load();
      producers = data ? ProducerStateManager.fromSnapshot(data) : null;
      if (!producers) {
        ctx.log?.warn('ignoring a corrupt producer snapshot', { partition: ctx.name, offset: snapshot.offset });
        store.deleteProducerSnapshot(snapshot.offset);
        continue;
      }
      if (snapshot.offset > from) from = snapshot.offset;
    }
    kept.unshift(snapshot.offset);
  }
  producers ??= new ProducerStateManager();
  replay(producers, segments, from, ctx.scratch);
  producers.expire(ctx.nowMs, ctx.producerIdExpirationMs);
  return { producers, snapshotOffsets: kept };
}

/** Rebuilds producer state from batch headers at offsets >= `from` (Kafka replays with origin REPLICATION: no checks). */
function replay(producers: ProducerStateManager, segments: Segment[], from: bigint, scratch: Buffer): void {
  for (const segment of segments) {
    if (segment.nextOffset <= from) continue;
    const walker = new BatchWalker(segment.log, scratch);
    let position = segment.baseOffset >= from ? 0 : segment.offsetIndex.lookup(segment.relative(from));
    while (position < segment.size) {
      const at = walker.ensure(position, HEADER_SIZE);
      if (at < 0) break;
      const h = readBatchHeader(walker.view, at);
      if (h.baseOffset >= from && h.producerId >= 0n) {
        const batch = h.isControl ? null : {
          firstSeq: h.baseSequence,
          lastSeq: lastSequence(h.baseSequence, h.lastOffsetDelta),
          firstOffset: h.baseOffset,
          lastOffset: h.lastOffset,
          timestamp: h.maxTimestamp,
        };
        producers.update(h.producerId, h.producerEpoch, batch, h.maxTimestamp);
      }
      position += h.sizeInBytes;
    }
  }
}
