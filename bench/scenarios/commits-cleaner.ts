/**
 * Scenario 7b (`commits-cleaner`): offset commits at a fixed 1,000 commits/s (open loop, as
 * scenario 7's latency case) while the log cleaner compacts a large `__consumer_offsets`.
 *
 * Set-up, once: a broker with the cleaner off and 1 MiB `__consumer_offsets` segments takes
 * 3M offset-commit records over 1,000 keys (10 groups x 100 partitions; ~300 MB, quick:
 * 20k records), then stops. Each run copies that data dir and starts a broker on it twice:
 *  - cleaner on (log.cleaner.backoff.ms=5000, log.cleaner.min.cleanable.ratio=0.01): after a
 *    restart the whole log is dirty, so the cleaner's first pass compacts all of it while the
 *    commits go on; the load runs until that pass has ended (+1 s);
 *  - cleaner off, for as long: the same broker, data and load without cleaning.
 * Cleaning intervals come from the broker's own log ("cleaned log topic=__consumer_offsets ...
 * durationMs=N"), so the report can say which commits were scheduled while it cleaned, and a
 * run in which no cleaning overlapped the load is an error, not a result.
 * Beside them, a bare fdatasync loop on the same file system (bench/lib/fdatasync.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KafkaConnection } from '../../src/client/connection.js';
import { startBroker, type BrokerUnderTest } from '../lib/brokers.js';
import { commit, commitLatency, connect, ensureCoordinator, openLoopCommits, summarize, type CommitSample } from '../lib/commits.js';
import { fdatasyncLoop } from '../lib/fdatasync.js';
import { progress } from '../lib/progress.js';
import { Recorder, checkTarget, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { tempDir } from '../../test/support/brook.js';

const CONNECTIONS = 8;
const PARTITIONS = 100;
const GROUPS = 10;
const SEGMENT_BYTES = 1024 * 1024;
const BACKOFF_MS = 5000;

interface CleaningInterval {
  start: number;
  end: number;
  bytesBefore: number;
  bytesAfter: number;
  /** The event loop's time in the swaps, when the broker logs it (after the worker thread came). */
  swapMs: number | null;
}

/** The broker's "cleaned log" lines for `__consumer_offsets`, as wall-clock intervals. */
export function cleaningIntervals(log: string): CleaningInterval[] {
  const out: CleaningInterval[] = [];
  for (const line of log.split('\n')) {
    const m = /^(\S+) INFO +\[[^\]]*\] cleaned log topic=__consumer_offsets .*\bbytesBefore=(\d+) bytesAfter=(\d+).*\bdurationMs=(\d+)/.exec(line);
    if (!m) continue;
    const end = Date.parse(m[1]!);
    const swap = /\bswapMs=([\d.]+)/.exec(line);
    out.push({ start: end - Number(m[4]), end, bytesBefore: Number(m[2]), bytesAfter: Number(m[3]), swapMs: swap ? Number(swap[1]) : null });
  }
  return out;
}

async function fill(broker: BrokerUnderTest, topic: string, commits: number): Promise<void> {
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(broker.bootstrap)));
  try {
    const group = uniqueName('bench-cleaner-fill');
    await Promise.all(Array.from({ length: GROUPS }, (_, g) => ensureCoordinator(conns[0]!, `${group}-${g}`)));
    let next = 0;
    const worker = async (conn: KafkaConnection): Promise<void> => {
      while (next < commits) {
        const i = next++;
        await commit(conn, `${group}-${i % GROUPS}`, topic, PARTITIONS, BigInt(i));
      }
    };
    await Promise.all(conns.flatMap((c) => Array.from({ length: 8 }, () => worker(c))));
  } finally {
    for (const c of conns) c.close();
  }
}

/** Writes back everything the copy left dirty in the page cache, so the runs do not measure that writeback. */
function syncAll(): void {
  spawnSync('sync', { stdio: 'ignore' });
}

export const commitsCleanerScenario: Scenario = {
  name: 'commits-cleaner',
  title: 'offset commits at 1,000/s while the log cleaner compacts a large __consumer_offsets',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const commits = ctx.quick ? 200 : 30_000;
    rec.notes.push(`__consumer_offsets filled with ${commits * PARTITIONS} offset records over ${GROUPS * PARTITIONS} keys (${SEGMENT_BYTES / 1024} KiB segments, cleaner off), then per run: a broker on a copy with the cleaner on (backoff ${BACKOFF_MS} ms, min.cleanable.ratio 0.01; its first pass cleans the whole log) and one with it off; open loop at 1,000 commits/s over ${CONNECTIONS} connections; "during cleaning": commits scheduled inside the broker's logged cleaning intervals`);

    // The disk itself, before any broker: where the brokers' data dirs go (the OS temp dir).
    const syncs = ctx.quick ? 500 : 10_000;
    for (const intervalMs of [0, 1]) {
      const pace = intervalMs === 0 ? 'back to back' : 'one every 1 ms';
      progress(`commits-cleaner: bare fdatasync loop, ${pace}`);
      const p50: number[] = [];
      const p99: number[] = [];
      for (let run = 1; run <= ctx.runs; run++) {
        const r = await fdatasyncLoop({ dir: tmpdir(), count: syncs, bytes: 200, intervalMs });
        p50.push(r.p50);
        p99.push(r.p99);
      }
      const where = { case: `bare fdatasync loop, 200 B, ${pace}`, client: '-', broker: 'none' as const };
      rec.add(where, { name: 'fdatasync p50', unit: 'ms', lowerIsBetter: true }, p50);
      rec.add(where, { name: 'fdatasync p99', unit: 'ms', lowerIsBetter: true }, p99);
    }

    for (const kind of usableBrokers(ctx, rec)) {
      if (kind !== 'brook') {
        rec.skipped.push(`${kind} broker: the cleaning intervals are read from Brook's log`);
        continue;
      }
      await rec.attempt(`${kind} broker`, async () => {
        const pristine = tempDir('brook-bench-cleaner-');
        try {
          const topic = uniqueName('bench-cleaner');
          const fillConfig = { 'log.cleaner.enable': 'false', 'offsets.topic.segment.bytes': String(SEGMENT_BYTES) };
          const filler = await startBroker(kind, { ...ctx.pool.options(kind), dataDir: pristine.path, config: fillConfig });
          try {
            await createTopic(filler.bootstrap, topic, PARTITIONS);
            progress(`commits-cleaner: filling __consumer_offsets with ${commits * PARTITIONS} offset records`);
            await fill(filler, topic, commits);
          } finally {
            await filler.stop();
          }
          const measured = { on: { p50: [] as number[], p99: [] as number[], sentP99: [] as number[], cleanP50: [] as number[], cleanP99: [] as number[], share: [] as number[], cleanMs: [] as number[] }, off: { p50: [] as number[], p99: [] as number[], sentP99: [] as number[] } };
          for (let run = 1; run <= ctx.runs; run++) {
            let windowMs = 0;
            for (const cleaner of [true, false]) {
              const copy = tempDir('brook-bench-cleaner-run-');
              try {
                cpSync(join(pristine.path, 'data'), join(copy.path, 'data'), { recursive: true });
                cpSync(join(pristine.path, 'bench.properties'), join(copy.path, 'bench.properties'));
                syncAll();
                const config: Record<string, string> = cleaner
                  ? { 'log.cleaner.enable': 'true', 'log.cleaner.backoff.ms': String(BACKOFF_MS), 'log.cleaner.min.cleanable.ratio': '0.01' }
                  : { 'log.cleaner.enable': 'false' };
                progress(`commits-cleaner: run ${run}/${ctx.runs}, cleaner ${cleaner ? 'on' : 'off'}`);
                const broker = await startBroker(kind, { ...ctx.pool.options(kind), dataDir: copy.path, config });
                try {
                  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(broker.bootstrap)));
                  try {
                    await commitLatency(conns, uniqueName('bench-cleaner-warmup'), topic, 1000, ctx.quick ? 500 : 2000);
                    let cleanedAt: number | null = null;
                    const samples: CommitSample[] = await openLoopCommits(conns, uniqueName('bench-cleaner-latency'), topic, 1000, {
                      durationMs: cleaner ? (ctx.quick ? 30_000 : 180_000) : windowMs,
                      // Until the first pass over __consumer_offsets has ended, and 1 s more.
                      until: cleaner ? () => {
                        if (cleanedAt === null && cleaningIntervals(broker.stderr()).length > 0) cleanedAt = Date.now();
                        return cleanedAt !== null && Date.now() - cleanedAt >= 1000;
                      } : undefined,
                    });
                    const whole = summarize(samples);
                    const m = cleaner ? measured.on : measured.off;
                    m.p50.push(whole.p50);
                    m.p99.push(whole.p99);
                    m.sentP99.push(whole.sentP99);
                    if (!cleaner) {
                      progress(`commits-cleaner: cleaner off: p50 ${whole.p50.toFixed(2)} ms, p99 ${whole.p99.toFixed(2)} ms (${samples.length} commits)`);
                      continue;
                    }
                    // The run without the cleaner gets as long a window (samples come in answer order).
                    windowMs = samples.reduce((n, s) => Math.max(n, s.scheduledAt), 0) - samples.reduce((n, s) => Math.min(n, s.scheduledAt), Infinity) + 1;
                    const intervals = cleaningIntervals(broker.stderr());
                    const during = samples.filter((s) => intervals.some((iv) => s.scheduledAt >= iv.start && s.scheduledAt <= iv.end));
                    if (during.length === 0) throw new Error(`no cleaning of __consumer_offsets during the window (log intervals: ${JSON.stringify(intervals)})`);
                    const d = summarize(during);
                    measured.on.cleanP50.push(d.p50);
                    measured.on.cleanP99.push(d.p99);
                    measured.on.share.push((100 * during.length) / samples.length);
                    measured.on.cleanMs.push(intervals[0]!.end - intervals[0]!.start);
                    progress(`commits-cleaner: cleaner on: ${intervals.length} pass(es) over __consumer_offsets, first ${intervals[0]!.end - intervals[0]!.start} ms (${intervals[0]!.bytesBefore} -> ${intervals[0]!.bytesAfter} bytes, swaps ${intervals[0]!.swapMs ?? '?'} ms); ${during.length} of ${samples.length} commits during cleaning: p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms; whole window p99 ${whole.p99.toFixed(2)} ms`);
                  } finally {
                    for (const c of conns) c.close();
                  }
                } finally {
                  await broker.stop();
                }
              } finally {
                copy.remove();
              }
            }
          }
          const on = { case: '1,000 commits/s, cleaner on', client: 'raw', broker: kind };
          rec.add(on, { name: 'p50 from schedule, during cleaning', unit: 'ms', lowerIsBetter: true }, measured.on.cleanP50);
          rec.add(on, { name: 'p99 from schedule, during cleaning', unit: 'ms', lowerIsBetter: true }, measured.on.cleanP99);
          rec.add(on, { name: 'p50 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, measured.on.p50);
          rec.add(on, { name: 'p99 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, measured.on.p99);
          rec.add(on, { name: 'p99 from send, whole window', unit: 'ms', lowerIsBetter: true }, measured.on.sentP99);
          rec.add(on, { name: 'first cleaning pass', unit: 'ms', lowerIsBetter: true }, measured.on.cleanMs);
          rec.add(on, { name: 'commits scheduled during cleaning', unit: '%', lowerIsBetter: false }, measured.on.share);
          const off = { case: '1,000 commits/s, cleaner off', client: 'raw', broker: kind };
          rec.add(off, { name: 'p50 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, measured.off.p50);
          rec.add(off, { name: 'p99 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, measured.off.p99);
          rec.add(off, { name: 'p99 from send, whole window', unit: 'ms', lowerIsBetter: true }, measured.off.sentP99);
        } finally {
          pristine.remove();
        }
      });
    }
    return rec.report([
      checkTarget('commit p99 <= 5 ms at 1,000 commits/s while the cleaner compacts __consumer_offsets (Brook broker, from schedule)',
        rec.find({ case: '1,000 commits/s, cleaner on', broker: 'brook', metric: 'p99 from schedule, during cleaning' }), (v) => v <= 5, (v) => `${v.toFixed(2)} ms`),
    ]);
  },
};
