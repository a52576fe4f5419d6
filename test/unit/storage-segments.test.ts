import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PartitionLog, Storage } from '../../src/storage/index.js';
import { batch, ENGINES, filesIn, makeEnv, NOW, partitionDir, readAll, type StorageEnv } from '../support/storage/helpers.js';

const HOUR = 3_600_000;

for (const kind of ENGINES) {
  describe(`segments and retention (${kind})`, () => {
    let env: StorageEnv;
    let storage: Storage;
    before(async () => {
      env = makeEnv(kind);
      storage = await env.open();
    });
    after(() => env.cleanup());

    function newLog(name: string, configs: Record<string, string>): PartitionLog {
      storage.createTopic(name, 1, configs);
      return storage.partition(name, 0)!;
    }

    function fill(log: PartitionLog, n: number, spec: { timestamp?: number; nowMs?: number } = {}): void {
      for (let i = 0; i < n; i++) log.append(batch({ value: `r${i}`.padEnd(50, '.'), timestamp: spec.timestamp }), { nowMs: spec.nowMs ?? NOW });
    }

    it('rolls when segment.bytes would be exceeded, and reads across segments', () => {
      const log = newLog('roll-size', { 'internal.segment.bytes': '1000' });
      fill(log, 40);
      const segments = log.segments();
      assert.ok(segments.length >= 4, `${segments.length} segments`);
      for (const s of segments) assert.ok(s.sizeInBytes <= 1000);
      // Each segment starts with the batch whose offset is its base offset.
      assert.equal(segments[0]!.baseOffset, 0n);
      for (const s of segments) {
        const first = log.read(s.baseOffset, 1, { minOneBatch: true }).records[0]!;
        assert.equal(first.readBigInt64BE(0), s.baseOffset);
      }
      const all = readAll(log);
      assert.deepEqual(all.map((r) => r.offset), Array.from({ length: 40 }, (_, i) => BigInt(i)));
      if (kind === 'file') {
        const dir = partitionDir(env, 'roll-size');
        assert.equal(filesIn(dir, '.log').length, segments.length);
        assert.equal(filesIn(dir, '.index').length, segments.length);
        assert.equal(filesIn(dir, '.timeindex').length, segments.length);
        assert.equal(filesIn(dir, '.log')[1], `${segments[1]!.baseOffset.toString().padStart(20, '0')}.log`);
      }
    });

    it('rolls when segment.ms has passed between the first batch and a new one', () => {
      const log = newLog('roll-age', { 'segment.ms': '60000' });
      fill(log, 3, { timestamp: NOW });
      assert.equal(log.segments().length, 1);
      fill(log, 1, { timestamp: NOW + 59_000, nowMs: NOW + 59_000 });
      assert.equal(log.segments().length, 1);
      fill(log, 1, { timestamp: NOW + 61_000, nowMs: NOW + 61_000 });
      assert.equal(log.segments().length, 2);
      assert.equal(log.segments()[1]!.baseOffset, 4n);
    });

    it('deletes segments older than retention.ms and advances the log start offset', () => {
      const log = newLog('retention-time', { 'internal.segment.bytes': '1000', 'retention.ms': String(HOUR) });
      fill(log, 20, { timestamp: NOW - 3 * HOUR });
      const oldSegments = log.segments().length;
      fill(log, 20, { timestamp: NOW });
      const before = log.segments();
      storage.enforceRetention(NOW);
      const remaining = log.segments();
      assert.ok(remaining.length < before.length);
      // Segments holding only old records went; the one where old and new meet stays.
      assert.equal(remaining.length, before.length - oldSegments + 1);
      assert.equal(log.logStartOffset, remaining[0]!.baseOffset);
      assert.ok(log.logStartOffset > 0n);
      const all = readAll(log);
      assert.equal(all[0]!.offset, log.logStartOffset);
      assert.equal(all.at(-1)!.offset, 39n);
      assert.throws(() => log.read(0n, 100, { minOneBatch: true }), /OFFSET_OUT_OF_RANGE/);
      if (kind === 'file') assert.equal(filesIn(partitionDir(env, 'retention-time'), '.log').length, remaining.length);
    });

    it('deletes the oldest segments beyond retention.bytes', () => {
      const log = newLog('retention-size', { 'internal.segment.bytes': '1000', 'retention.bytes': '2500' });
      fill(log, 60);
      storage.enforceRetention(NOW);
      assert.ok(log.sizeInBytes <= 2500 + 1000, `${log.sizeInBytes} bytes left`);
      assert.ok(log.sizeInBytes > 1500);
      assert.equal(log.logStartOffset, log.segments()[0]!.baseOffset);
      assert.equal(log.logEndOffset, 60n);
      assert.equal(readAll(log).at(-1)!.offset, 59n);
    });

    it('rolls and deletes every segment when all are expired, keeping the log end offset', () => {
      const log = newLog('retention-all', { 'retention.ms': String(HOUR) });
      fill(log, 5, { timestamp: NOW - 2 * HOUR });
      storage.enforceRetention(NOW);
      assert.deepEqual(log.segments(), [{ baseOffset: 5n, sizeInBytes: 0 }]);
      assert.equal(log.logStartOffset, 5n);
      assert.equal(log.logEndOffset, 5n);
      assert.equal(log.append(batch(), { nowMs: NOW }).baseOffset, 5n);
    });

    it('keeps everything with cleanup.policy=compact (no compaction, no deletion)', () => {
      const log = newLog('compacted', { 'cleanup.policy': 'compact', 'retention.ms': '1', 'internal.segment.bytes': '1000' });
      fill(log, 30, { timestamp: NOW - HOUR });
      const before = log.segments().length;
      storage.enforceRetention(NOW);
      assert.equal(log.segments().length, before);
      assert.equal(log.logStartOffset, 0n);
    });

    it('rolls when the offset index is full (segment.index.bytes)', () => {
      const log = newLog('index-full', { 'segment.index.bytes': '16', 'index.interval.bytes': '0' });
      fill(log, 10);
      assert.ok(log.segments().length >= 3, `${log.segments().length} segments`);
      assert.equal(readAll(log).length, 10);
    });
  });
}
