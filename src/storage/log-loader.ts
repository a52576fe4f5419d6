/**
 * Opening a partition (Kafka's LogLoader): segments are trusted from their stored indexes
 * when the last shutdown was clean or they lie below the recovery point; the others are
 * recovered batch by batch with CRC checks and truncated at the first bad or partial batch,
 * and every segment after a truncated one is dropped, as Kafka does. Producer state comes
 * from the newest usable snapshot at or below the first recovered segment plus a replay of
 * the batch headers after it (and of transaction markers, whose records say COMMIT or
 * ABORT); the replay also rebuilds the aborted-transaction index of every segment it
 * covers, which is how recovered segments get theirs back (Kafka's LogSegment.recover with
 * a ProducerStateManager loaded up to the segment).
 */
import { CorruptRecordError, HEADER_SIZE, readBatchHeader } from '../protocol/records/index.js';
import type { Logger } from '../util/log.js';
import { lastSequence, ProducerStateManager } from './producer-state.js';
import { readTxnMarker } from './txn-index.js';
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
  const logEndOffset = segments.at(-1)!.nextOffset;
  let logStartOffset = segments[0]!.baseOffset;
  if (state.logStartOffset > logStartOffset) logStartOffset = state.logStartOffset;
  if (logStartOffset > logEndOffset) logStartOffset = logEndOffset;
  // The replay must cover every recovered segment from its start: their transaction indexes are rebuilt by it.
  const replayLimit = recovered.length > 0 ? recovered[0]!.baseOffset : logEndOffset;
  const { producers, snapshotOffsets } = loadProducerState(store, state.snapshots, segments, logEndOffset, replayLimit, ctx);
  // Recovered segments that are no longer active get their rebuilt indexes persisted and
  // synced, so the next unclean start can skip them.
  for (const segment of recovered) {
    const next = segments[segments.indexOf(segment) + 1];
    if (!next) continue;
    segment.finalizeTimeIndex();
    store.writeTxnIndex(segment.files, segment.txnIndex.bytes());
    store.sealSegment(segment.files, segment.offsetIndex.bytes(), segment.timeIndex.bytes(), next.baseOffset);
  }
  return { segments, logStartOffset, producers, snapshotOffsets };
}

function loadProducerState(
  store: PartitionStore, snapshots: readonly ProducerSnapshotFile[], segments: Segment[], logEndOffset: bigint, replayLimit: bigint, ctx: LoadContext,
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
    // Newer than the first recovered segment: kept, but an older one is replayed from.
    if (!producers && snapshot.offset > replayLimit) {
      kept.unshift(snapshot.offset);
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
  replay(producers, segments, from, ctx);
  producers.expire(ctx.nowMs, ctx.producerIdExpirationMs);
  return { producers, snapshotOffsets: kept };
}

/**
 * Rebuilds producer state, and the aborted-transaction indexes, from the batches at
 * offsets >= `from` (Kafka replays with origin REPLICATION: no checks).
 */
function replay(producers: ProducerStateManager, segments: Segment[], from: bigint, ctx: LoadContext): void {
  const scratch = ctx.scratch;
  for (const segment of segments) {
    if (segment.nextOffset <= from) continue;
    segment.txnIndex.truncateTo(from);
    const walker = new BatchWalker(segment.log, scratch);
    let position = segment.baseOffset >= from ? 0 : segment.offsetIndex.lookup(segment.relative(from));
    while (position < segment.size) {
      const at = walker.ensure(position, HEADER_SIZE);
      if (at < 0) break;
      const h = readBatchHeader(walker.view, at);
      if (h.baseOffset >= from && h.producerId >= 0n && h.isControl) {
        const full = walker.ensure(position, h.sizeInBytes);
        let marker = null;
        try {
          marker = full < 0 ? null : readTxnMarker(walker.view.subarray(full, full + h.sizeInBytes));
        } catch (err) {
          if (!(err instanceof CorruptRecordError)) throw err;
          ctx.log?.warn('ignoring a control batch that is no transaction marker', { partition: ctx.name, offset: String(h.baseOffset) });
        }
        if (marker) {
          const completed = producers.completeTxn(h.producerId, h.producerEpoch, marker.isAbort, marker.coordinatorEpoch, h.baseOffset, h.maxTimestamp);
          if (completed?.isAborted) segment.txnIndex.append(completed);
        } else {
          producers.update(h.producerId, h.producerEpoch, null, h.maxTimestamp);
        }
      } else if (h.baseOffset >= from && h.producerId >= 0n) {
        const batch = {
          firstSeq: h.baseSequence,
          lastSeq: lastSequence(h.baseSequence, h.lastOffsetDelta),
          firstOffset: h.baseOffset,
          lastOffset: h.lastOffset,
          timestamp: h.maxTimestamp,
        };
        producers.update(h.producerId, h.producerEpoch, batch, h.maxTimestamp, h.isTransactional);
      }
      position += h.sizeInBytes;
    }
  }
}
