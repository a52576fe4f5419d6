/**
 * The log cleaner's worker thread (src/storage/cleaner-thread.ts, cleaner-worker.ts):
 *  - random compacted logs cleaned in the worker come out byte for byte as the in-thread
 *    cleaner (`cleanerThread: 'inline'`, the code path the cleaner had before the worker)
 *    leaves them, segment files and indexes included, and as the memory engine reads them;
 *  - closing the storage mid-clean aborts it and joins the thread (also when the worker does
 *    not answer: it is terminated after the grace period);
 *  - a worker that dies is logged, the log stays as it was and the next pass retries;
 *  - an idle worker does not keep a process alive, a busy one does until it answers;
 *  - the filter's in-place walk of uncompressed batches decides as decoding every record does.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { CompressionType, decodeRecordBatch, encodeRecordBatch, iterateBatches, readBatchHeader, validateBatch } from '../../src/protocol/records/index.js';
import { addBatchToMap, filterBatch, filterDecoded, OffsetMap, type FilterContext } from '../../src/storage/cleaner-filter.js';
import { cleanerThreadHooks } from '../../src/storage/cleaner-thread.js';
import { openFileStorage, openMemoryStorage, type PartitionLog, type Storage, type StorageOptions } from '../../src/storage/index.js';
import { createLogger, type Logger } from '../../src/util/log.js';
import { seededRandom } from '../support/random-message.js';
import { NOW, tempDir } from '../support/storage/helpers.js';
import { projectRoot } from '../support/brook.js';

const CODECS = [CompressionType.None, CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];

interface Append {
  readonly topic: string;
  readonly batch: Buffer;
  readonly nowMs: number;
}

interface RandomTopic {
  readonly name: string;
  readonly configs: Record<string, string>;
}

/**
 * Random compacted topics and appends: few keys, some keyless records and tombstones, all
 * codecs, some idempotent producers (whose last batch the cleaner must keep), several records
 * per batch, small segments, some with a delete horizon to pass and a compaction lag.
 */
function randomTopics(seed: number, count: number): { topics: RandomTopic[]; rounds: Append[][] } {
  const rnd = seededRandom(seed);
  const int = (n: number): number => Math.floor(rnd() * n);
  const topics: RandomTopic[] = [];
  const rounds: Append[][] = [[], [], []];
  for (let t = 0; t < count; t++) {
    const name = `r${seed}-${t}`;
    topics.push({
      name,
      configs: {
        'cleanup.policy': 'compact',
        'internal.segment.bytes': String(300 + int(3000)),
        'min.cleanable.dirty.ratio': rnd() < 0.5 ? '0.01' : '0.5',
        'delete.retention.ms': String([0, 1000, 60_000][int(3)]),
        'min.compaction.lag.ms': rnd() < 0.2 ? '30000' : '0',
        'index.interval.bytes': String(100 + int(2000)),
      },
    });
    const keys = 1 + int(20);
    const producerId = rnd() < 0.3 ? BigInt(1000 + t) : undefined;
    let sequence = 0;
    for (const round of rounds) {
      const batches = int(60);
      for (let b = 0; b < batches; b++) {
        const n = 1 + int(5);
        const records = Array.from({ length: n }, () => ({
          key: rnd() < 0.05 ? null : Buffer.from(`k${int(keys)}`),
          value: rnd() < 0.1 ? null : Buffer.from('v'.repeat(int(60)) + String(int(1000))),
          timestamp: NOW + int(1000),
        }));
        const batch = encodeRecordBatch({
          records, compression: CODECS[int(CODECS.length)], producerId, producerEpoch: producerId === undefined ? undefined : 0,
          baseSequence: producerId === undefined ? undefined : sequence,
        });
        sequence += n;
        round.push({ topic: name, batch, nowMs: NOW });
      }
    }
  }
  return { topics, rounds };
}

interface Read {
  readonly offset: bigint;
  readonly key: string | null;
  readonly value: string | null;
}

/** Every batch (raw bytes, CRC checked) and record of a log, read as a consumer would. */
function readLog(log: PartitionLog): { batches: string[]; records: Read[] } {
  const batches: string[] = [];
  const records: Read[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const result = log.read(offset, 1 << 30, { minOneBatch: true });
    let advanced = false;
    for (const chunk of result.records) {
      for (const view of iterateBatches(chunk)) {
        validateBatch(view.buffer);
        const batch = decodeRecordBatch(view.buffer);
        if (batch.header.lastOffset < offset) continue;
        batches.push(view.buffer.toString('hex'));
        for (const r of batch.records) if (r.offset >= offset) records.push({ offset: r.offset, key: r.key?.toString() ?? null, value: r.value?.toString() ?? null });
        offset = batch.header.lastOffset + 1n;
        advanced = true;
      }
    }
    assert.ok(advanced, `read at ${offset} returned nothing`);
  }
  return { batches, records };
}

/**
 * What a log shows of itself: its segments and everything in them, and what the cleaned
 * segments' in-memory state answers (offset index: the batch a read at each offset starts
 * with; time index and largest timestamp: ListOffsets by time).
 */
function snapshot(storage: Storage, topic: string): unknown {
  const log = storage.partition(topic, 0)!;
  const firstBatchAt: string[] = [];
  for (let o = log.logStartOffset; o < log.logEndOffset; o += 3n) {
    const first = log.read(o, 1, { minOneBatch: true }).records[0];
    firstBatchAt.push(first === undefined ? '-' : String(first.readBigInt64BE(0)));
  }
  const byTime = [NOW - 1, NOW + 250, NOW + 500, NOW + 999, NOW + 5000].map((t) => log.offsetForTimestamp(BigInt(t)));
  return {
    segments: log.segments(), logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset, ...readLog(log),
    firstBatchAt, byTime, maxTimestamp: log.maxTimestamp(),
  };
}

/** The segment files (.log, .index, .timeindex) of every partition directory, by name. */
function segmentFiles(dataDir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of fs.readdirSync(dataDir)) {
    const path = join(dataDir, dir);
    if (!fs.statSync(path).isDirectory()) continue;
    for (const name of fs.readdirSync(path)) {
      if (/\.(log|index|timeindex)$/.test(name)) files.set(`${dir}/${name}`, fs.readFileSync(join(path, name)).toString('hex'));
    }
  }
  return files;
}

function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger('test', 'info', (line) => void lines.push(line)), lines };
}

function leftovers(dataDir: string): string[] {
  return fs.readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).filter((n) => /\.(cleaned|swap|deleted)$/.test(n));
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = tempDir('brook-cleaner-thread-');
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  cleanerThreadHooks.inject = null;
  cleanerThreadHooks.onStalled = null;
  cleanerThreadHooks.abortGraceMs = 5_000;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('log cleaner worker thread', () => {
  it('cleans random logs exactly as the in-thread cleaner does (segment files byte for byte) and as the memory engine reads them', { timeout: 240_000 }, async () => {
    for (const seed of [1, 2, 3]) {
      const { topics, rounds } = randomTopics(seed, 12);
      const options: StorageOptions = { clock: () => NOW, flush: 'never' };
      const workerDir = dataDir();
      const inlineDir = dataDir();
      const worker = await openFileStorage(workerDir, options);
      const inline = await openFileStorage(inlineDir, { ...options, cleanerThread: 'inline' });
      const memory = openMemoryStorage(options);
      const all = [worker, inline, memory];
      try {
        for (const t of topics) for (const s of all) s.createTopic(t.name, 1, t.configs);
        // Each round: appends, then a pass; the passes move the clock past the delete horizons and compaction lags.
        const passAt = [NOW, NOW + 2_000, NOW + 100_000];
        let cleaned = 0;
        for (let r = 0; r < rounds.length; r++) {
          // A copy each: append stamps the offsets into the buffer it is given.
          for (const a of rounds[r]!) for (const s of all) s.partition(a.topic, 0)!.append(Buffer.from(a.batch), { nowMs: a.nowMs });
          const before = topics.map((t) => snapshot(worker, t.name));
          const [w, i, m] = [await worker.cleanLogs(passAt[r]!), await inline.cleanLogs(passAt[r]!), await memory.cleanLogs(passAt[r]!)];
          assert.deepEqual(w, i, `seed ${seed} pass ${r}: stats`);
          assert.deepEqual(w, m, `seed ${seed} pass ${r}: stats`);
          cleaned += w.partitionsCleaned;
          for (const t of topics) {
            const expected = snapshot(inline, t.name);
            assert.deepEqual(snapshot(worker, t.name), expected, `seed ${seed} pass ${r} topic ${t.name}`);
            assert.deepEqual(snapshot(memory, t.name), expected, `seed ${seed} pass ${r} topic ${t.name} (memory)`);
          }
          // The logs must have changed, or this compares nothing.
          if (w.recordsRemoved > 0) assert.notDeepEqual(topics.map((t) => snapshot(worker, t.name)), before);
        }
        assert.ok(cleaned >= topics.length, `only ${cleaned} cleans over ${topics.length} topics`);
      } finally {
        for (const s of all) await s.close();
      }
      assert.deepEqual(segmentFiles(workerDir), segmentFiles(inlineDir), `seed ${seed}: segment files`);
      assert.deepEqual(leftovers(workerDir), []);
    }
  });

  describe('close and failures', () => {
    /** A compacted log with something to clean in several groups; its records before cleaning. */
    async function dirtyLog(dir: string, options: StorageOptions = {}): Promise<{ storage: Storage; before: Read[] }> {
      const storage = await openFileStorage(dir, { clock: () => NOW, ...options });
      storage.createTopic('c', 1, { 'cleanup.policy': 'compact', 'internal.segment.bytes': '600' });
      const log = storage.partition('c', 0)!;
      for (let i = 0; i < 200; i++) {
        log.append(encodeRecordBatch({ records: [{ key: Buffer.from(`k${i % 7}`), value: Buffer.from(`value-${i}`), timestamp: NOW }] }), { nowMs: NOW });
      }
      return { storage, before: readLog(log).records };
    }

    for (const at of ['map', 'group'] as const) {
      it(`closing the storage while the worker is busy (${at}) aborts the clean and joins the thread`, async () => {
        const dir = dataDir();
        const { storage, before } = await dirtyLog(dir);
        const stalled = new Promise<void>((resolve) => { cleanerThreadHooks.onStalled = resolve; });
        cleanerThreadHooks.inject = { at, how: 'stall' };
        const pass = storage.cleanLogs(NOW);
        await stalled;
        assert.equal(cleanerThreadHooks.live, 1);
        const aborted = cleanerThreadHooks.abortedAnswers;
        await storage.close();
        // The worker noticed the abort at its first batch (it was not terminated with its work done or undone).
        assert.equal(cleanerThreadHooks.abortedAnswers, aborted + 1);
        assert.equal(cleanerThreadHooks.live, 0, 'the worker thread has exited');
        assert.equal((await pass).partitionsCleaned, 0);
        assert.deepEqual(leftovers(dir), []);
        const reopened = await openFileStorage(dir, { clock: () => NOW });
        try {
          assert.deepEqual(readLog(reopened.partition('c', 0)!).records, before);
        } finally {
          await reopened.close();
        }
      });
    }

    it("the replaced segments' files are unlinked by the worker, and close waits for that", async () => {
      const dir = dataDir();
      const storage = await openFileStorage(dir, { clock: () => NOW });
      storage.createTopic('one', 1, { 'cleanup.policy': 'compact', 'internal.segment.bytes': '600' });
      const log = storage.partition('one', 0)!;
      // One sealed segment, so one swap, whose unlink request is the clean's last.
      for (let i = 0; log.segments().length < 2; i++) {
        log.append(encodeRecordBatch({ records: [{ key: Buffer.from(`k${i % 2}`), value: Buffer.from(`value-${i}`), timestamp: NOW }] }), { nowMs: NOW });
      }
      cleanerThreadHooks.inject = { at: 'unlink', how: 'stall' };
      const stalled = new Promise<void>((resolve) => { cleanerThreadHooks.onStalled = resolve; });
      assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 1);
      await stalled;
      assert.deepEqual(leftovers(dir).map((n) => n.replace(/^.*\d{20}\./, '')).sort(), ['index.deleted', 'log.deleted', 'timeindex.deleted']);
      await storage.close();
      assert.deepEqual(leftovers(dir), []);
    });

    it('a worker deaf to the abort is terminated after the grace period; close still completes', async () => {
      const dir = dataDir();
      const { storage, before } = await dirtyLog(dir);
      cleanerThreadHooks.abortGraceMs = 200;
      const stalled = new Promise<void>((resolve) => { cleanerThreadHooks.onStalled = resolve; });
      cleanerThreadHooks.inject = { at: 'group', how: 'hang' };
      const pass = storage.cleanLogs(NOW);
      await stalled;
      const started = performance.now();
      await storage.close();
      // The worker would hang for a minute: close ended it.
      assert.ok(performance.now() - started < 30_000);
      assert.equal(cleanerThreadHooks.live, 0);
      assert.equal((await pass).partitionsCleaned, 0);
      assert.deepEqual(leftovers(dir), []);
      const reopened = await openFileStorage(dir, { clock: () => NOW });
      try {
        assert.deepEqual(readLog(reopened.partition('c', 0)!).records, before);
      } finally {
        await reopened.close();
      }
    });

    for (const how of ['throw', 'exit'] as const) {
      for (const at of ['map', 'group'] as const) {
        it(`a worker that dies (${how} in ${at}) is logged, leaves the log intact, and the next pass cleans`, async () => {
          const dir = dataDir();
          const { log: logger, lines } = capturingLogger();
          const { storage, before } = await dirtyLog(dir, { log: logger });
          try {
            const log = storage.partition('c', 0)!;
            const segments = log.segments();
            cleanerThreadHooks.inject = { at, how };
            assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 0);
            assert.ok(lines.some((l) => /level=error .*msg="log cleaning failed" topic=c partition=0/.test(l)), lines.join(''));
            assert.deepEqual(log.segments(), segments);
            assert.deepEqual(readLog(log).records, before);
            assert.deepEqual(leftovers(dir), []);
            assert.equal(cleanerThreadHooks.live, 0);

            const stats = await storage.cleanLogs(NOW);
            assert.equal(stats.partitionsCleaned, 1);
            assert.ok(stats.bytesAfter < stats.bytesBefore / 4);
            // Kafka's result: below the active segment, the newest record per key.
            const active = log.segments().at(-1)!.baseOffset;
            const newest = new Map<string, bigint>();
            for (const r of before) if (r.offset < active) newest.set(r.key!, r.offset);
            assert.deepEqual(readLog(log).records, before.filter((r) => r.offset >= active || newest.get(r.key!) === r.offset));
            assert.ok(lines.some((l) => /level=info .*msg="cleaned log" topic=c .*thread=worker/.test(l)));
          } finally {
            await storage.close();
          }
          assert.equal(cleanerThreadHooks.live, 0);
        });
      }
    }
  });

  it('the worker thread runs at a lower priority than the event loop: SCHED_IDLE, or nice 10 without chrt (Linux)', { skip: process.platform !== 'linux' && 'per-thread scheduling policies and nice values are Linux behaviour' }, async () => {
    // Each thread's [policy, nice] from /proc (stat fields 41 and 19; SCHED_IDLE is policy 5).
    const lowered = (): string[] => fs.readdirSync('/proc/self/task').flatMap((tid) => {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const policy = Number(fields[38]);
      const nice = Number(fields[16]);
      return policy === 0 && nice === 0 ? [] : [`policy ${policy} nice ${nice}`];
    });
    const chrt = spawnSync('chrt', ['--version'], { stdio: 'ignore' }).status === 0;
    assert.deepEqual(lowered(), []);
    const storage = await openFileStorage(dataDir(), { clock: () => NOW, flush: 'never' });
    storage.createTopic('c', 1, { 'cleanup.policy': 'compact', 'internal.segment.bytes': '600' });
    const log = storage.partition('c', 0)!;
    for (let i = 0; i < 50; i++) log.append(encodeRecordBatch({ records: [{ key: Buffer.from(`k${i % 3}`), value: Buffer.from(`v${i}`), timestamp: NOW }] }), { nowMs: NOW });
    assert.equal((await storage.cleanLogs(NOW)).partitionsCleaned, 1);
    assert.deepEqual(lowered(), [chrt ? 'policy 5 nice 0' : 'policy 0 nice 10']);
    await storage.close();
    assert.deepEqual(lowered(), []);
  });

  it('an idle worker does not keep the process alive; a busy one does until it answers', { timeout: 60_000 }, () => {
    const dir = dataDir();
    // No close: the process must end by itself once the pass is over (and not before).
    const script = `
      import { openFileStorage } from ${JSON.stringify(join(projectRoot, 'dist', 'src', 'storage', 'index.js'))};
      import { encodeRecordBatch } from ${JSON.stringify(join(projectRoot, 'dist', 'src', 'protocol', 'records', 'index.js'))};
      const storage = await openFileStorage(${JSON.stringify(dir)}, { flush: 'never' });
      storage.createTopic('c', 1, { 'cleanup.policy': 'compact', 'internal.segment.bytes': '600' });
      const log = storage.partition('c', 0);
      for (let i = 0; i < 100; i++) log.append(encodeRecordBatch({ records: [{ key: Buffer.from('k' + (i % 3)), value: Buffer.from('v' + i) }] }), { nowMs: Date.now() });
      const stats = await storage.cleanLogs(Date.now());
      process.stdout.write('cleaned ' + stats.partitionsCleaned + '\\n');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.signal, null, `the process did not end by itself: ${child.stderr}`);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, 'cleaned 1\n');
  });
});

describe('cleaner filter: uncompressed batches walked in place', () => {
  it('map and filter agree with decoding every record, on random batches', () => {
    const rnd = seededRandom(7);
    const int = (n: number): number => Math.floor(rnd() * n);
    const outcomes = { whole: 0, none: 0, some: 0 };
    for (let i = 0; i < 3000; i++) {
      const baseOffset = BigInt(int(1000));
      const count = int(6);
      const producerId = rnd() < 0.3 ? 5n : undefined;
      const batch = encodeRecordBatch({
        baseOffset,
        records: Array.from({ length: count }, (_, j) => ({
          key: rnd() < 0.1 ? null : Buffer.from(`k${int(4)}`),
          value: rnd() < 0.3 ? null : Buffer.from(`v${j}`),
          timestamp: NOW,
          offsetDelta: j * (1 + int(2)),
        })),
        producerId, producerEpoch: producerId === undefined ? undefined : 0, baseSequence: producerId === undefined ? undefined : 0,
        deleteHorizonMs: rnd() < 0.3 ? BigInt(NOW + int(3) * 1000) : undefined,
      });
      const h = readBatchHeader(batch);
      // The map: the newest offset of some keys (before, inside or after this batch's range), then this batch's keys.
      const from = baseOffset + BigInt(int(4));
      const map = new OffsetMap();
      const expected = new OffsetMap();
      for (let k = 0; k < 4; k++) {
        if (rnd() < 0.4) continue;
        const offset = rnd() < 0.6 ? h.lastOffset + 1n + BigInt(int(5)) : baseOffset - 2n + BigInt(int(Number(h.lastOffset - baseOffset) + 4));
        for (const m of [map, expected]) m.put(Buffer.from(`k${k}`), offset);
      }
      addBatchToMap(map, batch, from, []);
      for (const r of decodeRecordBatch(batch).records) if (r.key !== null && r.offset >= from) expected.put(r.key, r.offset);
      for (let k = 0; k < 4; k++) assert.equal(map.get(Buffer.from(`k${k}`)), expected.get(Buffer.from(`k${k}`)), `batch ${i}: map entry k${k}`);
      map.latestOffset = baseOffset + BigInt(int(14)) - 2n;
      const ctx: FilterContext = {
        map, nowMs: NOW + int(3) * 1000, deleteRetentionMs: 1000,
        activeProducers: new Map(producerId === undefined || rnd() < 0.5 ? [] : [[producerId, h.lastOffset]]),
      };
      const walked = filterBatch(batch, ctx);
      assert.deepEqual(walked, filterDecoded(batch, h, ctx), `batch ${i}`);
      outcomes[walked.bytes === batch ? 'whole' : walked.bytes === null || walked.bytes.length === 61 ? 'none' : 'some']++;
    }
    // Each outcome came up often: the in-place ones (whole, none) and the decoded one (some).
    for (const [outcome, n] of Object.entries(outcomes)) assert.ok(n > 100, `${JSON.stringify(outcomes)}: too few ${outcome}`);
  });
});
