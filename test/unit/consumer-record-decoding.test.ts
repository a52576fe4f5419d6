import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionRecords, recordHeaders, type ConsumerRecord } from '../../src/client/consumer/record-decoding.js';
import { ProtocolDecodeError } from '../../src/protocol/primitives/decode-error.js';
import {
  ATTRIBUTES_OFFSET, CompressionType, CRC_OFFSET, crc32c, decodeRecords, encodeRecordBatch, RECORDS_OFFSET, type RecordInput,
} from '../../src/protocol/records/index.js';

/** A deterministic generator (no Math.random: the test must be reproducible). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomRecords(rnd: () => number, n: number, baseTs: number): RecordInput[] {
  const bytes = (max: number): Buffer | null => (rnd() < 0.1 ? null : Buffer.from(Array.from({ length: Math.floor(rnd() * max) }, () => Math.floor(rnd() * 256))));
  return Array.from({ length: n }, () => ({
    key: bytes(40),
    // Lengths up to 20,000 need 3-byte varints.
    value: bytes(rnd() < 0.2 ? 20_000 : 100),
    // Deltas beyond 2^31 need multi-byte (and 5+ byte) varlongs; negative ones too.
    timestamp: baseTs + Math.floor((rnd() - 0.3) * 2 ** 34),
    headers: rnd() < 0.5 ? [] : [{ key: 'h-é', value: bytes(10) }, { key: '', value: null }],
  }));
}

function takeAll(pr: PartitionRecords, max: number): ConsumerRecord[] {
  const out: ConsumerRecord[] = [];
  while (!pr.drained) pr.take(max, out);
  return out;
}

test('PartitionRecords gives out exactly what the protocol decoder reads, across batches, codecs and take() sizes', () => {
  const rnd = lcg(7);
  const baseTs = 1_700_000_000_000;
  const batches: Buffer[] = [];
  let offset = 1_000n;
  for (const compression of [CompressionType.None, CompressionType.Gzip, CompressionType.None, CompressionType.Zstd]) {
    const records = randomRecords(rnd, 1 + Math.floor(rnd() * 60), baseTs);
    batches.push(encodeRecordBatch({ records, baseOffset: offset, compression, partitionLeaderEpoch: 3 }));
    offset += BigInt(records.length) + 5n; // a gap, as compaction leaves
  }
  const blob = Buffer.concat(batches);
  const expected = batches.flatMap((b) => decodeRecords(b));
  for (const max of [1, 7, 500]) {
    const pr = new PartitionRecords('t', 2, 1_000n, 0, blob, 99n, false, null);
    const got = takeAll(pr, max);
    assert.equal(got.length, expected.length);
    for (const [i, r] of got.entries()) {
      const e = expected[i]!;
      assert.equal(r.offset, e.offset);
      assert.equal(typeof r.offset, 'bigint');
      assert.equal(r.timestamp, Number(e.timestamp));
      assert.deepEqual(r.key, e.key);
      assert.deepEqual(r.value, e.value);
      assert.deepEqual(r.headers, e.headers.map((h) => ({ key: h.key, value: h.value })));
      assert.equal(r.topic, 't');
      assert.equal(r.partition, 2);
      assert.equal(r.leaderEpoch, 3);
      assert.equal(r.timestampType, 'CreateTime');
    }
    // The position ends past the last batch, and endOffset() saw the same from the headers.
    assert.equal(pr.nextFetchOffset, offset - 5n);
    assert.equal(pr.endOffset(), offset - 5n);
  }
});

test('PartitionRecords.visit() gives each record as spans of the bytes the protocol decoder reads, and stops where the visitor says', () => {
  const rnd = lcg(11);
  const baseTs = 1_700_000_000_000;
  const batches: Buffer[] = [];
  let offset = 500n;
  for (const compression of [CompressionType.None, CompressionType.Lz4, CompressionType.None]) {
    const records = randomRecords(rnd, 1 + Math.floor(rnd() * 60), baseTs);
    batches.push(encodeRecordBatch({ records, baseOffset: offset, compression, partitionLeaderEpoch: 4 }));
    offset += BigInt(records.length) + 3n;
  }
  const expected = batches.flatMap((b) => decodeRecords(b));
  for (const max of [1, 9, 500]) {
    const pr = new PartitionRecords('t', 1, 500n, 0, Buffer.concat(batches), 99n, false, null);
    let seen = 0;
    while (!pr.drained) {
      pr.visit(max, (r) => {
        const e = expected[seen++]!;
        const span = (start: number, length: number): Buffer | null => (length < 0 ? null : Buffer.from(r.buffer.subarray(start, start + length)));
        assert.equal(r.offset, Number(e.offset));
        assert.equal(r.timestamp, Number(e.timestamp));
        assert.deepEqual(span(r.keyStart, r.keyLength), e.key);
        assert.deepEqual(span(r.valueStart, r.valueLength), e.value);
        assert.deepEqual(recordHeaders(r), e.headers.map((h) => ({ key: h.key, value: h.value })));
        assert.equal(r.headerCount, e.headers.length);
        assert.equal(r.partition, 1);
        assert.equal(r.leaderEpoch, 4);
      });
    }
    assert.equal(seen, expected.length);
    assert.equal(pr.nextFetchOffset, offset - 3n);
  }
  // false from the visitor: that record is the last one given out; the position is right after it.
  const pr = new PartitionRecords('t', 1, 500n, 0, Buffer.concat(batches), 99n, false, null);
  const offsets: number[] = [];
  assert.equal(pr.visit(100, (r) => { offsets.push(r.offset); return offsets.length < 3; }), 3);
  assert.deepEqual(offsets, expected.slice(0, 3).map((e) => Number(e.offset)));
  assert.equal(pr.nextFetchOffset, expected[3]!.offset);
});

test('PartitionRecords skips records below the fetch position and moves the position per take()', () => {
  const records = Array.from({ length: 10 }, (_, i) => ({ value: Buffer.from(`v${i}`), timestamp: 5 }));
  const blob = encodeRecordBatch({ records, baseOffset: 100n });
  const pr = new PartitionRecords('t', 0, 104n, 0, blob, 110n, false, null);
  const out: ConsumerRecord[] = [];
  assert.equal(pr.take(2, out), 2);
  assert.deepEqual(out.map((r) => r.offset), [104n, 105n]);
  assert.equal(pr.nextFetchOffset, 106n);
  assert.equal(pr.endOffset(), 110n);
  pr.take(100, out);
  assert.deepEqual(out.map((r) => r.value!.toString()), ['v4', 'v5', 'v6', 'v7', 'v8', 'v9']);
  assert.equal(pr.nextFetchOffset, 110n);
});

test('PartitionRecords: a field running past its record is a decode error, not a wrong record', () => {
  const blob = Buffer.from(encodeRecordBatch({ records: [{ value: Buffer.from('abc'), timestamp: 1 }], baseOffset: 0n }));
  // Records section: length, attributes, timestamp delta, offset delta, key length (null),
  // then the value length at index 5: zig-zag 3 = 6. 0x7e claims 63 bytes; the CRC is
  // recomputed so that only the record decoder can notice.
  const section = blob.subarray(RECORDS_OFFSET);
  assert.equal(section[5], 6);
  section[5] = 0x7e;
  blob.writeUInt32BE(crc32c(blob.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  const pr = new PartitionRecords('t', 0, 0n, 0, blob, 1n, false, null);
  assert.throws(() => pr.take(10, []), ProtocolDecodeError);
});
