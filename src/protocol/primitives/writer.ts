/**
 * Growable output buffer. Small fields are written into a scratch buffer; large byte
 * payloads (record batches) are appended by reference, so a Produce request or a Fetch
 * response carries its records without being copied. `toChunks()` hands the pieces to a
 * socket's writev; `toBuffer()` joins them when one contiguous buffer is wanted.
 */
const BY_REFERENCE_THRESHOLD = 4096;

export class Writer {
  private scratch: Buffer;
  private pos = 0;
  /** Finished pieces, in order, before the current scratch. */
  private readonly chunks: Buffer[] = [];
  private chunkedBytes = 0;

  constructor(initialSize = 256) {
    this.scratch = Buffer.allocUnsafe(initialSize);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.chunkedBytes + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.scratch.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, this.pos + n));
    this.scratch.copy(grown, 0, 0, this.pos);
    this.scratch = grown;
  }

  writeInt8(v: number): this {
    this.ensure(1);
    this.scratch.writeInt8(v, this.pos);
    this.pos += 1;
    return this;
  }

  writeUInt8(v: number): this {
    this.ensure(1);
    this.scratch[this.pos++] = v;
    return this;
  }

  writeBool(v: boolean): this {
    return this.writeUInt8(v ? 1 : 0);
  }

  writeInt16(v: number): this {
    this.ensure(2);
    this.pos = this.scratch.writeInt16BE(v, this.pos);
    return this;
  }

  writeUInt16(v: number): this {
    this.ensure(2);
    this.pos = this.scratch.writeUInt16BE(v, this.pos);
    return this;
  }

  writeInt32(v: number): this {
    this.ensure(4);
    this.pos = this.scratch.writeInt32BE(v, this.pos);
    return this;
  }

  writeUInt32(v: number): this {
    this.ensure(4);
    this.pos = this.scratch.writeUInt32BE(v, this.pos);
    return this;
  }

  writeInt64(v: bigint): this {
    this.ensure(8);
    this.pos = this.scratch.writeBigInt64BE(v, this.pos);
    return this;
  }

  writeFloat64(v: number): this {
    this.ensure(8);
    this.pos = this.scratch.writeDoubleBE(v, this.pos);
    return this;
  }

  writeUnsignedVarint(v: number): this {
    this.ensure(5);
    const buf = this.scratch;
    let value = v >>> 0;
    while (value > 0x7f) {
      buf[this.pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[this.pos++] = value;
    return this;
  }

  writeVarint(v: number): this {
    return this.writeUnsignedVarint((v << 1) ^ (v >> 31));
  }

  writeUnsignedVarlong(v: bigint): this {
    this.ensure(10);
    const buf = this.scratch;
    let value = BigInt.asUintN(64, v);
    while (value > 0x7fn) {
      buf[this.pos++] = Number(value & 0x7fn) | 0x80;
      value >>= 7n;
    }
    buf[this.pos++] = Number(value);
    return this;
  }

  writeVarlong(v: bigint): this {
    return this.writeUnsignedVarlong((v << 1n) ^ (v >> 63n));
  }

  /** Zig-zag varlong from a JS number (record deltas); exact for |v| < 2^53. */
  writeVarlongNumber(v: number): this {
    if (v >= -0x40000000 && v < 0x40000000) return this.writeVarint(v);
    return this.writeVarlong(BigInt(v));
  }

  writeUuid(v: string): this {
    this.ensure(16);
    const written = this.scratch.write(v, this.pos, 16, 'base64url');
    if (written !== 16) throw new RangeError(`not a 16-byte UUID: ${v}`);
    this.pos += 16;
    return this;
  }

  private writeUtf8(v: string, byteLength: number): void {
    this.ensure(byteLength);
    this.pos += this.scratch.write(v, this.pos, byteLength, 'utf8');
  }

  writeString(v: string): this {
    const n = Buffer.byteLength(v, 'utf8');
    if (n > 0x7fff) throw new RangeError(`string of ${n} bytes exceeds 32767`);
    this.writeInt16(n);
    this.writeUtf8(v, n);
    return this;
  }

  writeNullableString(v: string | null): this {
    if (v === null) return this.writeInt16(-1);
    return this.writeString(v);
  }

  writeCompactString(v: string): this {
    const n = Buffer.byteLength(v, 'utf8');
    this.writeUnsignedVarint(n + 1);
    this.writeUtf8(v, n);
    return this;
  }

  writeCompactNullableString(v: string | null): this {
    if (v === null) return this.writeUnsignedVarint(0);
    return this.writeCompactString(v);
  }

  /** Appends bytes as they are: copied when small, by reference when large. */
  writeRaw(v: Uint8Array): this {
    if (v.length >= BY_REFERENCE_THRESHOLD) {
      this.flushScratch();
      const view = Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.length);
      this.chunks.push(view);
      this.chunkedBytes += v.length;
      return this;
    }
    this.ensure(v.length);
    this.scratch.set(v, this.pos);
    this.pos += v.length;
    return this;
  }

  writeBytes(v: Uint8Array): this {
    this.writeInt32(v.length);
    return this.writeRaw(v);
  }

  writeNullableBytes(v: Uint8Array | null): this {
    if (v === null) return this.writeInt32(-1);
    return this.writeBytes(v);
  }

  writeCompactBytes(v: Uint8Array): this {
    this.writeUnsignedVarint(v.length + 1);
    return this.writeRaw(v);
  }

  writeCompactNullableBytes(v: Uint8Array | null): this {
    if (v === null) return this.writeUnsignedVarint(0);
    return this.writeCompactBytes(v);
  }

  writeArrayLength(n: number): this {
    return this.writeInt32(n);
  }

  writeCompactArrayLength(n: number): this {
    return this.writeUnsignedVarint(n + 1);
  }

  /** Overwrites 4 bytes at an absolute position already written (a size prefix). */
  patchInt32(at: number, v: number): this {
    let base = 0;
    for (const chunk of this.chunks) {
      if (at < base + chunk.length) {
        chunk.writeInt32BE(v, at - base);
        return this;
      }
      base += chunk.length;
    }
    this.scratch.writeInt32BE(v, at - base);
    return this;
  }

  private flushScratch(): void {
    if (this.pos === 0) return;
    const done = this.scratch.subarray(0, this.pos);
    this.chunks.push(done);
    this.chunkedBytes += this.pos;
    // The rest of the old scratch stays unused; a fresh one avoids aliasing `done`.
    this.scratch = Buffer.allocUnsafe(Math.max(256, this.scratch.length - this.pos));
    this.pos = 0;
  }

  /** The written bytes as pieces in order (for `socket.cork()`/writev). */
  toChunks(): Buffer[] {
    this.flushScratch();
    return this.chunks.slice();
  }

  /** The written bytes as one buffer (copies only if the output is in several pieces). */
  toBuffer(): Buffer {
    if (this.chunks.length === 0) return this.scratch.subarray(0, this.pos);
    this.flushScratch();
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.chunkedBytes);
  }
}
