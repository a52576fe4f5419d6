/**
 * Writes v2 records straight into a batch buffer: sizes computed from byte lengths
 * (strings are measured, never copied into temporary Buffers), then each field written
 * in place. Layout: see src/protocol/records/record.ts.
 */

export type Bytes = Buffer | string | null;

/**
 * Record headers as an object (`{ name: value }`) or a list (repeated names allowed); H is
 * what the producer's `headerValue` serializer takes (Buffer or string without one).
 */
export type HeadersInput<H = Buffer | string> = Readonly<Record<string, H | null | undefined>> | ReadonlyArray<{ readonly key: string; readonly value: H | null }>;

export function byteLength(b: Bytes): number {
  if (b === null) return -1;
  return typeof b === 'string' ? utf8Length(b) : b.length;
}

/**
 * Strings up to this length are measured and written in JS; longer ones by Buffer's native
 * code, whose call costs more than copying a few bytes in JS but less than copying many
 * (measured: the crossover is around 24 ASCII characters).
 */
const SHORT_STRING = 24;

function utf8Length(s: string): number {
  if (s.length <= SHORT_STRING) {
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8');
    return s.length;
  }
  return Buffer.byteLength(s, 'utf8');
}

/** Buffer's own utf8Write (what buf.write(s, 'utf8') calls after checking its arguments, which the callers here already did). */
type Utf8Writer = { utf8Write?(s: string, offset: number, length: number): number };
const nativeUtf8Write = (Buffer.prototype as Utf8Writer).utf8Write;

export function writeString(buf: Buffer, pos: number, s: string, length: number): void {
  if (length === s.length && length <= SHORT_STRING) {
    for (let i = 0; i < length; i++) buf[pos + i] = s.charCodeAt(i);
    return;
  }
  if (nativeUtf8Write !== undefined) nativeUtf8Write.call(buf, s, pos, length);
  else buf.write(s, pos, length, 'utf8');
}

export function sizeOfVarint(value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  let size = 1;
  while (v > 0x7f) {
    v >>>= 7;
    size++;
  }
  return size;
}

/** Zig-zag varlong of a safe integer. */
export function sizeOfVarlong(value: number): number {
  if (value >= -0x40000000 && value < 0x40000000) return sizeOfVarint(value);
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  let size = 1;
  while (zigzag >= 0x80) {
    zigzag = Math.floor(zigzag / 0x80);
    size++;
  }
  return size;
}

export function writeVarint(buf: Buffer, pos: number, value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  while (v > 0x7f) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

export function writeVarlong(buf: Buffer, pos: number, value: number): number {
  if (value >= -0x40000000 && value < 0x40000000) return writeVarint(buf, pos, value);
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  while (zigzag >= 0x80) {
    buf[pos++] = (zigzag % 0x80) | 0x80;
    zigzag = Math.floor(zigzag / 0x80);
  }
  buf[pos++] = zigzag;
  return pos;
}

function sizeOfBytes(length: number): number {
  return length < 0 ? 1 : sizeOfVarint(length) + length;
}

function writeBytes(buf: Buffer, pos: number, b: Bytes, length: number): number {
  if (b === null) {
    buf[pos] = 1; // zig-zag -1
    return pos + 1;
  }
  pos = writeVarint(buf, pos, length);
  if (typeof b === 'string') writeString(buf, pos, b, length);
  else buf.set(b, pos); // TypedArray#set: no argument checks in JS, unlike Buffer#copy
  return pos + length;
}

/** Header list as [key, value] pairs; objects are iterated in insertion order. */
function forEachHeader(headers: HeadersInput, fn: (key: string, value: Bytes) => void): void {
  if (Array.isArray(headers)) {
    for (const h of headers as ReadonlyArray<{ key: string; value: Bytes }>) fn(h.key, h.value ?? null);
    return;
  }
  const obj = headers as Readonly<Record<string, Bytes | undefined>>;
  for (const key in obj) fn(key, obj[key] ?? null);
}

/** Bytes the headers take (count varint included). */
export function sizeOfHeaders(headers: HeadersInput | undefined): number {
  if (!headers) return 1;
  let count = 0;
  let size = 0;
  forEachHeader(headers, (key, value) => {
    count++;
    size += sizeOfBytes(utf8Length(key)) + sizeOfBytes(byteLength(value));
  });
  return sizeOfVarint(count) + size;
}

function headerCount(headers: HeadersInput): number {
  if (Array.isArray(headers)) return headers.length;
  let count = 0;
  for (const _ in headers as object) count++;
  return count;
}

export interface MeasuredRecord {
  key: Bytes;
  value: Bytes;
  headers: HeadersInput | undefined;
  keyLength: number;
  valueLength: number;
  headersSize: number;
}

/** Size of a record body (after its length varint) for the given deltas. */
export function sizeOfRecordBody(r: MeasuredRecord, offsetDelta: number, timestampDelta: number): number {
  return 1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(offsetDelta) + sizeOfBytes(r.keyLength) + sizeOfBytes(r.valueLength) + r.headersSize;
}

/** Upper bound of a record's size in any batch (deltas at their widest). */
export function recordSizeUpperBound(r: MeasuredRecord): number {
  return 5 + 1 + 10 + 5 + sizeOfBytes(r.keyLength) + sizeOfBytes(r.valueLength) + r.headersSize;
}

/** Writes the record at `pos` (the caller made room for `sizeOfVarint(bodySize) + bodySize`); returns the end. */
export function writeRecordAt(buf: Buffer, pos: number, r: MeasuredRecord, bodySize: number, offsetDelta: number, timestampDelta: number): number {
  pos = writeVarint(buf, pos, bodySize);
  buf[pos++] = 0; // record attributes: unused
  pos = writeVarlong(buf, pos, timestampDelta);
  pos = writeVarint(buf, pos, offsetDelta);
  pos = writeBytes(buf, pos, r.key, r.keyLength);
  pos = writeBytes(buf, pos, r.value, r.valueLength);
  const headers = r.headers;
  if (!headers) {
    buf[pos++] = 0;
    return pos;
  }
  pos = writeVarint(buf, pos, headerCount(headers));
  forEachHeader(headers, (key, value) => {
    pos = writeBytes(buf, pos, key, utf8Length(key));
    pos = writeBytes(buf, pos, value, byteLength(value));
  });
  return pos;
}
