/**
 * Walking the records of an uncompressed v2 batch without building them: each record's
 * offset delta and where its key and value lie in the batch's buffer (no copies, no
 * objects, not even views). For bulk readers that look at every key once and keep almost
 * nothing, such as the group coordinator replaying `__consumer_offsets` at start-up, where
 * decodeRecordBatch's per-record objects, copies and CRC check dominated the load time.
 * No CRC check here: the caller reads batches the log has already validated.
 */
import { Reader } from '../primitives/reader.js';
import { CompressionType } from './compression.js';
import { RECORDS_OFFSET, type RecordBatchHeader } from './record-batch.js';

/** One record: its key is `batch[keyStart, keyStart + keyLength)`, length -1 for null; the same for the value. */
export type RecordSpanVisitor = (offsetDelta: number, batch: Buffer, keyStart: number, keyLength: number, valueStart: number, valueLength: number) => void;

/** Calls `visit` for every record of `batch` (whose header is `header`); false when the batch is compressed (not walked). */
export function forEachRecordSpan(batch: Buffer, header: RecordBatchHeader, visit: RecordSpanVisitor): boolean {
  if (header.compression !== CompressionType.None) return false;
  const r = new Reader(batch, RECORDS_OFFSET, header.sizeInBytes);
  for (let i = 0; i < header.recordCount; i++) {
    const length = r.readVarint();
    if (length < 0 || length > r.remaining) r.fail(`record of ${length} bytes, ${r.remaining} remain`);
    const end = r.offset + length;
    r.readInt8();
    r.readVarlongNumber();
    const offsetDelta = r.readVarint();
    const keyLength = r.readVarint();
    const keyStart = r.offset;
    if (keyLength > end - keyStart) r.fail(`key of ${keyLength} bytes in a record of ${length}`);
    if (keyLength > 0) r.offset += keyLength;
    const valueLength = r.readVarint();
    const valueStart = r.offset;
    if (valueLength > end - valueStart) r.fail(`value of ${valueLength} bytes in a record of ${length}`);
    r.offset = end; // headers: not needed by the callers
    visit(offsetDelta, batch, keyStart, keyLength < 0 ? -1 : keyLength, valueStart, valueLength < 0 ? -1 : valueLength);
  }
  return true;
}

/**
 * Calls `visit` with the timestamp delta of each of the `count` records in
 * `section[start, end)`, an uncompressed (or decompressed) records section: what a broker
 * needs to compute a produced batch's true max timestamp, without building records.
 * Throws ProtocolDecodeError when the records do not fill the section exactly.
 */
export function forEachTimestampDelta(section: Buffer, start: number, end: number, count: number, visit: (timestampDelta: number) => void): void {
  const r = new Reader(section, start, end);
  for (let i = 0; i < count; i++) {
    const length = r.readVarint();
    if (length < 0 || length > r.remaining) r.fail(`record of ${length} bytes, ${r.remaining} remain`);
    const recordEnd = r.offset + length;
    r.readInt8();
    const delta = r.readVarlongNumber();
    if (r.offset > recordEnd) r.fail(`record of ${length} bytes is shorter than its fields`);
    r.offset = recordEnd;
    visit(delta);
  }
  if (r.remaining !== 0) r.fail(`${r.remaining} bytes left after the batch's ${count} records`);
}
