/**
 * The log cleaner under disk faults, on both of its paths (its worker thread, and
 * `cleanerThread: 'inline'`), with a compacted topic. The faults go through the storage's
 * FileSystem (test/support/storage/faulty-fs.ts), which the worker rebuilds in its thread, so
 * one rule fails the same call on either path: ENOSPC writing the cleaned segment, EIO on its
 * fsync, a read-only directory, and a rename failing at each step of the swap.
 *
 * Each ends the same way: nothing lost (every record as it was, read while the fault lasts:
 * the old segments serve), one log line naming the partition, the call and the errno, the
 * disk error metric (write or fsync errors) counted, no leftover files, a crash at that
 * moment restarting into a consistent log, and the next pass cleaning once the fault is gone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, sep } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { swapSteps } from '../../src/storage/file-swap.js';
import { openFileStorage, type PartitionLog, type Storage, type StorageStats } from '../../src/storage/index.js';
import { FaultyFileSystem, type Fault, type FaultRule } from '../support/storage/faulty-fs.js';
import { CapturedLog, compacted, crashCopy, crashStates, latestValues, readKeyed, sameRecords, swapLeftovers, type Keyed } from '../support/storage/cleaner-faults.js';
import { NOW, tempDir } from '../support/storage/helpers.js';

const TIMEOUT = { timeout: 120_000 };
const PATHS = ['worker', 'inline'] as const;
type CleanerPath = (typeof PATHS)[number];

interface Env {
  readonly dataDir: string;
  /** The partition's directory, with a trailing separator (a rule's path). */
  readonly dir: string;
  readonly faults: FaultyFileSystem;
  readonly captured: CapturedLog;
  readonly storage: Storage;
  readonly log: PartitionLog;
  /** Every record appended, in order: the oracle. */
  readonly appended: Keyed[];
}

const envs: { dataDir: string; storage: Storage }[] = [];
const copies: string[] = [];

afterEach(async () => {
  swapSteps.onStep = null;
  for (const { dataDir, storage } of envs.splice(0)) {
    await storage.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  for (const copy of copies.splice(0)) fs.rmSync(copy, { recursive: true, force: true });
});

async function openEnv(path: CleanerPath, configs: Record<string, string> = {}): Promise<Env> {
  const dataDir = tempDir('brook-cleaner-faults-');
  const faults = new FaultyFileSystem();
  const captured = new CapturedLog();
  const storage = await openFileStorage(dataDir, {
    clock: () => NOW, flush: 'never', fileSystem: faults, log: captured.log, ...(path === 'inline' ? { cleanerThread: 'inline' as const } : {}),
  });
  envs.push({ dataDir, storage });
  storage.createTopic('c', 1, { 'cleanup.policy': 'compact', 'internal.segment.bytes': '600', ...configs });
  return { dataDir, dir: join(dataDir, 'c-0') + sep, faults, captured, storage, log: storage.partition('c', 0)!, appended: [] };
}

/** `count` single-record batches over ten keys, every fifth one a key written once (which every clean keeps, wherever it is). */
function append(env: Env, count: number, tag: string): void {
  for (let i = 0; i < count; i++) {
    const key = i % 5 === 0 ? `once-${tag}-${i}` : `k${i % 10}`;
    const value = `${tag}-${i}`;
    const { baseOffset } = env.log.append(encodeRecordBatch({ records: [{ key: Buffer.from(key), value: Buffer.from(value), timestamp: NOW }] }), { nowMs: NOW });
    env.appended.push({ offset: baseOffset, key, value });
  }
}

function activeBase(log: PartitionLog): bigint {
  return log.segments().at(-1)!.baseOffset;
}

/** The directory's files; not `.deleted` ones, which the worker removes after a swap when it gets to them. */
function listing(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => !n.endsWith('.deleted')).sort();
}

/** The log of a crash copy of `env` now, read by a storage opened on it without faults (as after a kill -9). */
async function afterCrash(env: Env, copy = crashCopy(env.dataDir)): Promise<{ records: Keyed[]; leftovers: string[] }> {
  copies.push(copy);
  const storage = await openFileStorage(copy, { clock: () => NOW, flush: 'never' });
  try {
    return { records: readKeyed(storage.partition('c', 0)!), leftovers: swapLeftovers(join(copy, 'c-0')) };
  } finally {
    await storage.close();
  }
}

/** Closes the storage and reads the log again from its directory. */
async function reopened(env: Env): Promise<{ records: Keyed[]; leftovers: string[] }> {
  await env.storage.close();
  const storage = await openFileStorage(env.dataDir, { clock: () => NOW, flush: 'never' });
  envs.push({ dataDir: env.dataDir, storage });
  return { records: readKeyed(storage.partition('c', 0)!), leftovers: swapLeftovers(env.dir) };
}

function counters(stats: StorageStats): Pick<StorageStats, 'writeErrors' | 'fsyncErrors' | 'partitionsTakenOffline'> {
  return { writeErrors: stats.writeErrors, fsyncErrors: stats.fsyncErrors, partitionsTakenOffline: stats.partitionsTakenOffline };
}

/** Once the fault is gone: the next pass cleans (on the path under test), as Kafka would, and a restart reads the same. */
async function retrySucceeds(env: Env, path: CleanerPath): Promise<void> {
  const cleanedBelow = activeBase(env.log);
  assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 1);
  const expected = compacted(env.appended, cleanedBelow);
  assert.deepEqual(readKeyed(env.log), expected);
  assert.deepEqual(latestValues(readKeyed(env.log)), latestValues(env.appended));
  assert.ok(env.captured.matching(new RegExp(`msg="cleaned log" topic=c partition=0 .*thread=${path}`)).length >= 1);
  const after = await reopened(env);
  assert.deepEqual(after.records, expected);
  assert.deepEqual(after.leftovers, []);
}

interface SimpleFault {
  readonly name: string;
  rule(env: Env): FaultRule;
  readonly counter: 'writeErrors' | 'fsyncErrors';
  /** The log line's "<call> of <path>: <errno>". */
  readonly line: RegExp;
}

const SIMPLE_FAULTS: readonly SimpleFault[] = [
  {
    name: 'the disk is full (ENOSPC) while the cleaned segment is written',
    rule: (env) => ({ op: 'write', path: env.dir, errno: 'ENOSPC' }),
    counter: 'writeErrors',
    line: /write of \S*c-0.00000000000000000000\.log\.cleaned: ENOSPC \(a cleaned segment needs free space/,
  },
  {
    name: 'the fsync of the cleaned segment fails (EIO)',
    rule: () => ({ op: 'fdatasync', path: '.log.cleaned', errno: 'EIO' }),
    counter: 'fsyncErrors',
    line: /fdatasync of \S*c-0.00000000000000000000\.log\.cleaned: EIO/,
  },
  {
    name: 'the directory is read-only (EACCES)',
    rule: (env) => ({ op: ['open', 'rename', 'unlink'], path: env.dir, errno: 'EACCES', directoryReadOnly: true }),
    counter: 'writeErrors',
    line: /open of \S*c-0.00000000000000000000\.log\.cleaned: EACCES/,
  },
];

for (const path of PATHS) {
  describe(`log cleaner under disk faults (${path})`, () => {
    for (const fault of SIMPLE_FAULTS) {
      it(`${fault.name}: nothing lost, the old segments serve, logged and counted, and the next pass cleans once it is gone`, TIMEOUT, async () => {
        const env = await openEnv(path);
        append(env, 200, 'v');
        const before = readKeyed(env.log);
        assert.deepEqual(before, env.appended);
        const segments = env.log.segments();
        const files = listing(env.dir);
        const stats = counters(env.storage.stats);

        const injected = env.faults.inject(fault.rule(env));
        assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 0);
        // On the worker path only the worker writes, fsyncs and creates the cleaned files: the fault reached it.
        assert.ok(injected.hits > 0, 'the fault was hit');
        const line = new RegExp(`level=error .*msg="log cleaning of c-0 failed: ${fault.line.source}`);
        assert.equal(env.captured.matching(line).length, 1, env.captured.lines.join(''));
        assert.deepEqual(counters(env.storage.stats), { ...stats, [fault.counter]: stats[fault.counter] + 1 }, 'counted once; the partition stays online');
        assert.deepEqual(env.log.segments(), segments);
        assert.deepEqual(readKeyed(env.log), before, 'the old segments serve');
        assert.deepEqual(listing(env.dir), files, 'nothing left behind');

        // While it lasts: the next pass fails the same way, counted, its line held back (one a directory and errno every 10 s).
        assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 0);
        assert.equal(env.captured.matching(line).length, 1);
        assert.equal(env.storage.stats[fault.counter], stats[fault.counter] + 2);
        assert.deepEqual(readKeyed(env.log), before);
        // A crash now loses nothing either.
        const crashed = await afterCrash(env);
        assert.deepEqual(crashed.records, before);
        assert.deepEqual(crashed.leftovers, []);

        injected.remove();
        await retrySucceeds(env, path);
      });
    }

    it('a rename failing at any step of the swap is undone: the directory as before, the old segments serve; a crash at the failure or after the undo restarts into a consistent log; the next pass cleans', TIMEOUT, async () => {
      // k: the swap's k-th rename fails. Up to the first one to fail in the second group's swap.
      let firstSwapRenames = 0;
      for (let k = 0; ; k++) {
        const env = await openEnv(path);
        append(env, 40, 'a');
        assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 1);
        // New overwrites: the small cleaned segments and the new ones make groups of several segments.
        append(env, 40, 'b');
        const before = readKeyed(env.log);
        const boundaries = env.log.segments().map((s) => s.baseOffset);
        const cleanedBelow = boundaries.at(-1)!;
        const consistent = crashStates(before, boundaries, cleanedBelow);
        const segments = env.log.segments();
        const files = listing(env.dir);
        const stats = counters(env.storage.stats);

        const injected = env.faults.inject({ op: 'rename', path: env.dir, errno: 'EIO', skip: k, times: 1 });
        const steps: string[] = [];
        const at: Record<string, string> = {};
        swapSteps.onStep = (step, dir) => {
          if (`${dir}${sep}` !== env.dir) return;
          steps.push(step);
          if ((step === 'failed' || step === 'undone') && at[step] === undefined) at[step] = crashCopy(env.dataDir);
        };
        assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 0);
        swapSteps.onStep = null;
        assert.equal(injected.hits, 1, `rename ${k}: the fault was hit`);
        const inFirstSwap = !steps.slice(0, steps.indexOf('failed')).includes('live');
        if (inFirstSwap) firstSwapRenames = k + 1;
        assert.equal(env.captured.matching(/level=error .*msg="log cleaning of c-0 failed: rename of \S+: EIO/).length, 1, env.captured.lines.join(''));
        assert.deepEqual(counters(env.storage.stats), { ...stats, writeErrors: stats.writeErrors + 1 });

        const records = readKeyed(env.log);
        if (inFirstSwap) {
          assert.deepEqual(records, before, `rename ${k}: the old segments serve`);
          assert.deepEqual(env.log.segments(), segments);
          assert.deepEqual(listing(env.dir), files, `rename ${k}: the directory as before`);
        } else {
          // The first group was swapped before: a log compacted up to a boundary.
          assert.ok(consistent.some((state) => sameRecords(state, records)), `rename ${k}`);
        }
        assert.deepEqual(latestValues(records), latestValues(env.appended));
        // The invariant: a restart from any moment finds the old or the new segments of each group, never a mix of one group's.
        const atFailure = await afterCrash(env, at['failed']);
        assert.ok(consistent.some((state) => sameRecords(state, atFailure.records)), `rename ${k}: a crash at the failure`);
        assert.deepEqual(atFailure.leftovers, []);

        await retrySucceeds(env, path);
        assert.deepEqual(steps.slice(steps.indexOf('failed')), ['failed', 'undone'], `rename ${k}: ${steps.join(',')}`);
        const afterUndo = await afterCrash(env, at['undone']);
        assert.ok(sameRecords(afterUndo.records, records), `rename ${k}: a crash after the undo`);
        await env.storage.close();
        if (!inFirstSwap) break;
      }
      // Three renames of each of steps 1 and 3, three for each replaced segment in step 2.
      assert.ok(firstSwapRenames >= 9 && firstSwapRenames % 3 === 0, `${firstSwapRenames} renames in the first swap`);
      assert.ok(firstSwapRenames > 9, 'the first group replaced several segments');
    });

    it('a swap whose undo fails too takes the partition offline; it reopens from disk once the disk allows, consistent, and the next pass cleans', TIMEOUT, async () => {
      const env = await openEnv(path);
      append(env, 150, 'a');
      assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 1);
      append(env, 150, 'b');
      const before = readKeyed(env.log);
      const boundaries = env.log.segments().map((s) => s.baseOffset);
      const consistent = crashStates(before, boundaries, boundaries.at(-1)!);
      const stats = counters(env.storage.stats);
      // From step 2 on, every rename in the directory but the first fails: the swap, its undo, and a reopen, until removed.
      const broken: { fault: Fault | null } = { fault: null };
      swapSteps.onStep = (step) => {
        if (step === 'swap' && broken.fault === null) broken.fault = env.faults.inject({ op: 'rename', path: env.dir, errno: 'EIO', skip: 1 });
      };
      const retrying = env.captured.next(/level=error .*msg="recovery of c-0 failed; retrying in 1000 ms"/);
      assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 0);
      swapSteps.onStep = null;
      assert.ok(broken.fault !== null);
      assert.equal(env.captured.matching(/level=error .*msg="partition c-0 is offline: the log cleaner's swap of \S+ failed and could not be undone/).length, 1, env.captured.lines.join(''));
      assert.equal(env.captured.matching(/level=error .*msg="log cleaning of c-0 failed: rename of \S+: EIO/).length, 1);
      assert.deepEqual(counters(env.storage.stats), { ...stats, writeErrors: stats.writeErrors + 1, partitionsTakenOffline: stats.partitionsTakenOffline + 1 });
      assert.throws(() => env.log.read(0n, 100, { minOneBatch: true }), /offline while it recovers: the log cleaner's swap/);
      await retrying;
      const crashed = await afterCrash(env);
      assert.ok(consistent.some((state) => sameRecords(state, crashed.records)), 'a crash while it is offline');

      const recovered = env.captured.next(/msg="partition c-0 recovered and serving again"/);
      broken.fault.remove();
      await recovered;
      const records = readKeyed(env.log);
      assert.ok(consistent.some((state) => sameRecords(state, records)));
      assert.deepEqual(latestValues(records), latestValues(env.appended));
      assert.deepEqual(swapLeftovers(env.dir), []);
      await retrySucceeds(env, path);
    });

    it('a failed unlink of a replaced segment after the swap leaves the file to the next open; the swap stands, and moving the log start past it loses nothing', TIMEOUT, async () => {
      const env = await openEnv(path, { 'cleanup.policy': 'compact,delete' });
      append(env, 150, 'a');
      assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 1);
      append(env, 150, 'b');
      const boundaries = env.log.segments().map((s) => s.baseOffset);
      const cleanedBelow = boundaries.at(-1)!;
      const refused = env.faults.inject({ op: 'unlink', path: '.deleted', errno: 'EIO' });
      assert.equal((await env.storage.cleanLogs(NOW)).partitionsCleaned, 1);
      const expected = compacted(env.appended, cleanedBelow);
      assert.deepEqual(readKeyed(env.log), expected);
      // The first cleaned segment covers several old ones: a log start inside it deletes no segment.
      const start = boundaries[1]!;
      env.log.deleteRecords(start);
      env.storage.enforceRetention(NOW);
      const after = await reopened(env);
      assert.ok(refused.hits > 0);
      assert.deepEqual(after.records, expected.filter((r) => r.offset >= start));
      assert.deepEqual(after.leftovers, []);
    });
  });
}
