import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Reader } from '../../src/protocol/primitives/reader.js';
import { Writer } from '../../src/protocol/primitives/writer.js';
import { FrameDecoder, FrameTooLargeError, decodeResponse } from '../../src/protocol/frame.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const hex = (w: Writer): string => w.toBuffer().toString('hex');

test('unsigned varint and zig-zag varint: known encodings', () => {
  assert.equal(hex(new Writer().writeUnsignedVarint(0)), '00');
  assert.equal(hex(new Writer().writeUnsignedVarint(127)), '7f');
  assert.equal(hex(new Writer().writeUnsignedVarint(128)), '8001');
  assert.equal(hex(new Writer().writeUnsignedVarint(0xffffffff)), 'ffffffff0f');
  assert.equal(hex(new Writer().writeVarint(-1)), '01');
  assert.equal(hex(new Writer().writeVarint(1)), '02');
  assert.equal(hex(new Writer().writeVarint(-2147483648)), 'ffffffff0f');
  assert.equal(hex(new Writer().writeVarlong(-9223372036854775808n)), 'ffffffffffffffffff01');
});

test('varint, varlong and fixed-width integers round-trip over their whole range', () => {
  fc.assert(fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (i, l) => {
    const w = new Writer(8).writeVarint(i).writeVarlong(l).writeInt32(i).writeInt64(l).writeUnsignedVarint(i >>> 0);
    const r = new Reader(w.toBuffer());
    assert.equal(r.readVarint(), i);
    assert.equal(r.readVarlong(), l);
    assert.equal(r.readInt32(), i);
    assert.equal(r.readInt64(), l);
    assert.equal(r.readUnsignedVarint(), i >>> 0);
    assert.equal(r.remaining, 0);
  }), { numRuns: 2000 });
});

test('varlong as a number matches the bigint reading within 2^53', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }), (l) => {
    const w = new Writer().writeVarlong(l);
    assert.equal(new Reader(w.toBuffer()).readVarlongNumber(), Number(l));
    const n = new Writer().writeVarlongNumber(Number(l));
    assert.equal(n.toBuffer().toString('hex'), w.toBuffer().toString('hex'));
  }), { numRuns: 2000 });
});

test('malformed varints are decode errors', () => {
  assert.throws(() => new Reader(Buffer.from('ffffffff1f', 'hex')).readUnsignedVarint(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('ffffffffff', 'hex')).readUnsignedVarint(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('80', 'hex')).readVarint(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('ffffffffffffffffff7f', 'hex')).readVarlong(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('ffffffffffffffffffff01', 'hex')).readVarlong(), { code: 'ERR_PROTOCOL_DECODE' });
});

test('strings, bytes and arrays: lengths are checked before allocation', () => {
  const w = new Writer().writeString('héllo').writeNullableString(null).writeCompactString('').writeCompactNullableString(null)
    .writeBytes(Buffer.from([1, 2])).writeCompactNullableBytes(null).writeUuid('AAECAwQFBgcICQoLDA0ODw');
  const r = new Reader(w.toBuffer());
  assert.equal(r.readString(), 'héllo');
  assert.equal(r.readNullableString(), null);
  assert.equal(r.readCompactString(), '');
  assert.equal(r.readCompactNullableString(), null);
  assert.deepEqual(r.readBytes(), Buffer.from([1, 2]));
  assert.equal(r.readCompactNullableBytes(), null);
  assert.equal(r.readUuid(), 'AAECAwQFBgcICQoLDA0ODw');
  // A string claiming 30000 bytes in a 4-byte buffer, an array claiming 2^31-1 elements.
  assert.throws(() => new Reader(Buffer.from('75300000', 'hex')).readString(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('7fffffff', 'hex')).readArrayLength(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('fffe', 'hex')).readString(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('00', 'hex')).readCompactString(), { code: 'ERR_PROTOCOL_DECODE' });
  assert.throws(() => new Reader(Buffer.from('fffffffe', 'hex')).readNullableBytes(), { code: 'ERR_PROTOCOL_DECODE' });
});

test('writer passes large payloads by reference and patches a size prefix across chunks', () => {
  const big = Buffer.alloc(10_000, 7);
  const w = new Writer(16);
  w.writeInt32(0).writeBytes(big).writeInt16(5);
  w.patchInt32(0, w.length - 4);
  const chunks = w.toChunks();
  assert.ok(chunks.some((c) => c === big), 'the payload is the same buffer, not a copy');
  const all = Buffer.concat(chunks);
  assert.equal(all.readInt32BE(0), all.length - 4);
  assert.equal(all.readInt16BE(all.length - 2), 5);
});

test('frame decoder: any split of a stream gives the same frames', () => {
  const frames = [Buffer.from('a'), Buffer.alloc(0), Buffer.alloc(300, 1), Buffer.from('last')];
  const stream = Buffer.concat(frames.flatMap((f) => {
    const size = Buffer.alloc(4);
    size.writeInt32BE(f.length);
    return [size, f];
  }));
  fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: stream.length }), { maxLength: 20 }), (cuts) => {
    const points = [...new Set(cuts)].sort((a, b) => a - b);
    const decoder = new FrameDecoder(1024);
    const out: Buffer[] = [];
    let at = 0;
    for (const p of [...points, stream.length]) {
      out.push(...decoder.push(stream.subarray(at, p)));
      at = p;
    }
    assert.deepEqual(out, frames);
    assert.equal(decoder.buffered, 0);
  }), { numRuns: 500 });
});

test('frame decoder rejects an oversized or negative size before buffering it', () => {
  assert.throws(() => new FrameDecoder(1000).push(Buffer.from('000003e9', 'hex')), FrameTooLargeError);
  assert.throws(() => new FrameDecoder(1000).push(Buffer.from('ffffffff', 'hex')), FrameTooLargeError);
  assert.throws(() => new FrameDecoder().push(Buffer.from('7fffffff', 'hex')), FrameTooLargeError);
});

test('frame decoder: next() hands out one frame at a time, leaving the rest unparsed until asked', () => {
  const sized = (body: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]);
  const decoder = new FrameDecoder(1024);
  // Two frames and the beginning of a third, in one chunk; then a bad size prefix.
  decoder.append(Buffer.concat([sized(Buffer.from('one')), sized(Buffer.alloc(0)), Buffer.from([0, 0, 0, 5, 0x61])]));
  assert.deepEqual(decoder.next(), Buffer.from('one'));
  assert.equal(decoder.buffered, 4 + 0 + 5, 'the second frame and the third one\'s beginning are still held');
  assert.deepEqual(decoder.next(), Buffer.alloc(0));
  assert.equal(decoder.midFrame, false, 'nothing of the third frame has been looked at yet');
  assert.equal(decoder.next(), null);
  assert.equal(decoder.midFrame, true);
  decoder.append(Buffer.from('bcde'));
  assert.deepEqual(decoder.next(), Buffer.from('abcde'));
  assert.equal(decoder.midFrame, false);
  decoder.append(Buffer.from('ffffffff', 'hex'));
  assert.throws(() => decoder.next(), FrameTooLargeError);
});

test('frame decoder: a request trickled one byte at a time is held in a few buffers, not one per byte', { timeout: 30_000 }, () => {
  // A slow-loris client sends one byte per TCP segment; each read is a Buffer of its own, and
  // a Buffer costs ~100 bytes besides its contents: 100 KB held must not become 100,000 of them.
  const body = Buffer.alloc(100_000, 7);
  const stream = Buffer.concat([Buffer.from([0, 1, 0x86, 0xa0]), body]);
  const decoder = new FrameDecoder();
  let peakChunks = 0;
  for (let i = 0; i < stream.length - 1; i++) {
    decoder.append(stream.subarray(i, i + 1));
    assert.equal(decoder.next(), null);
    peakChunks = Math.max(peakChunks, decoder.chunks);
  }
  assert.equal(decoder.buffered, stream.length - 1);
  assert.ok(peakChunks <= 2 * Math.ceil(stream.length / 4096) + 1, `${peakChunks} buffers held for ${stream.length} bytes`);
  // Large chunks are kept as they are (no copy), small ones between them merged.
  const mixed = new FrameDecoder();
  for (let i = 0; i < 50; i++) {
    mixed.append(Buffer.alloc(8192));
    for (let j = 0; j < 100; j++) mixed.append(Buffer.alloc(1));
  }
  assert.ok(mixed.chunks <= 2 * 50 + 1, `${mixed.chunks} buffers`);
  decoder.append(stream.subarray(stream.length - 1));
  assert.ok(decoder.next()!.equals(body));
  assert.equal(decoder.buffered, 0);
});

test('a SyncGroup error response with a null assignment (librdkafka mock cluster) decodes with its error code; requests stay strict', () => {
  // v0-v3 as the mock writes it: [throttle (v1+)] error code, bytes length -1.
  for (const version of [0, 1, 2, 3]) {
    const w = new Writer();
    w.writeInt32(0); // size, patched below
    w.writeInt32(42); // correlation id
    if (version >= 1) w.writeInt32(0);
    w.writeInt16(ErrorCode.REBALANCE_IN_PROGRESS);
    w.writeInt32(-1);
    const frame = w.toBuffer().subarray(4);
    const { correlationId, body } = decodeResponse(frame, Api.SyncGroup, version) as { correlationId: number; body: { errorCode: number; assignment: Buffer } };
    assert.equal(correlationId, 42);
    assert.equal(body.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    assert.equal(body.assignment.length, 0);
  }
  const strict = new Reader(Buffer.from('ffffffff', 'hex'));
  assert.throws(() => strict.readBytes(), /negative bytes length -1/);
});
