/**
 * Walking the records of an uncompressed v2 batch without building them: each record's
 * offset delta, key and value as views of the batch's buffer (no copies, no header
 * objects). For bulk readers that decode every key at once and keep nothing of the
 * buffer, such as the group coordinator replaying `__consumer_offsets` at start-up, where
 * decodeRecordBatch's per-record objects, copies and CRC check dominated the load time.
 * No CRC check here: the caller reads batches the log has already validated.
 */
import { Reader } from '../primitives/reader.js';
import { CompressionType } from './compression.js';
import { RECORDS_OFFSET, type RecordBatchHeader } from './record-batch.js';

export type RecordViewVisitor = (offsetDelta: number, key: Buffer | null, value: Buffer | null) => void;

/** Calls `visit` for every record of `batch` (whose header is `header`); false when the batch is compressed (not walked). */
export function forEachRecordView(batch: Buffer, header: RecordBatchHeader, visit: RecordViewVisitor): boolean {
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
    const key = keyLength < 0 ? null : r.readRaw(keyLength);
    const valueLength = r.readVarint();
    const value = valueLength < 0 ? null : r.readRaw(valueLength);
    r.offset = end; // headers: not needed by the callers
    visit(offsetDelta, key, value);
  }
  return true;
}
