import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  CompressionType,
  decodeRecordBatch,
  encodeRecordBatch,
  iterateBatches,
  validateBatch,
  type RecordBatchHeader,
} from '../../src/protocol/records/index.js';
import { swapSteps } from '../../src/storage/file-swap.js';
import { openFileStorage, type PartitionLog, type Storage } from '../../src/storage/index.js';
import { silentLogger } from '../../src/util/log.js';
import { ENGINES, makeEnv, NOW, partitionDir, tempDir, type StorageEnv } from '../support/storage/helpers.js';

const COMPACT = { 'cleanup.policy': 'compact', 'internal.segment.bytes': '600' };

interface Rec {
  key: string | null;
  value: string | null;
}

function keyed(records: readonly Rec[], extra: { compression?: CompressionType; producerId?: bigint; sequence?: number; timestamp?: number } = {}): Buffer {
  return encodeRecordBatch({
    records: records.map((r) => ({
      key: r.key === null ? null : Buffer.from(r.key),
      value: r.value === null ? null : Buffer.from(r.value),
      timestamp: extra.timestamp ?? NOW,
    })),
    compression: extra.compression,
    producerId: extra.producerId,
    producerEpoch: extra.producerId === undefined ? undefined : 0,
    baseSequence: extra.sequence,
  });
}

interface Read extends Rec {
  offset: bigint;
}

/** Reads the whole log as a Kafka consumer does: whole batches, the position moving past each batch's last offset. */
function readLog(log: PartitionLog): { records: Read[]; headers: RecordBatchHeader[] } {
  const records: Read[] = [];
  const headers: RecordBatchHeader[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const result = log.read(offset, 1 << 30, { minOneBatch: true });
    let advanced = false;
    for (const chunk of result.records) {
      for (const view of iterateBatches(chunk)) {
        validateBatch(view.buffer);
        const batch = decodeRecordBatch(view.buffer);
        if (batch.header.lastOffset < offset) continue;
        headers.push(batch.header);
        for (const r of batch.records) {
          if (r.offset < offset) continue;
          records.push({ offset: r.offset, key: r.key?.toString() ?? null, value: r.value?.toString() ?? null });
        }
        offset = batch.header.lastOffset + 1n;
        advanced = true;
      }
    }
    assert.ok(advanced, `read at ${offset} returned nothing`);
  }
  return { records, headers };
}

/** What compaction must leave: below `cleanedBelow`, the newest record per key of that range (and keyless ones). */
function expected(all: readonly Read[], cleanedBelow: bigint, dropTombstones = false): Read[] {
  const newest = new Map<string, bigint>();
  for (const r of all) if (r.offset < cleanedBelow && r.key !== null) newest.set(r.key, r.offset);
  return all.filter((r) => {
    if (r.offset >= cleanedBelow || r.key === null) return true;
    if (newest.get(r.key) !== r.offset) return false;
    return !(dropTombstones && r.value === null);
  });
}

function activeBase(log: PartitionLog): bigint {
  return log.segments().at(-1)!.baseOffset;
}

for (const kind of ENGINES) {
  describe(`log compaction (${kind})`, () => {
    let env: StorageEnv;
    let storage: Storage;
    before(async () => {
      env = makeEnv(kind);
      storage = await env.open();
    });
    after(() => env.cleanup());

    function newLog(name: string, configs: Record<string, string> = {}): PartitionLog {
      storage.createTopic(name, 1, { ...COMPACT, ...configs });
      return storage.partition(name, 0)!;
    }

    it('keeps the newest record per key in sealed segments, offsets unchanged, the active segment untouched', async () => {
      const log = newLog('overwrite');
      for (let i = 0; i < 300; i++) {
        const records = i % 7 === 0 ? [{ key: `k${i % 10}`, value: `a${i}` }, { key: `k${(i + 3) % 10}`, value: `b${i}` }] : [{ key: `k${i % 10}`, value: `v${i}` }];
        log.append(keyed(records), { nowMs: NOW });
      }
      const before = readLog(log).records;
      const segmentsBefore = log.segments();
      const active = segmentsBefore.at(-1)!;
      const leo = log.logEndOffset;
      const stats = await storage.cleanLogs(NOW);
      assert.equal(stats.partitionsCleaned, 1);
      assert.ok(stats.bytesAfter < stats.bytesBefore / 4, `${stats.bytesBefore} -> ${stats.bytesAfter}`);
      const after = readLog(log).records;
      assert.deepEqual(after, expected(before, active.baseOffset));
      assert.equal(log.logEndOffset, leo);
      assert.equal(log.logStartOffset, 0n);
      assert.deepEqual(log.segments().at(-1), active);
      // Every offset still reads (gaps land on the next kept batch), and appends go on.
      for (let o = 0n; o < leo; o += 13n) assert.ok(log.read(o, 100, { minOneBatch: true }).records.length > 0);
      assert.equal(log.append(keyed([{ key: 'k1', value: 'later' }]), { nowMs: NOW }).baseOffset, leo);
      // A second pass with nothing new to clean does nothing.
      assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 0);
      // New overwrites make the log dirty again; the small cleaned segments are merged (by segment.bytes).
      for (let i = 0; i < 200; i++) log.append(keyed([{ key: `k${i % 10}`, value: `w${i}` }]), { nowMs: NOW });
      const again = readLog(log).records;
      const sealed = log.segments().length - 1;
      const cleanedBelow = activeBase(log);
      assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 1);
      assert.deepEqual(readLog(log).records, expected(again, cleanedBelow));
      assert.ok(log.segments().length - 1 < sealed / 2, `${sealed} sealed segments -> ${log.segments().length - 1}`);
      for (const s of log.segments()) assert.ok(s.sizeInBytes <= 600);
    });

    it('keeps tombstones for delete.retention.ms after their first clean, then drops them', async () => {
      const log = newLog('tombstones', { 'delete.retention.ms': '60000' });
      log.append(keyed([{ key: 'gone', value: 'x' }, { key: 'stays', value: 'y' }]), { nowMs: NOW });
      log.append(keyed([{ key: 'gone', value: null }]), { nowMs: NOW });
      for (let i = 0; i < 40; i++) log.append(keyed([{ key: `f${i % 4}`, value: 'filler'.repeat(10) }]), { nowMs: NOW });
      const all = readLog(log).records;
      const cleanedBelow = activeBase(log);
      await storage.cleanLogs(NOW);
      assert.deepEqual(readLog(log).records, expected(all, cleanedBelow));
      assert.ok(readLog(log).records.some((r) => r.key === 'gone' && r.value === null));
      assert.equal((await storage.cleanLogs(NOW + 59_999)).partitionsCleaned, 0);
      assert.ok(readLog(log).records.some((r) => r.key === 'gone' && r.value === null));
      assert.equal((await storage.cleanLogs(NOW + 60_000)).partitionsCleaned, 1);
      const left = readLog(log).records;
      assert.deepEqual(left, expected(all, cleanedBelow, true));
      assert.ok(!left.some((r) => r.key === 'gone'));
      assert.ok(left.some((r) => r.key === 'stays' && r.offset === 1n));
    });

    it('respects min.compaction.lag.ms and min.cleanable.dirty.ratio', async () => {
      const log = newLog('lag', { 'min.compaction.lag.ms': '60000' });
      for (let i = 0; i < 60; i++) log.append(keyed([{ key: `k${i % 3}`, value: 'v'.repeat(40) }]), { nowMs: NOW });
      const size = log.sizeInBytes;
      assert.equal((await storage.cleanLogs(NOW + 30_000)).partitionsCleaned, 0);
      assert.equal(log.sizeInBytes, size);
      assert.equal((await storage.cleanLogs(NOW + 60_000)).partitionsCleaned, 1);
      assert.ok(log.sizeInBytes < size);
      // A little new dirty data after a clean stays below the default ratio of 0.5.
      const ratio = newLog('ratio');
      for (let i = 0; i < 60; i++) ratio.append(keyed([{ key: `u${i}`, value: 'v'.repeat(40) }]), { nowMs: NOW });
      assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 1);
      for (let i = 0; i < 12; i++) ratio.append(keyed([{ key: `u${i}`, value: 'w'.repeat(40) }]), { nowMs: NOW });
      assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 0);
    });

    it('rewrites compressed batches with their codec and a valid CRC', async () => {
      const log = newLog('compressed', { 'internal.segment.bytes': '2000' });
      const codecs = [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];
      for (let i = 0; i < 40; i++) {
        const records = Array.from({ length: 5 }, (_, j) => ({ key: `k${(i * 5 + j) % 12}`, value: `value-${i}-${j}`.repeat(5) }));
        log.append(keyed(records, { compression: codecs[i % 4] }), { nowMs: NOW });
      }
      const before = readLog(log);
      const cleanedBelow = activeBase(log);
      await storage.cleanLogs(NOW);
      const after = readLog(log);
      assert.deepEqual(after.records, expected(before.records, cleanedBelow));
      // readLog validated every CRC; base offsets and codecs are the original batches'.
      const original = new Map(before.headers.map((h) => [h.baseOffset, h]));
      for (const h of after.headers) {
        const o = original.get(h.baseOffset)!;
        assert.equal(h.compression, o.compression);
        assert.equal(h.lastOffsetDelta, o.lastOffsetDelta);
      }
      assert.ok(after.headers.length < before.headers.length);
    });

    it("keeps an idempotent producer's last batch, emptied, so its sequence goes on", async () => {
      const log = newLog('producer', { 'internal.segment.bytes': '400' });
      log.append(keyed([{ key: 'a', value: '1' }, { key: 'b', value: '1' }], { producerId: 7n, sequence: 0 }), { nowMs: NOW });
      for (let i = 0; i < 20; i++) log.append(keyed([{ key: i % 2 ? 'a' : 'b', value: `x${i}`.repeat(10) }]), { nowMs: NOW });
      await storage.cleanLogs(NOW);
      const { headers } = readLog(log);
      const kept = headers.find((h) => h.producerId === 7n)!;
      assert.equal(kept.recordCount, 0);
      assert.equal(kept.baseOffset, 0n);
      assert.equal(kept.lastOffsetDelta, 1);
      assert.equal(kept.baseSequence, 0);
      const next = log.append(keyed([{ key: 'a', value: '2' }], { producerId: 7n, sequence: 2 }), { nowMs: NOW });
      assert.equal(next.duplicate, false);
    });
  });
}

describe('log compaction on disk', () => {
  let env: StorageEnv;
  afterEach(async () => {
    swapSteps.onStep = null;
    await env.cleanup();
  });

  it('survives a restart; a crash at every step of the swap leaves the old or the new segments', async () => {
    env = makeEnv('file');
    const storage = await env.open();
    storage.createTopic('crash', 1, COMPACT);
    const log = storage.partition('crash', 0)!;
    // A key written once: the first group keeps a record, so its swap is visible.
    log.append(keyed([{ key: 'once', value: 'stays' }]), { nowMs: NOW });
    for (let i = 0; i < 120; i++) log.append(keyed([{ key: `k${i % 6}`, value: `v${i}`.repeat(4) }]), { nowMs: NOW });
    await storage.flush();
    const before = readLog(log).records;
    const cleaned = expected(before, activeBase(log));
    // Each sealed segment is its own group: the snapshots show the first one's swap.
    const boundary = log.segments()[1]!.baseOffset;
    assert.ok(cleaned.filter((r) => r.offset < boundary).length < before.filter((r) => r.offset < boundary).length);
    assert.ok(cleaned.some((r) => r.offset < boundary));
    const dir = partitionDir(env, 'crash');
    const snapshots: { step: string; dir: string }[] = [];
    swapSteps.onStep = (step, at) => {
      if (at !== dir || snapshots.some((s) => s.step === step)) return;
      const copy = tempDir('brook-swap-');
      fs.cpSync(env.dir, copy, { recursive: true });
      snapshots.push({ step, dir: copy });
    };
    await storage.cleanLogs(NOW);
    swapSteps.onStep = null;
    assert.deepEqual(readLog(log).records, cleaned);
    assert.deepEqual(snapshots.map((s) => s.step), ['cleaned', 'swap', 'deleted', 'live', 'done']);
    await storage.close();

    const reopened = await env.open();
    assert.deepEqual(readLog(reopened.partition('crash', 0)!).records, cleaned);
    await reopened.close();

    for (const snapshot of snapshots) {
      // The copy has no clean-shutdown marker: the storage opens it as after a kill -9.
      const copy = await openFileStorage(snapshot.dir, { clock: () => NOW });
      try {
        const records = readLog(copy.partition('crash', 0)!).records;
        const { step } = snapshot;
        const below = (rs: Read[]) => rs.filter((r) => r.offset < boundary);
        assert.deepEqual(below(records), below(step === 'cleaned' ? before : cleaned), step);
        assert.deepEqual(records.filter((r) => r.offset >= boundary), before.filter((r) => r.offset >= boundary), step);
        const leftovers = fs.readdirSync(join(snapshot.dir, 'crash-0')).filter((n) => /\.(cleaned|swap|deleted)$/.test(n));
        assert.deepEqual(leftovers, [], step);
      } finally {
        await copy.close();
        fs.rmSync(snapshot.dir, { recursive: true, force: true });
      }
    }
  });
});

describe('compaction of a log reopened from disk', () => {
  it('an empty compacted partition whose segment file has a fractional mtime is cleaned without error', async () => {
    const env = makeEnv('file');
    try {
      const storage = await env.open();
      storage.createTopic('empty', 1, COMPACT);
      await storage.close();
      // File systems keep sub-millisecond mtimes; Node reports them as a fractional mtimeMs.
      for (const name of fs.readdirSync(partitionDir(env, 'empty')).filter((n) => n.endsWith('.log'))) {
        fs.utimesSync(join(partitionDir(env, 'empty'), name), (NOW - 1000.25) / 1000, (NOW - 1000.25) / 1000);
      }
      const errors: string[] = [];
      const log = { ...silentLogger, error: (msg: string, fields?: Record<string, unknown>) => void errors.push(`${msg} ${String(fields?.['err'])}`) };
      const reopened = await env.open({ log: { ...log, child: () => log } });
      await reopened.cleanLogs(NOW);
      assert.deepEqual(errors, []);
    } finally {
      await env.cleanup();
    }
  });
});
