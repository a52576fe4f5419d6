import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProtocolDecodeError } from '../../src/protocol/primitives/decode-error.js';
import {
  CompressionType,
  decodeRecordBatch,
  encodeRecordBatch,
  iterateBatches,
  updateBatchCrc,
  validateBatch,
  type RecordInput,
} from '../../src/protocol/records/index.js';

const bytes = fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));
const nullableBytes = fc.option(bytes, { nil: null });
// fast-check builds records with a null prototype; spread them so deepEqual compares like with like.
const headerArb = fc.record({ key: fc.string({ maxLength: 8 }), value: nullableBytes }).map((h) => ({ ...h }));
const recordArb: fc.Arbitrary<RecordInput> = fc
  .record({
    key: nullableBytes,
    value: nullableBytes,
    headers: fc.array(headerArb, { maxLength: 3 }),
    timestamp: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }),
  })
  .map((r) => ({ ...r }));
const codecArb = fc.constantFrom(CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd);

/** The only acceptable failure: a typed decode error. Anything else (RangeError, TypeError, a native error) fails the test. */
function decodeOrTypedError(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof ProtocolDecodeError)) throw err;
  }
}

test('round trip for arbitrary records and codecs', () => {
  fc.assert(
    fc.property(fc.array(recordArb, { maxLength: 20 }), codecArb, fc.bigInt({ min: 0n, max: 2n ** 62n }), (records, compression, baseOffset) => {
      const decoded = decodeRecordBatch(encodeRecordBatch({ baseOffset, compression, records }));
      assert.equal(decoded.records.length, records.length);
      decoded.records.forEach((record, i) => {
        const input = records[i]!;
        assert.equal(record.offset, baseOffset + BigInt(i));
        assert.equal(record.timestamp, input.timestamp);
        assert.deepEqual(record.key, input.key);
        assert.deepEqual(record.value, input.value);
        assert.deepEqual(record.headers, input.headers);
      });
    }),
    { numRuns: 300 },
  );
});

// A fixed set of valid batches, one or two per codec, to mutate.
const seeds: Buffer[] = [];
for (const compression of [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd]) {
  for (const count of [1, 12]) {
    seeds.push(
      encodeRecordBatch({
        compression,
        baseOffset: 42n,
        records: Array.from({ length: count }, (_, i) => ({
          key: i % 2 ? null : Buffer.from(`k${i}`),
          value: Buffer.from(`value-${i}-`.repeat(i + 1)),
          headers: i % 3 ? [] : [{ key: `h${i}`, value: i % 2 ? null : Buffer.from('hv') }],
          timestamp: 1000 + i,
        })),
      }),
    );
  }
}

const mutation = fc.record({
  seed: fc.nat({ max: seeds.length - 1 }),
  edits: fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 4 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
  fixCrc: fc.boolean(),
});

test('mutated and truncated batches only ever throw the typed decode error', () => {
  fc.assert(
    fc.property(mutation, ({ seed, edits, cut, fixCrc }) => {
      const original = seeds[seed]!;
      let batch = Buffer.from(original);
      for (const { at, value } of edits) batch[at % batch.length] = value;
      if (cut !== undefined) batch = batch.subarray(0, cut % (batch.length + 1));
      // Re-sealing the CRC lets mutations reach the decompressors and the record parser.
      if (fixCrc) decodeOrTypedError(() => updateBatchCrc(batch));
      decodeOrTypedError(() => validateBatch(batch));
      decodeOrTypedError(() => [...iterateBatches(batch)]);
      decodeOrTypedError(() => {
        const decoded = decodeRecordBatch(batch, { verifyCrc: false, maxDecompressedBytes: 1 << 20 });
        // Whatever was decoded cost no more than the (decompressed) bytes allow.
        assert.ok(decoded.allocated <= 2 * Math.max(batch.length, 1 << 20));
      });
    }),
    { numRuns: 3000 },
  );
});

test('random blobs never crash the batch splitter or decoder', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (array) => {
      const blob = Buffer.from(array);
      decodeOrTypedError(() => {
        for (const view of iterateBatches(blob)) decodeRecordBatch(view.buffer, { verifyCrc: false });
      });
      decodeOrTypedError(() => decodeRecordBatch(blob, { verifyCrc: false }));
    }),
    { numRuns: 2000 },
  );
});
