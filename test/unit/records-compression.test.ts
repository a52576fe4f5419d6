import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { compressSync as snappyRaw } from 'snappy';
import { CompressStream } from 'zstd-napi';
import {
  ATTRIBUTES_OFFSET,
  compress,
  compressAsync,
  compressSnappyXerial,
  CompressionType,
  CorruptRecordError,
  decodeRecordBatch,
  decodeRecordBatchAsync,
  decompress,
  decompressAsync,
  encodeRecordBatch,
  encodeRecordBatchAsync,
  isXerialFramed,
  LZ4_FRAME_MAGIC,
  readBatchHeader,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  updateBatchCrc,
  validateBatch,
  writeBatchHeader,
  XERIAL_BLOCK_SIZE,
  type CorruptRecordReason,
  type RecordInput,
} from '../../src/protocol/records/index.js';

const CODECS = [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];

function rejects(fn: () => unknown, reason: CorruptRecordReason): void {
  assert.throws(fn, (err: unknown) => err instanceof CorruptRecordError && err.reason === reason);
}

function sampleRecords(): RecordInput[] {
  const records: RecordInput[] = [];
  for (let i = 0; i < 500; i++) {
    records.push({
      key: i % 7 === 0 ? null : Buffer.from(`key-${i}`),
      value: i % 11 === 0 ? null : Buffer.from(`value ${i} `.repeat(i % 13)),
      headers: i % 3 === 0 ? [{ key: 'trace', value: Buffer.from([i & 0xff]) }, { key: 'null', value: null }] : [],
      timestamp: 1_700_000_000_000 + (i % 17),
    });
  }
  // Large and poorly compressible, to span many codec blocks.
  records.push({ key: Buffer.from('big'), value: Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 2654435761) >>> 24)), timestamp: 1 });
  return records;
}

function assertSameRecords(decoded: ReturnType<typeof decodeRecordBatch>, records: RecordInput[]): void {
  assert.equal(decoded.records.length, records.length);
  decoded.records.forEach((record, i) => {
    const input = records[i]!;
    assert.equal(record.offset, BigInt(i));
    assert.equal(record.timestamp, BigInt(input.timestamp!));
    assert.deepEqual(record.key, input.key === null ? null : Buffer.from(input.key!));
    assert.deepEqual(record.value, input.value === null ? null : Buffer.from(input.value!));
    assert.deepEqual(record.headers, input.headers ?? []);
  });
}

/** A v2 batch holding `records`, with the section compressed by something other than our encoder. */
function batchWithSection(compression: CompressionType, section: Buffer, records: RecordInput[]): Buffer {
  const plain = readBatchHeader(encodeRecordBatch({ records }));
  const out = Buffer.alloc(RECORDS_OFFSET + section.length);
  section.copy(out, RECORDS_OFFSET);
  writeBatchHeader(out, 0, out.length, { ...plain, attributes: compression });
  return out;
}

function uncompressedSection(records: RecordInput[]): Buffer {
  return encodeRecordBatch({ records }).subarray(RECORDS_OFFSET);
}

test('every codec round-trips keys, values, headers, nulls and a large value', async () => {
  const records = sampleRecords();
  for (const compression of CODECS) {
    const batch = encodeRecordBatch({ compression, records });
    const header = validateBatch(batch);
    assert.equal(header.compression, compression);
    assertSameRecords(decodeRecordBatch(batch), records);
    assertSameRecords(await decodeRecordBatchAsync(batch), records);
    const asyncBatch = await encodeRecordBatchAsync({ compression, records });
    assertSameRecords(decodeRecordBatch(asyncBatch), records);
  }
});

test('compressed records are decoded into one buffer and counted as allocated', () => {
  const records = sampleRecords();
  const raw = uncompressedSection(records);
  const decoded = decodeRecordBatch(encodeRecordBatch({ compression: CompressionType.Zstd, records }));
  assert.ok(decoded.allocated >= raw.length);
  assert.ok(decoded.allocated < raw.length * 2);
});

test('snappy: batches are written raw, one block, as librdkafka and franz-go write them', () => {
  const data = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff));
  const raw = compress(CompressionType.Snappy, data);
  assert.ok(!isXerialFramed(raw));
  assert.ok(raw.equals(snappyRaw(data)), 'the snappy library\'s own raw encoding');
  assert.ok(decompress(CompressionType.Snappy, raw).equals(data));
});

test('snappy: compressSnappyXerial writes snappy-java framing, 32 KiB blocks, as SnappyOutputStream does', () => {
  const data = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff));
  const framed = compressSnappyXerial(data);
  assert.ok(isXerialFramed(framed));
  assert.deepEqual([...framed.subarray(0, 8)], [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
  assert.equal(framed.readInt32BE(8), 1); // version
  assert.equal(framed.readInt32BE(12), 1); // compatible version

  // Walk the blocks: [int32 length][raw snappy block whose varint preamble is its input size].
  const inputSizes: number[] = [];
  let at = 16;
  while (at < framed.length) {
    const length = framed.readInt32BE(at);
    const block = framed.subarray(at + 4, at + 4 + length);
    let size = 0;
    for (let i = 0, shift = 1; ; i++, shift *= 128) {
      size += (block[i]! & 0x7f) * shift;
      if ((block[i]! & 0x80) === 0) break;
    }
    inputSizes.push(size);
    at += 4 + length;
  }
  assert.equal(at, framed.length);
  assert.deepEqual(inputSizes, [XERIAL_BLOCK_SIZE, XERIAL_BLOCK_SIZE, XERIAL_BLOCK_SIZE, 100_000 - 3 * XERIAL_BLOCK_SIZE]);
  assert.ok(decompress(CompressionType.Snappy, framed).equals(data));
});

test('snappy: raw (librdkafka) and framed (Java) batches both decode', () => {
  const records = sampleRecords();
  const section = uncompressedSection(records);
  const raw = batchWithSection(CompressionType.Snappy, snappyRaw(section), records);
  assert.ok(!isXerialFramed(raw.subarray(RECORDS_OFFSET)));
  assertSameRecords(decodeRecordBatch(raw), records);

  // Two framed streams back to back, which SnappyInputStream also accepts.
  const half = section.length >> 1;
  const twoStreams = Buffer.concat([compressSnappyXerial(section.subarray(0, half)), compressSnappyXerial(section.subarray(half))]);
  assertSameRecords(decodeRecordBatch(batchWithSection(CompressionType.Snappy, twoStreams, records)), records);

  assert.equal(decompress(CompressionType.Snappy, compress(CompressionType.Snappy, Buffer.alloc(0))).length, 0);
  assert.equal(decompress(CompressionType.Snappy, compressSnappyXerial(Buffer.alloc(0))).length, 0);
});

test('lz4: a standard frame in the shape Kafka Lz4BlockInputStream requires', () => {
  const data = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i >> 3) & 0xff));
  const frame = compress(CompressionType.Lz4, data);
  assert.equal(frame.readUInt32LE(0), LZ4_FRAME_MAGIC);
  const flg = frame[4]!;
  const bd = frame[5]!;
  assert.equal(flg >> 6, 1, 'version 1');
  assert.ok(flg & 0x20, 'independent blocks');
  assert.equal(flg & 0x03, 0, 'reserved bits and dictionary id clear');
  assert.equal(bd & 0x8f, 0, 'BD reserved bits clear');
  assert.ok(((bd >> 4) & 7) >= 4, 'block size id 4..7');
  // Header checksum: second byte of xxHash32 over the descriptor (FLG, BD, optional content size).
  const descriptorEnd = 6 + (flg & 0x08 ? 8 : 0);
  assert.equal(frame[descriptorEnd], (xxh32Small(frame.subarray(4, descriptorEnd)) >>> 8) & 0xff);
  assert.ok(decompress(CompressionType.Lz4, frame).equals(data));
});

test('zstd: frames with and without a content size (zstd-jni streams have none)', async () => {
  const records = sampleRecords();
  const section = uncompressedSection(records);
  const streamed = await zstdStream(section);
  assert.equal(streamed[4]! & 0xc0, 0, 'no frame content size flag');
  assertSameRecords(decodeRecordBatch(batchWithSection(CompressionType.Zstd, streamed, records)), records);
  assert.ok(decompress(CompressionType.Zstd, compress(CompressionType.Zstd, section, { level: 19 })).equals(section));
});

test('gzip levels and async variants agree', async () => {
  const data = Buffer.from('the quick brown fox '.repeat(1000));
  for (const compression of CODECS) {
    const packed = await compressAsync(compression, data, { level: 9 });
    assert.ok((await decompressAsync(compression, packed)).equals(data));
    assert.ok(decompress(compression, packed).equals(data));
  }
});

test('decompression bombs stop at maxDecompressedBytes for every codec', async () => {
  const zeros = Buffer.alloc(4 * 1024 * 1024);
  const limit = { maxDecompressedBytes: 1024 * 1024 };
  for (const compression of CODECS.slice(1)) {
    const packed = compress(compression, zeros);
    assert.ok(packed.length < zeros.length / 20, `${CompressionType[compression]} compresses zeros`);
    rejects(() => decompress(compression, packed, limit), 'decompressed-too-large');
    await assert.rejects(decompressAsync(compression, packed, limit), (err: unknown) => err instanceof CorruptRecordError && err.reason === 'decompressed-too-large');
    assert.equal(decompress(compression, packed, { maxDecompressedBytes: zeros.length }).length, zeros.length);
  }
  // Without declared sizes: a zstd stream and raw snappy's preamble, and a frame that lies.
  const zstdWithoutSize = await zstdStream(zeros);
  rejects(() => decompress(CompressionType.Zstd, zstdWithoutSize, limit), 'decompressed-too-large');
  rejects(() => decompress(CompressionType.Snappy, snappyRaw(zeros), limit), 'decompressed-too-large');
  const lying = compress(CompressionType.Zstd, zeros);
  const descriptor = lying[4]!;
  assert.equal(descriptor >> 6, 2, 'four-byte content size field');
  assert.equal(descriptor & 0x03, 0, 'no dictionary id');
  lying.writeUInt32LE(1000, descriptor & 0x20 ? 5 : 6); // after the window byte unless single-segment
  rejects(() => decompress(CompressionType.Zstd, lying), 'decompression-failed');

  // Through the batch decoder, and a record count no output could hold.
  const bomb = encodeRecordBatch({ compression: CompressionType.Gzip, records: [{ value: zeros, timestamp: 1 }] });
  rejects(() => decodeRecordBatch(bomb, limit), 'decompressed-too-large');
  const lyingCount = batchWithSection(CompressionType.Gzip, gzipSync(Buffer.alloc(10)), [{ timestamp: 1 }]);
  lyingCount.writeInt32BE(1_000_000, RECORDS_COUNT_OFFSET);
  updateBatchCrc(lyingCount);
  rejects(() => decodeRecordBatch(lyingCount, { maxDecompressedBytes: 1000 }), 'invalid-record-count');
});

test('garbage in a compressed section is a typed error for every codec', () => {
  const garbage = [Buffer.alloc(0), Buffer.from([1, 2, 3]), Buffer.alloc(64, 0xff), Buffer.from('\x82SNAPPY\0\0\0\0\x01\0\0\0\x01\0\0\0\x09abc', 'latin1')];
  for (const compression of CODECS.slice(1)) {
    for (const data of garbage) {
      if (compression === CompressionType.Gzip && data.length === 0) continue; // zlib reads nothing as nothing
      rejects(() => decompress(compression, data), 'decompression-failed');
    }
  }
  const unknown = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: 1 }] });
  unknown.writeInt16BE(6, ATTRIBUTES_OFFSET);
  assert.equal(readBatchHeader(unknown).compression, 6);
  rejects(() => decodeRecordBatch(unknown, { verifyCrc: false }), 'unknown-compression');
});

async function zstdStream(data: Buffer): Promise<Buffer> {
  const stream = new CompressStream();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  stream.end(data);
  await done;
  return Buffer.concat(chunks);
}

/** xxHash32 with a zero seed, for inputs under 16 bytes: the LZ4 frame header checksum. */
function xxh32Small(input: Uint8Array): number {
  const P1 = 2654435761;
  const P2 = 2246822519;
  const P3 = 3266489917;
  const P4 = 668265263;
  const P5 = 374761393;
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  assert.ok(input.length < 16);
  let h = (P5 + input.length) >>> 0;
  let i = 0;
  for (; i + 4 <= input.length; i += 4) {
    const word = (input[i]! | (input[i + 1]! << 8) | (input[i + 2]! << 16) | (input[i + 3]! << 24)) >>> 0;
    h = Math.imul(rotl((h + Math.imul(word, P3)) >>> 0, 17), P4) >>> 0;
  }
  for (; i < input.length; i++) h = Math.imul(rotl((h + Math.imul(input[i]!, P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

test('xxh32 helper matches the reference value for empty input', () => {
  assert.equal(xxh32Small(new Uint8Array(0)), 0x02cc5d05);
});
