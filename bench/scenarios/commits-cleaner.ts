/**
 * Scenario 7b (`commits-cleaner`): offset commits at a fixed 1,000 commits/s (open loop, as
 * scenario 7's latency case) while the log cleaner compacts a large `__consumer_offsets`.
 *
 * Set-up, once: a broker with the cleaner off and 1 MiB `__consumer_offsets` segments takes
 * 3M offset-commit records over 1,000 keys (10 groups x 100 partitions; ~330 MB, quick:
 * 20k records), then stops. Each run then measures, in a rotating order, each on a fresh
 * copy of that data dir (written back to disk first):
 *  - cleaner on (log.cleaner.backoff.ms=5000, log.cleaner.min.cleanable.ratio=0.01): after a
 *    restart the whole log is dirty, so the cleaner's first pass compacts all of it while the
 *    commits go on; the load runs until that pass has ended (+1 s);
 *  - the same with `--baseline DIR`'s broker (another built checkout), when given, so that
 *    before/after ratios come from the same run;
 *  - cleaner off, 10 s: the same broker, data and load without cleaning;
 *  - a bare fdatasync loop on the same file system (bench/lib/fdatasync.ts).
 * Cleaning intervals come from the broker's own log ("cleaned log topic=__consumer_offsets ...
 * durationMs=N"), so the report can say which commits were scheduled while it cleaned, and a
 * run in which no cleaning overlapped the load is an error, not a result.
 *
 * This machine is a shared virtual one: its disk stalls every fsync for 50-500 ms now and then
 * (a bare fdatasync loop with nothing else running shows it), and freeing a few hundred MB
 * stalls it too (discards; each case's copy is removed and synced before the next starts).
 * Each broker case therefore runs a light disk probe beside it (bench/lib/fdatasync.ts,
 * startDiskProbe) and reads the host's CPU steal; the report gives the p99 over every run
 * and over the runs whose probe saw no stall while it mattered, with the probe's counts for
 * the cleaner and the control side by side (a cleaner that stalled the disk would show there).
 * With TMPDIR on a tmpfs (`TMPDIR=/dev/shm`) fsyncs cost nothing, which leaves the cleaner's
 * CPU share alone.
 */
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KafkaConnection } from '../../src/client/connection.js';
import { startBroker, type BrokerUnderTest } from '../lib/brokers.js';
import { hostSteal, machineCpu } from '../lib/cpu-time.js';
import { commit, commitLatency, connect, ensureCoordinator, openLoopCommits, summarize, type CommitSample } from '../lib/commits.js';
import { DISK_STALL_MS, fdatasyncLoop, startDiskProbe, type DiskProbeResult } from '../lib/fdatasync.js';
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
  /** The longest swap, when the broker logs it. */
  maxSwapMs: number | null;
}

/**
 * The broker's "cleaned log" lines for `__consumer_offsets`, as wall-clock intervals. Lines
 * in logfmt (`time=... level=info ... msg="cleaned log" ...`) and in the format of builds
 * before it (`<time> INFO  [broker:storage] cleaned log ...`), which a comparison may run.
 */
export function cleaningIntervals(log: string): CleaningInterval[] {
  const out: CleaningInterval[] = [];
  for (const line of log.split('\n')) {
    const m = /^(?:time=)?(\S+) (?:INFO +\[[^\]]*\] cleaned log|level=info logger=\S+ msg="cleaned log") topic=__consumer_offsets .*\bbytesBefore=(\d+) bytesAfter=(\d+).*\bdurationMs=(\d+)/.exec(line);
    if (!m) continue;
    const end = Date.parse(m[1]!);
    const swap = /\bswapMs=([\d.]+)/.exec(line);
    const maxSwap = /\bmaxSwapMs=([\d.]+)/.exec(line);
    out.push({
      start: end - Number(m[4]), end, bytesBefore: Number(m[2]), bytesAfter: Number(m[3]), swapMs: swap ? Number(swap[1]) : null, maxSwapMs: maxSwap ? Number(maxSwap[1]) : null,
    });
  }
  return out;
}

/**
 * The share of `samples` over `ms` from the schedule, in %. The p99 is at most `ms` exactly when
 * this is at most 1 %; unlike the p99 it says how far off a run is, and a host's stall of 100 ms
 * moves it by its length, not to the stall's size.
 */
function shareOver(samples: readonly CommitSample[], ms: number): number {
  return (100 * samples.filter((s) => s.latency > ms).length) / Math.max(1, samples.length);
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
    rec.notes.push(`__consumer_offsets filled with ${commits * PARTITIONS} offset records over ${GROUPS * PARTITIONS} keys (${SEGMENT_BYTES / 1024} KiB segments, cleaner off), then per run, in rotating order, on fresh copies: this build's broker with the cleaner on (backoff ${BACKOFF_MS} ms, min.cleanable.ratio 0.01; its first pass cleans the whole log)${ctx.baseline ? `, the baseline's (${ctx.baseline}) the same` : ''}, this build's with it off, a bare fdatasync loop; open loop at 1,000 commits/s over ${CONNECTIONS} connections; "during cleaning": commits scheduled inside the broker's logged cleaning intervals`);
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
          type Case = 'on' | 'baseline' | 'off' | 'fdatasync';
          const cases: Case[] = ['on', ...(ctx.baseline ? ['baseline' as const] : []), 'off', 'fdatasync'];
          const values = new Map<string, number[]>();
          const push = (key: string, v: number): void => void values.set(key, [...(values.get(key) ?? []), v]);
          for (let run = 1; run <= ctx.runs; run++) {
            // A different order each run, so that a drift of the shared machine does not favour one case.
            const order = cases.map((_, i) => cases[(i + run - 1) % cases.length]!);
            for (const c of order) {
              if (c === 'fdatasync') {
                for (const intervalMs of [0, 1]) {
                  const cpuBefore = machineCpu();
                  const r = await fdatasyncLoop({ dir: tmpdir(), count: ctx.quick ? 500 : 3_000, bytes: 200, intervalMs });
                  const steal = hostSteal(cpuBefore, machineCpu());
                  push(`fdatasync ${intervalMs} p50`, r.p50);
                  push(`fdatasync ${intervalMs} p99`, r.p99);
                  progress(`commits-cleaner: run ${run}: bare fdatasync loop, ${intervalMs === 0 ? 'back to back' : 'one every 1 ms'}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, host steal ${steal.toFixed(1)}%`);
                }
                continue;
              }
              const m = await measure(ctx, kind, pristine.path, topic, c);
              progress(`commits-cleaner: run ${run}, ${c}: ${m.summary}`);
              for (const [k, v] of Object.entries(m.values)) push(`${c} ${k}`, v);
            }
            const on = values.get('on p99 during')!.at(-1)!;
            const base = values.get('baseline p99 during')?.at(-1);
            if (base !== undefined) {
              push('ratio p99', base / on);
              push('ratio p50', values.get('baseline p50 during')!.at(-1)! / values.get('on p50 during')!.at(-1)!);
            }
          }
          const get = (key: string): number[] => values.get(key) ?? [];
          // The runs in which the disk probe saw no stall: each case pushes both values once per run.
          const withoutStall = (key: string, stallsKey: string): number[] => get(key).filter((_, i) => get(stallsKey)[i] === 0);
          for (const [c, label] of [['on', 'this build'], ['baseline', 'baseline build']] as const) {
            if (get(`${c} p99 during`).length === 0) continue;
            const where = { case: `1,000 commits/s, cleaner on, ${label}`, client: 'raw', broker: kind };
            rec.add(where, { name: 'p50 from schedule, during cleaning', unit: 'ms', lowerIsBetter: true }, get(`${c} p50 during`));
            rec.add(where, { name: 'p99 from schedule, during cleaning', unit: 'ms', lowerIsBetter: true }, get(`${c} p99 during`));
            rec.add(where, { name: 'p99 from send, during cleaning', unit: 'ms', lowerIsBetter: true }, get(`${c} sent p99 during`));
            rec.add(where, { name: 'p99 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, get(`${c} p99`));
            rec.add(where, { name: 'commits over 5 ms from schedule, during cleaning', unit: '%', lowerIsBetter: true }, get(`${c} over 5 during`));
            rec.add(where, { name: 'first cleaning pass', unit: 'ms', lowerIsBetter: true }, get(`${c} clean ms`));
            rec.add(where, { name: 'event loop in swaps', unit: 'ms', lowerIsBetter: true }, get(`${c} swap ms`));
            rec.add(where, { name: 'longest swap', unit: 'ms', lowerIsBetter: true }, get(`${c} max swap ms`));
            rec.add(where, { name: 'commits scheduled during cleaning', unit: '%', lowerIsBetter: false }, get(`${c} share`));
            rec.add(where, { name: 'host CPU steal, whole window', unit: '%', lowerIsBetter: true }, get(`${c} steal`));
            rec.add(where, { name: `disk probe fdatasyncs over ${DISK_STALL_MS} ms, during cleaning`, unit: 'n', lowerIsBetter: true }, get(`${c} disk stalls during`));
            rec.add(where, { name: 'p99 from schedule, during cleaning, runs without a disk stall', unit: 'ms', lowerIsBetter: true }, withoutStall(`${c} p99 during`, `${c} disk stalls during`));
          }
          if (get('ratio p99').length > 0) {
            const where = { case: '1,000 commits/s, cleaner on: baseline / this build, same run', client: 'raw', broker: kind };
            rec.add(where, { name: 'p50 ratio, during cleaning', unit: 'x', lowerIsBetter: false }, get('ratio p50'));
            rec.add(where, { name: 'p99 ratio, during cleaning', unit: 'x', lowerIsBetter: false }, get('ratio p99'));
          }
          const off = { case: '1,000 commits/s, cleaner off, this build', client: 'raw', broker: kind };
          rec.add(off, { name: 'p50 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, get('off p50'));
          rec.add(off, { name: 'p99 from schedule, whole window', unit: 'ms', lowerIsBetter: true }, get('off p99'));
          rec.add(off, { name: 'p99 from send, whole window', unit: 'ms', lowerIsBetter: true }, get('off sent p99'));
          rec.add(off, { name: 'commits over 5 ms from schedule, whole window', unit: '%', lowerIsBetter: true }, get('off over 5'));
          rec.add(off, { name: 'host CPU steal, whole window', unit: '%', lowerIsBetter: true }, get('off steal'));
          rec.add(off, { name: `disk probe fdatasyncs over ${DISK_STALL_MS} ms, whole window`, unit: 'n', lowerIsBetter: true }, get('off disk stalls'));
          rec.add(off, { name: 'p99 from schedule, whole window, runs without a disk stall', unit: 'ms', lowerIsBetter: true }, withoutStall('off p99', 'off disk stalls'));
          for (const intervalMs of [0, 1]) {
            const where = { case: `bare fdatasync loop, 200 B, ${intervalMs === 0 ? 'back to back' : 'one every 1 ms'}`, client: '-', broker: 'none' as const };
            rec.add(where, { name: 'fdatasync p50', unit: 'ms', lowerIsBetter: true }, get(`fdatasync ${intervalMs} p50`));
            rec.add(where, { name: 'fdatasync p99', unit: 'ms', lowerIsBetter: true }, get(`fdatasync ${intervalMs} p99`));
          }
        } finally {
          pristine.remove();
        }
      });
    }
    return rec.report([
      checkTarget('commit p99 <= 5 ms at 1,000 commits/s while the cleaner compacts __consumer_offsets (Brook broker, from schedule)',
        rec.find({ case: '1,000 commits/s, cleaner on, this build', broker: 'brook', metric: 'p99 from schedule, during cleaning' }), (v) => v <= 5, (v) => `${v.toFixed(2)} ms`),
      checkTarget('the same, in the runs whose disk probe saw no stall while cleaning',
        rec.find({ case: '1,000 commits/s, cleaner on, this build', broker: 'brook', metric: 'p99 from schedule, during cleaning, runs without a disk stall' }), (v) => v <= 5, (v) => `${v.toFixed(2)} ms`),
    ]);
  },
};

/**
 * One case of one run on a fresh copy of the filled data dir: this build's broker with the
 * cleaner on or off, or the baseline's with it on. Values by name ('p99 during', ...).
 */
async function measure(ctx: ScenarioContext, kind: 'brook', pristine: string, topic: string, c: 'on' | 'baseline' | 'off'): Promise<{ values: Record<string, number>; summary: string }> {
  const copy = tempDir('brook-bench-cleaner-run-');
  try {
    cpSync(join(pristine, 'data'), join(copy.path, 'data'), { recursive: true });
    cpSync(join(pristine, 'bench.properties'), join(copy.path, 'bench.properties'));
    syncAll();
    const cleaner = c !== 'off';
    const config: Record<string, string> = cleaner
      ? { 'log.cleaner.enable': 'true', 'log.cleaner.backoff.ms': String(BACKOFF_MS), 'log.cleaner.min.cleanable.ratio': '0.01' }
      : { 'log.cleaner.enable': 'false' };
    const root = c === 'baseline' ? ctx.baseline! : undefined;
    const broker = await startBroker(kind, { ...ctx.pool.options(kind), dataDir: copy.path, config, root });
    try {
      const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(broker.bootstrap)));
      try {
        await commitLatency(conns, uniqueName('bench-cleaner-warmup'), topic, 1000, ctx.quick ? 500 : 2000);
        let cleanedAt: number | null = null;
        const cpuBefore = machineCpu();
        const probe = startDiskProbe(copy.path);
        let samples: CommitSample[];
        let probed: DiskProbeResult;
        try {
          samples = await openLoopCommits(conns, uniqueName('bench-cleaner-latency'), topic, 1000, {
            durationMs: cleaner ? (ctx.quick ? 30_000 : 180_000) : (ctx.quick ? 5_000 : 10_000),
            // Until the first pass over __consumer_offsets has ended, and 1 s more.
            until: cleaner ? () => {
              if (cleanedAt === null && cleaningIntervals(broker.stderr()).length > 0) cleanedAt = Date.now();
              return cleanedAt !== null && Date.now() - cleanedAt >= 1000;
            } : undefined,
          });
        } finally {
          probed = await probe.stop();
        }
        const steal = hostSteal(cpuBefore, machineCpu());
        const whole = summarize(samples);
        const values: Record<string, number> = {
          'p50': whole.p50, 'p99': whole.p99, 'sent p99': whole.sentP99, 'over 5': shareOver(samples, 5), 'steal': steal,
          'disk stalls': probed.stalls.length,
        };
        const host = (stalls: number): string => `host steal ${steal.toFixed(1)}%, disk probe: ${stalls} stall(s) of ${DISK_STALL_MS} ms or more in ${probed.count} fdatasyncs (longest ${probed.max.toFixed(1)} ms)`;
        if (!cleaner) return { values, summary: `cleaner off: p50 ${whole.p50.toFixed(2)} ms, p99 ${whole.p99.toFixed(2)} ms, ${values['over 5']!.toFixed(1)}% over 5 ms (${samples.length} commits); ${host(probed.stalls.length)}` };
        const intervals = cleaningIntervals(broker.stderr());
        const during = samples.filter((s) => intervals.some((iv) => s.scheduledAt >= iv.start && s.scheduledAt <= iv.end));
        if (during.length === 0) throw new Error(`no cleaning of __consumer_offsets during the window (log intervals: ${JSON.stringify(intervals)})`);
        const d = summarize(during);
        const first = intervals[0]!;
        const stallsDuring = probed.stalls.filter((st) => intervals.some((iv) => st.at + st.ms >= iv.start && st.at <= iv.end)).length;
        Object.assign(values, {
          'p50 during': d.p50, 'p99 during': d.p99, 'sent p99 during': d.sentP99, 'share': (100 * during.length) / samples.length,
          'over 5 during': shareOver(during, 5),
          'clean ms': first.end - first.start, 'disk stalls during': stallsDuring,
        });
        if (first.swapMs !== null) values['swap ms'] = first.swapMs;
        if (first.maxSwapMs !== null) values['max swap ms'] = first.maxSwapMs;
        return {
          values,
          summary: `${intervals.length} pass(es) over __consumer_offsets, first ${first.end - first.start} ms (${first.bytesBefore} -> ${first.bytesAfter} bytes, swaps ${first.swapMs ?? '?'} ms, longest ${first.maxSwapMs ?? '?'} ms); ${during.length} of ${samples.length} commits during cleaning: p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms, ${values['over 5 during']!.toFixed(1)}% over 5 ms; whole window p99 ${whole.p99.toFixed(2)} ms; ${host(stallsDuring)} while cleaning`,
        };
      } finally {
        for (const c of conns) c.close();
      }
    } finally {
      await broker.stop();
    }
  } finally {
    copy.remove();
    // Freeing ~330 MB stalls this disk's fsyncs for up to a few hundred ms (discards): let that happen before the next case.
    syncAll();
  }
}
