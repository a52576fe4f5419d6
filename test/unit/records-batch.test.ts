import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolDecodeError } from '../../src/protocol/primitives/decode-error.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  CorruptRecordError,
  CRC_OFFSET,
  crc32c,
  decodeRecords,
  encodeRecordBatch,
  forEachRecordSpan,
  HEADER_SIZE,
  isLegacyMagic,
  iterateBatches,
  LENGTH_OFFSET,
  MAGIC_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  readBatchHeader,
  readMagic,
  rewriteBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  TimestampType,
  validateBatch,
  type CorruptRecordReason,
} from '../../src/protocol/records/index.js';

/** An independent, bit-at-a-time CRC-32C (reflected polynomial 0x82F63B78). */
function crc32cBitwise(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function rejects(fn: () => unknown, reason?: CorruptRecordReason): void {
  assert.throws(fn, (err: unknown) => {
    if (reason === undefined) return err instanceof ProtocolDecodeError;
    return err instanceof CorruptRecordError && err.reason === reason;
  });
}

// A batch written out field by field from the KIP-98 layout: two records, no compression.
const KNOWN_BATCH_HEX = [
  '0000000000000005', // baseOffset 5
  '00000048', // batchLength 72 = 84 - 12
  '00000007', // partitionLeaderEpoch 7
  '02', // magic
  '7fd90e1f', // crc32c(attributes..end)
  '0000', // attributes: no compression, CreateTime, not transactional, not control
  '00000001', // lastOffsetDelta
  '0000018bcfe56800', // baseTimestamp 1700000000000
  '0000018bcfe56805', // maxTimestamp 1700000000005
  '000000000000002a', // producerId 42
  '0003', // producerEpoch
  '0000000a', // baseSequence 10
  '00000002', // recordCount
  // record 0: length 15, attributes, timestampDelta 0, offsetDelta 0, key "k", value "hello", 1 header "h" = null
  '1e', '00', '00', '00', '026b', '0a68656c6c6f', '02', '0268', '01',
  // record 1: length 6, attributes, timestampDelta 5, offsetDelta 1, null key, empty value, no headers
  '0c', '00', '0a', '02', '01', '00', '00',
].join('');

test('crc32c matches the standard check value and an independent implementation', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
  assert.equal(crc32cBitwise(Buffer.from('123456789')), 0xe3069283);
  const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff));
  assert.equal(crc32c(data), crc32cBitwise(data));
  assert.equal(crc32c(data.subarray(500), crc32c(data.subarray(0, 500))), crc32c(data));
});

test('known-answer batch: exact bytes, CRC and decoding', () => {
  const expected = Buffer.from(KNOWN_BATCH_HEX, 'hex');
  assert.equal(expected.length, 84);
  assert.equal(crc32cBitwise(expected.subarray(ATTRIBUTES_OFFSET)), 0x7fd90e1f);

  const encoded = encodeRecordBatch({
    baseOffset: 5n,
    partitionLeaderEpoch: 7,
    producerId: 42n,
    producerEpoch: 3,
    baseSequence: 10,
    records: [
      { key: Buffer.from('k'), value: Buffer.from('hello'), headers: [{ key: 'h', value: null }], timestamp: 1700000000000n },
      { key: null, value: Buffer.alloc(0), timestamp: 1700000000005 },
    ],
  });
  assert.equal(encoded.toString('hex'), KNOWN_BATCH_HEX);

  const header = validateBatch(expected);
  assert.deepEqual(
    { ...header },
    {
      baseOffset: 5n,
      batchLength: 72,
      partitionLeaderEpoch: 7,
      magic: 2,
      crc: 0x7fd90e1f,
      attributes: 0,
      compression: 0,
      timestampType: TimestampType.CreateTime,
      isTransactional: false,
      isControl: false,
      hasDeleteHorizonMs: false,
      lastOffsetDelta: 1,
      baseTimestamp: 1700000000000n,
      maxTimestamp: 1700000000005n,
      producerId: 42n,
      producerEpoch: 3,
      baseSequence: 10,
      recordCount: 2,
      lastOffset: 6n,
      sizeInBytes: 84,
    },
  );
  const records = decodeRecords(expected);
  assert.deepEqual(records, [
    { offset: 5n, timestamp: 1700000000000n, key: Buffer.from('k'), value: Buffer.from('hello'), headers: [{ key: 'h', value: null }] },
    { offset: 6n, timestamp: 1700000000005n, key: null, value: Buffer.alloc(0), headers: [] },
  ]);
  // Uncompressed keys and values are views of the batch, not copies.
  assert.equal(records[0]!.value!.buffer, expected.buffer);
});

test('readBatchHeader needs only the 61 header bytes', () => {
  const batch = Buffer.from(KNOWN_BATCH_HEX, 'hex');
  const header = readBatchHeader(batch.subarray(0, HEADER_SIZE));
  assert.equal(header.recordCount, 2);
  assert.equal(header.sizeInBytes, 84);
  rejects(() => readBatchHeader(batch.subarray(0, HEADER_SIZE - 1)), 'truncated');
  rejects(() => validateBatch(batch.subarray(0, 83)), 'truncated');
});

test('forEachRecordSpan finds every key and value where decodeRecords puts them, nulls as -1', () => {
  const records = [
    { key: Buffer.from('k0'), value: Buffer.from('value-0'), timestamp: 5 },
    { key: null, value: Buffer.from('v1'), timestamp: 6, headers: [{ key: 'h', value: Buffer.from('x') }] },
    { key: Buffer.from('k2'), value: null, timestamp: 7 },
    { key: Buffer.alloc(0), value: Buffer.alloc(300, 1), timestamp: 8 },
  ];
  const batch = encodeRecordBatch({ baseOffset: 10n, records });
  const seen: [number, string | null, string | null][] = [];
  const walked = forEachRecordSpan(batch, readBatchHeader(batch), (delta, buf, ks, kl, vs, vl) => {
    seen.push([delta, kl < 0 ? null : buf.toString('hex', ks, ks + kl), vl < 0 ? null : buf.toString('hex', vs, vs + vl)]);
  });
  assert.equal(walked, true);
  assert.deepEqual(seen, decodeRecords(batch).map((r) => [Number(r.offset - 10n), r.key?.toString('hex') ?? null, r.value?.toString('hex') ?? null]));
  const gzip = encodeRecordBatch({ records, compression: 1 });
  assert.equal(forEachRecordSpan(gzip, readBatchHeader(gzip), () => assert.fail('compressed batches are not walked')), false);
});

test('every byte the CRC covers is protected; the others are checked or free to change', () => {
  const batch = encodeRecordBatch({
    records: Array.from({ length: 5 }, (_, i) => ({ key: Buffer.from(`key-${i}`), value: Buffer.from(`value-${i}`), timestamp: 1000 + i })),
  });
  for (let i = 0; i < batch.length; i++) {
    const corrupt = Buffer.from(batch);
    corrupt[i] ^= 0x01;
    if (i >= ATTRIBUTES_OFFSET || (i >= CRC_OFFSET && i < CRC_OFFSET + 4)) rejects(() => validateBatch(corrupt), 'crc-mismatch');
    else if (i === MAGIC_OFFSET) rejects(() => validateBatch(corrupt), 'unsupported-magic');
    else if (i >= LENGTH_OFFSET && i < LENGTH_OFFSET + 4) rejects(() => validateBatch(corrupt));
    else validateBatch(corrupt); // baseOffset and partitionLeaderEpoch are outside the CRC
  }
});

test('broker rewrites: base offset and leader epoch keep the CRC, LogAppendTime recomputes it', () => {
  const batch = encodeRecordBatch({
    records: [
      { value: Buffer.from('a'), timestamp: 10n },
      { value: Buffer.from('b'), timestamp: 20n },
    ],
  });
  const crcBefore = batch.readUInt32BE(CRC_OFFSET);
  rewriteBaseOffset(batch, 0, 1234567890123n);
  setPartitionLeaderEpoch(batch, 0, 9);
  assert.equal(batch.readUInt32BE(CRC_OFFSET), crcBefore);
  const header = validateBatch(batch);
  assert.equal(header.baseOffset, 1234567890123n);
  assert.equal(header.lastOffset, 1234567890124n);
  assert.equal(header.partitionLeaderEpoch, 9);
  assert.deepEqual(
    decodeRecords(batch).map((r) => r.offset),
    [1234567890123n, 1234567890124n],
  );

  setLogAppendTime(batch, 0, 99999n);
  const stamped = validateBatch(batch);
  assert.equal(stamped.timestampType, TimestampType.LogAppendTime);
  assert.equal(stamped.maxTimestamp, 99999n);
  assert.notEqual(stamped.crc, crcBefore);
  assert.deepEqual(
    decodeRecords(batch).map((r) => r.timestamp),
    [99999n, 99999n],
  );
});

test('setters work on a batch inside a larger blob and refuse non-v2 data', () => {
  const first = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: 1 }] });
  const second = encodeRecordBatch({ records: [{ value: Buffer.from('y'), timestamp: 2 }] });
  const blob = Buffer.concat([first, second]);
  rewriteBaseOffset(blob, first.length, 77n);
  setPartitionLeaderEpoch(blob, first.length, 3);
  const views = [...iterateBatches(blob)];
  assert.deepEqual(
    views.map((v) => v.baseOffset),
    [0n, 77n],
  );
  assert.equal(validateBatch(views[1]!.buffer).partitionLeaderEpoch, 3);
  assert.equal(blob.readBigInt64BE(BASE_OFFSET_OFFSET), 0n);
  assert.equal(blob.readInt32BE(PARTITION_LEADER_EPOCH_OFFSET), -1);

  const legacy = Buffer.from(first);
  legacy[MAGIC_OFFSET] = 1;
  rejects(() => rewriteBaseOffset(legacy, 0, 1n), 'unsupported-magic');
});

test('iterateBatches: views without copies, a truncated tail is dropped, legacy entries are recognised', () => {
  const batches = [0, 1, 2].map((n) =>
    encodeRecordBatch({ baseOffset: BigInt(n * 10), records: [{ value: Buffer.alloc(n * 50, n), timestamp: n }] }),
  );
  const blob = Buffer.concat(batches);
  const views = [...iterateBatches(blob)];
  assert.equal(views.length, 3);
  views.forEach((view, i) => {
    assert.ok(view.buffer.equals(batches[i]!));
    assert.equal(view.buffer.buffer, blob.buffer);
    assert.equal(view.magic, 2);
  });
  assert.deepEqual(
    views.map((v) => v.position),
    [0, batches[0]!.length, batches[0]!.length + batches[1]!.length],
  );

  // Every cut through the last batch leaves the first two intact.
  const full = batches[0]!.length + batches[1]!.length;
  for (let cut = full; cut < blob.length; cut++) {
    assert.equal([...iterateBatches(blob.subarray(0, cut))].length, 2);
  }
  assert.equal([...iterateBatches(Buffer.alloc(0))].length, 0);

  // A v1 message: offset, size, crc, magic 1, attributes, timestamp, key -1, value "v".
  const legacy = Buffer.alloc(12 + 4 + 1 + 1 + 8 + 4 + 4 + 1);
  legacy.writeInt32BE(legacy.length - 12, LENGTH_OFFSET);
  legacy[MAGIC_OFFSET] = 1;
  legacy.writeInt32BE(-1, 26);
  legacy.writeInt32BE(1, 30);
  const mixed = [...iterateBatches(Buffer.concat([legacy, batches[0]!]))];
  assert.deepEqual(
    mixed.map((v) => v.magic),
    [1, 2],
  );
  assert.ok(isLegacyMagic(readMagic(mixed[0]!.buffer)));
  rejects(() => validateBatch(mixed[0]!.buffer), 'unsupported-magic');

  const badLength = Buffer.from(batches[0]!);
  badLength.writeInt32BE(3, LENGTH_OFFSET);
  rejects(() => [...iterateBatches(badLength)], 'invalid-length');
});
