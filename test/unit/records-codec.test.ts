import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolDecodeError } from '../../src/protocol/primitives/decode-error.js';
import {
  ATTRIBUTES_OFFSET,
  ControlRecordType,
  CorruptRecordError,
  decodeControlRecordKey,
  decodeEndTxnMarker,
  decodeRecordBatch,
  encodeControlRecordKey,
  encodeEndTxnMarker,
  encodeRecordBatch,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  type CorruptRecordReason,
} from '../../src/protocol/records/index.js';

function rejects(fn: () => unknown, reason?: CorruptRecordReason): void {
  assert.throws(fn, (err: unknown) => {
    if (reason === undefined) return err instanceof ProtocolDecodeError;
    return err instanceof CorruptRecordError && err.reason === reason;
  });
}

test('round trip: nulls, empty and unicode headers, negative and large timestamp deltas, sparse offsets', () => {
  const big = Buffer.alloc(300_000, 0xab);
  const batch = encodeRecordBatch({
    baseOffset: 100n,
    isTransactional: true,
    producerId: 9_007_199_254_740_993n,
    producerEpoch: 2,
    baseSequence: 2_147_483_000,
    records: [
      { key: null, value: null, timestamp: 5_000_000_000_000n },
      { key: Buffer.alloc(0), value: big, headers: [{ key: '', value: Buffer.alloc(0) }, { key: 'ключ ✓', value: null }], timestamp: 1n },
      { key: Buffer.from('k'), value: Buffer.from('v'), timestamp: -5_000_000_000_000n, offsetDelta: 7 },
    ],
  });
  const decoded = decodeRecordBatch(batch);
  assert.equal(decoded.header.isTransactional, true);
  assert.equal(decoded.header.producerId, 9_007_199_254_740_993n);
  assert.equal(decoded.header.lastOffsetDelta, 7);
  assert.equal(decoded.header.baseTimestamp, 5_000_000_000_000n);
  assert.equal(decoded.header.maxTimestamp, 5_000_000_000_000n);
  assert.equal(decoded.control, null);
  const [a, b, c] = decoded.records;
  assert.deepEqual(a, { offset: 100n, timestamp: 5_000_000_000_000n, key: null, value: null, headers: [] });
  assert.equal(b!.offset, 101n);
  assert.equal(b!.timestamp, 1n);
  assert.ok(b!.value!.equals(big));
  assert.deepEqual(b!.headers, [
    { key: '', value: Buffer.alloc(0) },
    { key: 'ключ ✓', value: null },
  ]);
  assert.equal(c!.offset, 107n);
  assert.equal(c!.timestamp, -5_000_000_000_000n);
  // Allocation is bounded by the wire: 3 record slots, 2 header slots, 9 bytes of header keys.
  assert.equal(decoded.allocated, 3 + 2 + Buffer.byteLength('ключ ✓'));
});

test('many records round trip', () => {
  const records = Array.from({ length: 10_000 }, (_, i) => ({
    key: Buffer.from(String(i)),
    value: i % 3 === 0 ? null : Buffer.from(`value ${i}`),
    headers: i % 5 === 0 ? [{ key: 'i', value: Buffer.from([i & 0xff]) }] : [],
    timestamp: 1_600_000_000_000 + i,
  }));
  const decoded = decodeRecordBatch(encodeRecordBatch({ records }));
  assert.equal(decoded.records.length, records.length);
  assert.equal(decoded.header.lastOffsetDelta, records.length - 1);
  assert.equal(decoded.header.maxTimestamp, BigInt(1_600_000_000_000 + records.length - 1));
  decoded.records.forEach((record, i) => {
    assert.equal(record.offset, BigInt(i));
    assert.deepEqual(record.key, records[i]!.key);
    assert.deepEqual(record.value, records[i]!.value);
    assert.deepEqual(record.headers, records[i]!.headers);
  });
});

test('empty batch', () => {
  const batch = encodeRecordBatch({ baseOffset: 3n, records: [] });
  assert.equal(batch.length, RECORDS_OFFSET);
  const decoded = decodeRecordBatch(batch);
  assert.equal(decoded.records.length, 0);
  assert.equal(decoded.header.maxTimestamp, -1n);
});

test('control batches: transaction markers are parsed for consumers', () => {
  const batch = encodeRecordBatch({
    baseOffset: 50n,
    isTransactional: true,
    isControl: true,
    producerId: 7n,
    producerEpoch: 1,
    records: [{ key: encodeControlRecordKey(ControlRecordType.Commit), value: encodeEndTxnMarker(12), timestamp: 5 }],
  });
  const decoded = decodeRecordBatch(batch);
  assert.equal(decoded.header.isControl, true);
  assert.deepEqual(decoded.control, { version: 0, type: ControlRecordType.Commit });
  assert.deepEqual(decodeEndTxnMarker(decoded.records[0]!.value), { version: 0, coordinatorEpoch: 12 });
  assert.equal(decodeControlRecordKey(encodeControlRecordKey(ControlRecordType.Abort)).type, ControlRecordType.Abort);
  rejects(() => decodeControlRecordKey(Buffer.from([0, 0, 1])), 'invalid-control-record');
  rejects(() => decodeControlRecordKey(null), 'invalid-control-record');
  rejects(() => decodeEndTxnMarker(Buffer.from([0xff, 0xff, 0, 0, 0, 0])), 'invalid-control-record');

  const malformed = encodeRecordBatch({ isControl: true, records: [{ key: Buffer.from([0]), timestamp: 1 }] });
  rejects(() => decodeRecordBatch(malformed), 'invalid-control-record');
});

test('record-level corruption behind a valid CRC is a decode error', () => {
  const good = encodeRecordBatch({ records: [{ key: Buffer.from('abc'), value: Buffer.from('def'), timestamp: 1 }] });

  const tooMany = Buffer.from(good);
  tooMany.writeInt32BE(1_000_000, RECORDS_COUNT_OFFSET);
  rejects(() => decodeRecordBatch(tooMany, { verifyCrc: false }), 'invalid-record-count');

  const negative = Buffer.from(good);
  negative.writeInt32BE(-1, RECORDS_COUNT_OFFSET);
  rejects(() => decodeRecordBatch(negative, { verifyCrc: false }), 'invalid-record-count');

  const tooFew = Buffer.from(good);
  tooFew.writeInt32BE(0, RECORDS_COUNT_OFFSET);
  rejects(() => decodeRecordBatch(tooFew, { verifyCrc: false }), 'invalid-record-count');

  const hugeKey = Buffer.from(good);
  hugeKey[RECORDS_OFFSET + 4] = 0x7e; // key length 63: more than the record holds
  rejects(() => decodeRecordBatch(hugeKey, { verifyCrc: false }));

  const unknownCodec = Buffer.from(good);
  unknownCodec[ATTRIBUTES_OFFSET + 1] = 0x05;
  rejects(() => decodeRecordBatch(unknownCodec, { verifyCrc: false }), 'unknown-compression');
});
