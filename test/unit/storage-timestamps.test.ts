import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CompressionType, decodeRecordBatch, readBatchHeader, setMaxTimestamp, TimestampType, validateBatch } from '../../src/protocol/records/index.js';
import type { PartitionLog, Storage } from '../../src/storage/index.js';
import { batch, ENGINES, errorCodeOf, makeEnv, NOW, recordsOf, type StorageEnv } from '../support/storage/helpers.js';

const HOUR = 3_600_000;

for (const kind of ENGINES) {
  describe(`timestamps (${kind})`, () => {
    let env: StorageEnv;
    let storage: Storage;
    before(async () => {
      env = makeEnv(kind);
      storage = await env.open();
    });
    after(() => env.cleanup());

    function newLog(name: string, configs: Record<string, string> = {}): PartitionLog {
      storage.createTopic(name, 1, configs);
      return storage.partition(name, 0)!;
    }

    it('stamps LogAppendTime topics with the broker time and a valid CRC', () => {
      const log = newLog('append-time', { 'message.timestamp.type': 'LogAppendTime' });
      const r = log.append(batch({ count: 3, timestamp: NOW - 5 * HOUR }), { nowMs: NOW });
      assert.equal(r.logAppendTimeMs, BigInt(NOW));
      const stored = log.read(0n, 1 << 20, { minOneBatch: true }).records[0]!;
      const h = validateBatch(stored);
      assert.equal(h.timestampType, TimestampType.LogAppendTime);
      assert.equal(h.maxTimestamp, BigInt(NOW));
      assert.ok(recordsOf([stored]).every((rec) => rec.timestamp === BigInt(NOW)));
    });

    it('refuses producer-set LogAppendTime on a LogAppendTime topic', () => {
      const log = newLog('append-time-forged', { 'message.timestamp.type': 'LogAppendTime' });
      const b = batch({ timestampType: TimestampType.LogAppendTime });
      assert.equal(errorCodeOf(() => log.append(b, { nowMs: NOW })), ErrorCode.INVALID_TIMESTAMP);
    });

    it('enforces message.timestamp.before/after.max.ms on CreateTime topics', () => {
      const log = newLog('bounds', { 'message.timestamp.before.max.ms': String(HOUR) });
      // Kafka 4's default message.timestamp.after.max.ms is one hour.
      assert.equal(errorCodeOf(() => log.append(batch({ timestamp: NOW + 2 * HOUR }), { nowMs: NOW })), ErrorCode.INVALID_TIMESTAMP);
      assert.equal(errorCodeOf(() => log.append(batch({ timestamp: NOW - 2 * HOUR }), { nowMs: NOW })), ErrorCode.INVALID_TIMESTAMP);
      // The first record is checked too, not only the batch's largest timestamp.
      const mixed = batch({ count: 2, timestamp: (i) => (i === 0 ? NOW - 2 * HOUR : NOW) });
      assert.equal(errorCodeOf(() => log.append(mixed, { nowMs: NOW })), ErrorCode.INVALID_TIMESTAMP);
      assert.equal(log.logEndOffset, 0n);
      log.append(batch({ timestamp: NOW + HOUR - 1 }), { nowMs: NOW });
      log.append(batch({ timestamp: NOW - HOUR + 1 }), { nowMs: NOW });
      assert.equal(log.logEndOffset, 2n);
    });

    it('finds the first record with a timestamp at or after a target (ListOffsets)', () => {
      const log = newLog('by-time', { 'index.interval.bytes': '100', 'internal.segment.bytes': '2000' });
      // Batch i holds records at NOW + 10i and NOW + 10i + 5 (offsets 2i, 2i+1).
      for (let i = 0; i < 60; i++) log.append(batch({ count: 2, timestamp: (j) => NOW + 10 * i + 5 * j }), { nowMs: NOW });
      assert.ok(log.segments().length > 2);
      assert.deepEqual(log.offsetForTimestamp(BigInt(NOW)), { offset: 0n, timestamp: BigInt(NOW) });
      assert.deepEqual(log.offsetForTimestamp(0n), { offset: 0n, timestamp: BigInt(NOW) });
      // Record-level, as Kafka: the second record of batch 30.
      assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 303)), { offset: 61n, timestamp: BigInt(NOW + 305) });
      assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 306)), { offset: 62n, timestamp: BigInt(NOW + 310) });
      assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 595)), { offset: 119n, timestamp: BigInt(NOW + 595) });
      assert.equal(log.offsetForTimestamp(BigInt(NOW + 596)), null);
    });

    it('finds records inside compressed batches', () => {
      const log = newLog('by-time-compressed');
      log.append(batch({ count: 4, timestamp: (j) => NOW + j * 10, compression: CompressionType.Gzip }), { nowMs: NOW });
      assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 15)), { offset: 2n, timestamp: BigInt(NOW + 20) });
    });

    it('reports the first record with the largest timestamp (MAX_TIMESTAMP)', () => {
      const log = newLog('max-time', { 'internal.segment.bytes': '1000' });
      assert.equal(log.maxTimestamp(), null);
      for (let i = 0; i < 30; i++) {
        // The peak sits in the middle record of batch 7 (offsets 21-23), then is repeated later.
        const peak = i === 7 || i === 20;
        log.append(batch({ count: 3, timestamp: (j) => (peak && j === 1 ? NOW + 1000 : NOW + i) }), { nowMs: NOW });
      }
      assert.deepEqual(log.maxTimestamp(), { offset: 22n, timestamp: BigInt(NOW + 1000) });
    });

    it('reports LogAppendTime batches by their first offset', () => {
      const log = newLog('max-time-append', { 'message.timestamp.type': 'LogAppendTime' });
      log.append(batch({ count: 2 }), { nowMs: NOW });
      log.append(batch({ count: 2 }), { nowMs: NOW + 50 });
      log.append(batch({ count: 2 }), { nowMs: NOW + 10 });
      assert.deepEqual(log.maxTimestamp(), { offset: 2n, timestamp: BigInt(NOW + 50) });
      assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 1)), { offset: 2n, timestamp: BigInt(NOW + 50) });
    });

    /** A batch whose header claims `claimed` as max timestamp, CRC valid (as KafkaJS writes it). */
    function misstated(records: Buffer, claimed: number): Buffer {
      setMaxTimestamp(records, 0, TimestampType.CreateTime, BigInt(claimed));
      return records;
    }

    for (const compression of [CompressionType.None, CompressionType.Gzip]) {
      it(`stores the records' max timestamp when the header's is wrong (LogValidator), CRC valid (codec ${compression})`, () => {
        const log = newLog(`misstated-max-${compression}`, { 'index.interval.bytes': '1' });
        log.append(batch({ count: 2, timestamp: NOW - HOUR }), { nowMs: NOW });
        // Records at NOW - HOUR and NOW; the header says NOW - HOUR.
        log.append(misstated(batch({ count: 2, timestamp: (i) => (i === 0 ? NOW - HOUR : NOW), compression }), NOW - HOUR), { nowMs: NOW });
        const stored = log.read(2n, 1 << 20, { minOneBatch: true }).records[0]!;
        const decoded = decodeRecordBatch(stored); // checks the CRC
        assert.equal(decoded.header.maxTimestamp, BigInt(NOW));
        assert.deepEqual(decoded.records.map((r) => r.timestamp), [BigInt(NOW - HOUR), BigInt(NOW)]);
        assert.deepEqual(log.offsetForTimestamp(BigInt(NOW - HOUR / 2)), { offset: 3n, timestamp: BigInt(NOW) });
        assert.deepEqual(log.maxTimestamp(), { offset: 3n, timestamp: BigInt(NOW) });
      });
    }

    it('lowers a header max timestamp above every record (Kafka sets the records\' max either way)', () => {
      const log = newLog('overstated-max');
      log.append(misstated(batch({ count: 2, timestamp: (i) => NOW - 10 + i }), NOW + 1000), { nowMs: NOW });
      const stored = log.read(0n, 1 << 20, { minOneBatch: true }).records[0]!;
      assert.equal(validateBatch(stored).maxTimestamp, BigInt(NOW - 9));
      assert.equal(log.offsetForTimestamp(BigInt(NOW)), null);
    });

    for (const compression of [CompressionType.None, CompressionType.Gzip]) {
      it(`stores a batch with a right header as produced, CRC included (codec ${compression})`, () => {
        const log = newLog(`right-max-${compression}`);
        const produced = batch({ count: 3, timestamp: (i) => NOW - 100 * i, compression });
        const original = Buffer.from(produced);
        log.append(produced, { nowMs: NOW });
        const stored = log.read(0n, 1 << 20, { minOneBatch: true }).records[0]!;
        // Only the base offset (0 here) and the leader epoch, both outside the CRC, are the broker's.
        assert.deepEqual(stored.subarray(0, 8), original.subarray(0, 8));
        assert.deepEqual(stored.subarray(16), original.subarray(16));
      });
    }

    it('checks every record\'s timestamp, not only the first and the largest', () => {
      const log = newLog('middle-record', { 'message.timestamp.before.max.ms': String(HOUR) });
      const b = batch({ count: 3, timestamp: (i) => (i === 1 ? NOW - 2 * HOUR : NOW) });
      assert.equal(errorCodeOf(() => log.append(b, { nowMs: NOW })), ErrorCode.INVALID_TIMESTAMP);
      const gz = batch({ count: 3, timestamp: (i) => (i === 1 ? NOW - 2 * HOUR : NOW), compression: CompressionType.Gzip });
      assert.equal(errorCodeOf(() => log.append(gz, { nowMs: NOW })), ErrorCode.INVALID_TIMESTAMP);
      assert.equal(log.logEndOffset, 0n);
    });

    it('rewrites a producer-set LogAppendTime flag to CreateTime on CreateTime topics', () => {
      const log = newLog('create-time-flag');
      log.append(batch({ timestampType: TimestampType.LogAppendTime }), { nowMs: NOW });
      const h = readBatchHeader(log.read(0n, 1 << 20, { minOneBatch: true }).records[0]!);
      assert.equal(h.timestampType, TimestampType.CreateTime);
    });
  });
}
