/**
 * A fetched record's parts as spans of its batch, and the helpers that read them in place:
 * the record types poll() gives out, the one reading cursor (decoding is synchronous), the
 * bounds-checked varint readers, and header decoding. Shared by record-decoding.ts (which
 * walks batches) and record-view.ts (which reads a record's fields when asked).
 */
import { ProtocolDecodeError } from '../../protocol/primitives/decode-error.js';

/** A record header; its value is a Buffer unless the consumer has a `headerValue` deserializer. */
export interface ConsumerRecordHeader<H = Buffer> {
  readonly key: string;
  readonly value: H | null;
}

/** A record as poll() gives it out; K, V and H are what the consumer's deserializers return (Buffer without them). */
export interface ConsumerRecord<K = Buffer, V = Buffer, H = Buffer> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly key: K | null;
  readonly value: V | null;
  readonly headers: ConsumerRecordHeader<H>[];
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  /** The batch's partition leader epoch, -1 when unknown. */
  readonly leaderEpoch: number;
}

/** The read position of the record decoding helpers below (one cursor: decoding is synchronous). */
export const cursor = { at: 0 };

/** Malformed bytes inside a record (as Reader reports them; batch-level problems are CorruptRecordError). */
export function corrupt(message: string, position: number): ProtocolDecodeError {
  return new ProtocolDecodeError(message, position);
}

/** Zig-zag varint (a Java int) at cursor.at, not reading at or past `end`. */
export function readVarint(buf: Buffer, end: number): number {
  let at = cursor.at;
  let raw = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= end) throw corrupt('truncated varint', at);
    const byte = buf[at++]!;
    raw |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      if (shift === 28 && byte > 0x0f) break;
      cursor.at = at;
      return (raw >>> 1) ^ -(raw & 1);
    }
  }
  throw corrupt('varint longer than 32 bits', at);
}

/** Zig-zag varlong as a number (timestamp deltas: small in practice; beyond 2^53 precision is lost, as Reader.readVarlongNumber). */
export function readVarlongNumber(buf: Buffer, end: number): number {
  let at = cursor.at;
  let raw = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (at >= end) throw corrupt('truncated varlong', at);
    const byte = buf[at++]!;
    raw += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      cursor.at = at;
      return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
    }
    scale *= 128;
  }
  throw corrupt('varlong longer than 10 bytes', at);
}

/** A varint length then that many bytes, skipped: the length, -1 for null. */
export function spanLength(buf: Buffer, end: number): number {
  const length = readVarint(buf, end);
  if (length < 0) {
    if (length !== -1) throw corrupt(`negative length ${length}`, cursor.at);
    return -1;
  }
  const to = cursor.at + length;
  if (to > end) throw corrupt(`field of ${length} bytes exceeds its record`, cursor.at);
  cursor.at = to;
  return length;
}

export function view(buf: Buffer, start: number, length: number): Buffer {
  // Buffer.from(arrayBuffer, ...) makes the same view as subarray() but skips its species look-up.
  return Buffer.from(buf.buffer, buf.byteOffset + start, length);
}

/**
 * A record as its spans in the fetched (or decompressed) batch: what a reader that copies
 * bytes straight out (`brook consume`) needs, without the per-record objects, views and
 * bigints of a ConsumerRecord. One object is reused for every record: it is valid only
 * during the visitor's call. Deserializers do not apply: keys and values are the raw bytes.
 */
export interface RawRecord {
  readonly topic: string;
  readonly partition: number;
  /** The offset as a number (exact: this consumer refuses offsets beyond 2^53). */
  readonly offset: number;
  /** The key is buffer[keyStart, keyStart + keyLength); keyLength -1 for a null key. The same for the value. */
  readonly buffer: Buffer;
  readonly keyStart: number;
  readonly keyLength: number;
  readonly valueStart: number;
  readonly valueLength: number;
  /** Where the headers' varint-prefixed keys and values start, and how many there are (recordHeaders() decodes them). */
  readonly headersStart: number;
  readonly headerCount: number;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  /** The batch's partition leader epoch, -1 when unknown. */
  readonly leaderEpoch: number;
}

/** Returns false to stop after this record (the poll ends with it), anything else to go on. */
export type RawRecordVisitor = (record: RawRecord) => boolean | void;

export type MutableRawRecord = { -readonly [K in keyof RawRecord]: RawRecord[K] };

/** A raw record's headers, their values as views of its batch. */
export function recordHeaders(raw: RawRecord): ConsumerRecordHeader[] {
  const headers: ConsumerRecordHeader[] = [];
  const buf = raw.buffer;
  cursor.at = raw.headersStart;
  for (let i = 0; i < raw.headerCount; i++) {
    // Checked when the record was read: every length fits.
    const keyLength = spanLength(buf, buf.length);
    const key = buf.toString('utf8', cursor.at - keyLength, cursor.at);
    const valueLength = spanLength(buf, buf.length);
    headers.push({ key, value: valueLength < 0 ? null : view(buf, cursor.at - valueLength, valueLength) });
  }
  return headers;
}
