import type { Reader } from '../primitives/reader.js';
import type { Writer } from '../primitives/writer.js';

/*
 * One record inside a v2 batch:
 *
 *   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
 *   keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
 *   headerCount varint | headers: keyLength varint, key (UTF-8), valueLength varint (-1 = null), value
 *
 * Varints are zig-zag encoded. `length` counts the bytes after itself.
 */

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface BatchRecord {
  offset: bigint;
  timestamp: bigint;
  /** A view into the batch (or into the decompressed records) unless null. */
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export interface RecordHeaderInput {
  key: string;
  value?: Uint8Array | null;
}

export interface RecordInput {
  key?: Uint8Array | null;
  value?: Uint8Array | null;
  headers?: readonly RecordHeaderInput[];
  /** Milliseconds since the epoch; defaults to the batch's base timestamp, else now. */
  timestamp?: bigint | number;
  /** Defaults to the record's index in the batch. */
  offsetDelta?: number;
}

/**
 * The smallest record on the wire: a one-byte length and six one-byte fields (attributes,
 * timestamp delta, offset delta, null key, null value, no headers). A record count above
 * bytes / MIN_RECORD_SIZE cannot be honest.
 */
export const MIN_RECORD_SIZE = 7;

function sizeOfUnsignedVarint(value: number): number {
  let size = 1;
  for (let v = value >>> 0; v > 0x7f; v >>>= 7) size++;
  return size;
}

export function sizeOfVarint(value: number): number {
  return sizeOfUnsignedVarint((value << 1) ^ (value >> 31));
}

/** Exact for |value| < 2^53, which is what writeVarlongNumber accepts. */
function sizeOfVarlongNumber(value: number): number {
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  let size = 1;
  while (zigzag >= 0x80) {
    zigzag = Math.floor(zigzag / 0x80);
    size++;
  }
  return size;
}

function sizeOfVarlong(value: bigint): number {
  let zigzag = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
  let size = 1;
  while (zigzag > 0x7fn) {
    zigzag >>= 7n;
    size++;
  }
  return size;
}

function sizeOfNullableBytes(bytes: Uint8Array | null): number {
  return bytes === null ? 1 : sizeOfVarint(bytes.length) + bytes.length;
}

function writeNullableBytes(w: Writer, bytes: Uint8Array | null): void {
  if (bytes === null) {
    w.writeVarint(-1);
    return;
  }
  w.writeVarint(bytes.length);
  w.writeRaw(bytes);
}

/**
 * Appends one record. The body's size must precede it, so it is computed first from the
 * same pieces that are then written (header keys are UTF-8 encoded once, for both).
 */
export function writeRecord(w: Writer, offsetDelta: number, timestampDelta: bigint, record: RecordInput): void {
  const key = record.key ?? null;
  const value = record.value ?? null;
  const headers = record.headers ?? [];
  const deltaNumber = Number(timestampDelta);
  const deltaIsSafe = Number.isSafeInteger(deltaNumber);

  let bodySize =
    1 +
    (deltaIsSafe ? sizeOfVarlongNumber(deltaNumber) : sizeOfVarlong(timestampDelta)) +
    sizeOfVarint(offsetDelta) +
    sizeOfNullableBytes(key) +
    sizeOfNullableBytes(value) +
    sizeOfVarint(headers.length);
  const headerKeys: Buffer[] = [];
  for (const header of headers) {
    const headerKey = Buffer.from(header.key, 'utf8');
    headerKeys.push(headerKey);
    bodySize += sizeOfVarint(headerKey.length) + headerKey.length + sizeOfNullableBytes(header.value ?? null);
  }

  w.writeVarint(bodySize);
  w.writeInt8(0); // record attributes: unused by every Kafka version so far
  if (deltaIsSafe) w.writeVarlongNumber(deltaNumber);
  else w.writeVarlong(timestampDelta);
  w.writeVarint(offsetDelta);
  writeNullableBytes(w, key);
  writeNullableBytes(w, value);
  w.writeVarint(headers.length);
  for (let i = 0; i < headers.length; i++) {
    writeNullableBytes(w, headerKeys[i]!);
    writeNullableBytes(w, headers[i]!.value ?? null);
  }
}

function readNullableBytes(r: Reader, what: string): Buffer | null {
  const length = r.readVarint();
  if (length === -1) return null;
  if (length < -1) r.fail(`invalid ${what} length ${length}`);
  return r.readRaw(length);
}

/**
 * Reads one record. Keys and values are views of the reader's buffer; header keys are
 * decoded strings, counted in `r.allocated`. `logAppendTime` replaces every record's
 * timestamp when the batch uses LogAppendTime.
 */
export function readRecord(r: Reader, baseOffset: bigint, baseTimestamp: bigint, logAppendTime: bigint | null): BatchRecord {
  const length = r.readVarint();
  if (length < 0 || length > r.remaining) r.fail(`record of ${length} bytes, ${r.remaining} remain`);
  const start = r.offset;
  const end = start + length;
  r.readInt8();
  const timestampDelta = r.readVarlong();
  const offsetDelta = r.readVarint();
  const key = readNullableBytes(r, 'key');
  const value = readNullableBytes(r, 'value');

  const headerCount = r.readVarint();
  // Each header takes at least two bytes (two one-byte lengths).
  if (headerCount < 0 || headerCount * 2 > end - r.offset) r.fail(`invalid header count ${headerCount}`);
  r.allocated += headerCount;
  const headers: RecordHeader[] = [];
  for (let i = 0; i < headerCount; i++) {
    const keyLength = r.readVarint();
    if (keyLength < 0) r.fail(`invalid header key length ${keyLength}`);
    const headerKey = r.readRaw(keyLength);
    r.allocated += keyLength;
    headers.push({ key: headerKey.toString('utf8'), value: readNullableBytes(r, 'header value') });
  }

  if (r.offset !== end) r.fail(`record declared ${length} bytes but its fields took ${r.offset - start}`);
  return {
    offset: baseOffset + BigInt(offsetDelta),
    timestamp: logAppendTime ?? baseTimestamp + timestampDelta,
    key,
    value,
    headers,
  };
}
