import { ProtocolDecodeError } from './decode-error.js';

/**
 * Cursor over a received buffer. Every length read from the wire is checked against the
 * bytes that remain *before* anything is allocated for it, so a hostile length can never
 * make us allocate more than the frame itself holds. Bytes and records fields are returned
 * as views (`subarray`) of the frame: no copy on the hot path.
 */
export class Reader {
  readonly buf: Buffer;
  offset: number;
  readonly end: number;
  /**
   * Bytes (or array slots) this reader asked the runtime to allocate: strings, arrays.
   * Views are free. Tests use it to prove allocation is bounded by the frame size.
   */
  allocated = 0;
  /**
   * Read a null (length -1) where bytes are required as empty bytes instead of failing. Set
   * for responses only, as librdkafka reads them: its mock cluster answers SyncGroup errors
   * with a null assignment. Requests stay strict, as Kafka's broker is.
   */
  nullBytesAsEmpty = false;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    this.buf = buf;
    this.offset = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  fail(message: string): never {
    throw new ProtocolDecodeError(message, this.offset);
  }

  private need(n: number): number {
    const at = this.offset;
    if (n > this.end - at) this.fail(`need ${n} bytes, ${this.end - at} remain`);
    this.offset = at + n;
    return at;
  }

  readInt8(): number {
    return this.buf.readInt8(this.need(1));
  }

  readUInt8(): number {
    return this.buf[this.need(1)]!;
  }

  readBool(): boolean {
    return this.buf[this.need(1)] !== 0;
  }

  readInt16(): number {
    return this.buf.readInt16BE(this.need(2));
  }

  readUInt16(): number {
    return this.buf.readUInt16BE(this.need(2));
  }

  readInt32(): number {
    return this.buf.readInt32BE(this.need(4));
  }

  readUInt32(): number {
    return this.buf.readUInt32BE(this.need(4));
  }

  readInt64(): bigint {
    return this.buf.readBigInt64BE(this.need(8));
  }

  readFloat64(): number {
    return this.buf.readDoubleBE(this.need(8));
  }

  /** Unsigned LEB128 of at most 5 bytes (a Java int). */
  readUnsignedVarint(): number {
    const buf = this.buf;
    let value = 0;
    for (let shift = 0, i = 0; i < 5; i++, shift += 7) {
      if (this.offset >= this.end) this.fail('truncated varint');
      const byte = buf[this.offset++]!;
      if (i === 4 && byte > 0x0f) this.fail('varint longer than 32 bits');
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value >>> 0;
    }
    return this.fail('varint longer than 5 bytes');
  }

  /** Zig-zag signed varint (a Java int). */
  readVarint(): number {
    const raw = this.readUnsignedVarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** Unsigned LEB128 of at most 10 bytes, as a bigint. */
  readUnsignedVarlong(): bigint {
    const buf = this.buf;
    let value = 0n;
    for (let shift = 0n, i = 0; i < 10; i++, shift += 7n) {
      if (this.offset >= this.end) this.fail('truncated varlong');
      const byte = buf[this.offset++]!;
      if (i === 9 && byte > 0x01) this.fail('varlong longer than 64 bits');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    return this.fail('varlong longer than 10 bytes');
  }

  /** Zig-zag signed varlong (a Java long). */
  readVarlong(): bigint {
    const raw = this.readUnsignedVarlong();
    return (raw >> 1n) ^ -(raw & 1n);
  }

  /**
   * Zig-zag varlong as a JS number, for record fields (timestamp and offset deltas) that
   * are small in practice; values beyond 2^53 lose precision rather than cost a bigint.
   */
  readVarlongNumber(): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.offset >= this.end) this.fail('truncated varlong');
      const byte = buf[this.offset++]!;
      if (i < 4) lo |= (byte & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (byte & 0x0f) << 28;
        hi = (byte & 0x70) >>> 4;
      } else hi += (byte & 0x7f) * 2 ** (7 * (i - 5) + 3);
      if ((byte & 0x80) === 0) {
        // Zig-zag decode on the halves, so the result is exact whenever |value| < 2^53
        // (the raw unsigned value is twice as large and would not be).
        const half = (lo >>> 1) + hi * 2 ** 31;
        return lo & 1 ? -half - 1 : half;
      }
    }
    return this.fail('varlong longer than 10 bytes');
  }

  readUuid(): string {
    const at = this.need(16);
    return this.buf.toString('base64url', at, at + 16);
  }

  private readUtf8(length: number): string {
    if (length > this.end - this.offset) this.fail(`string of ${length} bytes, ${this.end - this.offset} remain`);
    this.allocated += length;
    const at = this.offset;
    this.offset = at + length;
    return this.buf.toString('utf8', at, at + length);
  }

  readString(): string {
    const length = this.readInt16();
    if (length < 0) this.fail(`negative string length ${length}`);
    return this.readUtf8(length);
  }

  readNullableString(): string | null {
    const length = this.readInt16();
    if (length < -1) this.fail(`negative string length ${length}`);
    return length === -1 ? null : this.readUtf8(length);
  }

  readCompactString(): string {
    const length = this.readUnsignedVarint() - 1;
    if (length < 0) this.fail('null compact string where a string is required');
    return this.readUtf8(length);
  }

  readCompactNullableString(): string | null {
    const length = this.readUnsignedVarint() - 1;
    return length === -1 ? null : this.readUtf8(length);
  }

  /** A view of the next `length` bytes. */
  readRaw(length: number): Buffer {
    if (length < 0) this.fail(`negative length ${length}`);
    const at = this.need(length);
    return this.buf.subarray(at, at + length);
  }

  readBytes(): Buffer {
    const length = this.readInt32();
    if (length === -1 && this.nullBytesAsEmpty) return this.buf.subarray(0, 0);
    if (length < 0) this.fail(`negative bytes length ${length}`);
    return this.readRaw(length);
  }

  readNullableBytes(): Buffer | null {
    const length = this.readInt32();
    if (length < -1) this.fail(`negative bytes length ${length}`);
    return length === -1 ? null : this.readRaw(length);
  }

  readCompactBytes(): Buffer {
    const length = this.readUnsignedVarint() - 1;
    if (length === -1 && this.nullBytesAsEmpty) return this.buf.subarray(0, 0);
    if (length < 0) this.fail('null compact bytes where bytes are required');
    return this.readRaw(length);
  }

  readCompactNullableBytes(): Buffer | null {
    const length = this.readUnsignedVarint() - 1;
    return length === -1 ? null : this.readRaw(length);
  }

  /**
   * An array element count, -1 for null. Every element takes at least one byte on the
   * wire, so a count above the remaining bytes is a lie we can reject before allocating.
   */
  private checkCount(count: number): number {
    if (count > this.end - this.offset) this.fail(`array of ${count} elements, ${this.end - this.offset} bytes remain`);
    this.allocated += count;
    return count;
  }

  readArrayLength(): number {
    const count = this.readInt32();
    if (count < 0) this.fail(`negative array length ${count}`);
    return this.checkCount(count);
  }

  readNullableArrayLength(): number {
    const count = this.readInt32();
    if (count < -1) this.fail(`negative array length ${count}`);
    return count === -1 ? -1 : this.checkCount(count);
  }

  readCompactArrayLength(): number {
    const count = this.readUnsignedVarint() - 1;
    if (count < 0) this.fail('null compact array where an array is required');
    return this.checkCount(count);
  }

  readCompactNullableArrayLength(): number {
    const count = this.readUnsignedVarint() - 1;
    return count === -1 ? -1 : this.checkCount(count);
  }

  skip(n: number): void {
    this.need(n);
  }

  /** Decoders of a whole message call this: leftover bytes mean a wrong version or schema. */
  expectEnd(what: string): void {
    if (this.offset !== this.end) this.fail(`${this.end - this.offset} unexpected trailing bytes after ${what}`);
  }
}
