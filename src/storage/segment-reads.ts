/**
 * Reads within one segment by walking its batch headers (through a shared scratch buffer,
 * from the position the sparse offset index gives): the whole batches a fetch returns, and
 * the first record matching a timestamp. The partition log picks the segment.
 */
import {
  decodeRecordBatch,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAX_TIMESTAMP_OFFSET,
  readBatchHeader,
  TimestampType,
} from '../protocol/records/index.js';
import { BatchWalker, HEADER_PREFIX, type Segment } from './segment.js';
import type { OffsetAndTimestamp, ReadOptions } from './types.js';

const TWO_32 = 4294967296;

/** An int64 offset as a number, without allocating a bigint (exact below 2^53, far beyond any real offset). */
function readOffset(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * TWO_32 + buf.readUInt32BE(at + 4);
}

/** The batches a read_committed consumer must not see yet start at this position of `segment` (its size when none). */
function positionOf(segment: Segment, scratch: Buffer, offset: bigint): number {
  if (segment.nextOffset <= offset) return segment.size;
  const walker = new BatchWalker(segment.log, scratch);
  let position = segment.offsetIndex.lookup(segment.relative(offset) - 1);
  while (position < segment.size) {
    const at = walker.ensure(position, LAST_OFFSET_DELTA_OFFSET + 4);
    if (at < 0) break;
    const v = walker.view;
    if (readOffset(v, at) + v.readInt32BE(at + LAST_OFFSET_DELTA_OFFSET) >= offset) return position;
    position += LOG_OVERHEAD + v.readInt32BE(at + LENGTH_OFFSET);
  }
  return segment.size;
}

/**
 * Whole batches from the one holding `target`, within `maxBytes`, none from the one
 * holding `maxOffset` on; null when the segment ends before `target`.
 */
export function readBatches(segment: Segment, scratch: Buffer, target: number, maxBytes: number, options: ReadOptions, maxOffset: bigint): { bytes: Buffer; start: number } | null {
  if (Number(segment.nextOffset) <= target) return null;
  const walker = new BatchWalker(segment.log, scratch);
  const size = segment.size;
  let position = segment.offsetIndex.lookup(target - Number(segment.baseOffset));
  let start = -1;
  let firstSize = 0;
  while (position < size) {
    const at = walker.ensure(position, LAST_OFFSET_DELTA_OFFSET + 4);
    if (at < 0) break;
    const v = walker.view;
    const batchSize = LOG_OVERHEAD + v.readInt32BE(at + LENGTH_OFFSET);
    if (readOffset(v, at) + v.readInt32BE(at + LAST_OFFSET_DELTA_OFFSET) >= target) {
      start = position;
      firstSize = batchSize;
      break;
    }
    position += batchSize;
  }
  if (start < 0) return null;
  // Kafka's maxPosition: it bounds even the one batch minOneBatch would return.
  const maxPosition = maxOffset < segment.nextOffset ? positionOf(segment, scratch, maxOffset) : size;
  if (maxPosition <= start) return { bytes: Buffer.alloc(0), start };
  const limit = Math.min(start + Math.max(0, maxBytes), maxPosition);
  let end = maxPosition;
  if (limit < maxPosition) {
    // Jump close to the limit through the index, then walk the last few headers.
    end = Math.max(start, segment.offsetIndex.floorPosition(limit));
    for (;;) {
      const at = walker.ensure(end, LOG_OVERHEAD);
      if (at < 0) break;
      const batchSize = LOG_OVERHEAD + walker.view.readInt32BE(at + LENGTH_OFFSET);
      if (end + batchSize > limit) break;
      end += batchSize;
    }
  }
  if (end === start) {
    if (!options.minOneBatch || start + firstSize > maxPosition) return { bytes: Buffer.alloc(0), start };
    end = start + firstSize;
  }
  return { bytes: segment.log.read(start, end - start, options.allocate), start };
}

/**
 * Walks batch headers from `position` to the first batch whose max timestamp `matches`,
 * then (as Kafka, which reads that batch) returns its first record at or after the log
 * start whose timestamp `matches`; `undecodable` hears of a batch that cannot be decoded. LogAppendTime batches need no decoding: every record
 * carries the batch time.
 */
export function findTimestamp(
  segment: Segment, scratch: Buffer, position: number, logStartOffset: bigint, matches: (ts: bigint) => boolean,
  undecodable: (position: number, err: unknown) => void,
): OffsetAndTimestamp | null {
  const walker = new BatchWalker(segment.log, scratch);
  while (position < segment.size) {
    const at = walker.ensure(position, HEADER_PREFIX);
    if (at < 0) return null;
    const batchSize = LOG_OVERHEAD + walker.view.readInt32BE(at + LENGTH_OFFSET);
    const maxTs = walker.view.readBigInt64BE(at + MAX_TIMESTAMP_OFFSET);
    if (maxTs >= 0n && matches(maxTs)) {
      const bytes = segment.log.read(position, batchSize);
      const header = readBatchHeader(bytes);
      if (header.lastOffset >= logStartOffset) {
        if (header.timestampType === TimestampType.LogAppendTime) return { offset: header.baseOffset, timestamp: header.maxTimestamp };
        try {
          for (const record of decodeRecordBatch(bytes).records) {
            if (record.offset >= logStartOffset && matches(record.timestamp)) return { offset: record.offset, timestamp: record.timestamp };
          }
        } catch (err) {
          undecodable(position, err);
        }
      }
    }
    position += batchSize;
  }
  return null;
}
