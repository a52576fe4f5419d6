/**
 * Scenario 8: restart. A broker whose data dir holds 1M offset-commit records in
 * __consumer_offsets (10,000 commits of 100 partitions) and 1 GB of topic data (1M x 1 KB)
 * (quick: 10k records and 10 MB) is stopped cleanly and started again: measured are the time
 * from spawn to accepting connections, and to "ready" (the group's committed offsets served
 * by OffsetFetch, i.e. the coordinator has loaded __consumer_offsets).
 */
import { startBroker, type BrokerKind, type BrokerStartOptions } from '../lib/brokers.js';
import { commit, connect, ensureCoordinator, fetchCommitted } from '../lib/commits.js';
import { progress } from '../lib/progress.js';
import { Recorder, checkTarget, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, loadTopic, uniqueName } from '../lib/topics.js';
import { tempDir } from '../../test/support/brook.js';

const COMMIT_PARTITIONS = 100;

export interface RestartSize {
  commits: number;
  dataRecords: number;
  valueBytes: number;
}

export function restartSize(quick: boolean): RestartSize {
  return quick ? { commits: 100, dataRecords: 10_000, valueBytes: 1000 } : { commits: 10_000, dataRecords: 1_000_000, valueBytes: 1000 };
}

/** Fills a fresh data dir for `kind`; returns the group and topic whose commit shows readiness. */
export async function prepareDataDir(kind: BrokerKind, dataDir: string, size: RestartSize, start: BrokerStartOptions = {}): Promise<{ group: string; topic: string; lastOffset: bigint }> {
  // Without the log cleaner, so the restart replays all the offset-commit records written
  // (Brook's 10 MiB __consumer_offsets segments would otherwise be compacted to ~10k keys).
  const broker = await startBroker(kind, { ...start, dataDir, config: { ...start.config, 'log.cleaner.enable': 'false' } });
  try {
    const topic = uniqueName('bench-restart');
    await createTopic(broker.bootstrap, topic, COMMIT_PARTITIONS);
    const group = uniqueName('bench-restart-group');
    progress(`restart: ${kind}: ${size.commits * COMMIT_PARTITIONS} offset-commit records`);
    const conn = await connect(broker.bootstrap);
    try {
      await ensureCoordinator(conn, group);
      let next = 0;
      // Many groups, as a real cluster has: 100 groups, each committing in turn.
      const worker = async (): Promise<void> => {
        while (next < size.commits) {
          const i = next++;
          await commit(conn, i === size.commits - 1 ? group : `${group}-${i % 100}`, topic, COMMIT_PARTITIONS, BigInt(i));
        }
      };
      await Promise.all(Array.from({ length: 32 }, worker));
    } finally {
      conn.close();
    }
    progress(`restart: ${kind}: ${((size.dataRecords * size.valueBytes) / 1e6).toFixed(0)} MB of topic data`);
    const dataTopic = uniqueName('bench-restart-data');
    await createTopic(broker.bootstrap, dataTopic, 6);
    await loadTopic(broker.bootstrap, dataTopic, { records: size.dataRecords, valueBytes: size.valueBytes, partitions: 6, batchRecords: 100 });
    return { group, topic, lastOffset: BigInt(size.commits - 1) };
  } finally {
    await broker.stop();
  }
}

export const restartScenario: Scenario = {
  name: 'restart',
  title: 'restart with 1M offset-commit records and 1 GB of topic data',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const size = restartSize(ctx.quick);
    const caseName = `${size.commits * COMMIT_PARTITIONS} offsets, ${((size.dataRecords * size.valueBytes) / 1e6).toFixed(0)} MB`;
    rec.notes.push('clean stop (SIGTERM) then start on the same data dir; "ready" = OffsetFetch returns the last commit');
    for (const kind of usableBrokers(ctx, rec)) {
      if (ctx.quick && kind !== 'brook') {
        rec.skipped.push(`${kind}: not in quick mode (two more broker starts)`);
        continue;
      }
      await rec.attempt(`${kind}`, async () => {
        const dir = tempDir(`brook-bench-restart-${kind}-`);
        try {
          const { group, topic, lastOffset } = await prepareDataDir(kind, dir.path, size, ctx.pool.options(kind));
          const listening: number[] = [];
          const ready: number[] = [];
          for (let run = 1; run <= ctx.runs; run++) {
            progress(`restart: ${kind}, run ${run}/${ctx.runs}`);
            const broker = await startBroker(kind, { ...ctx.pool.options(kind), dataDir: dir.path });
            try {
              const after = performance.now();
              const conn = await connect(broker.bootstrap);
              try {
                const deadline = Date.now() + 300_000;
                for (;;) {
                  const committed = await fetchCommitted(conn, group, topic).catch(() => null);
                  if (committed === lastOffset) break;
                  if (Date.now() > deadline) throw new Error(`committed offset not served after restart (got ${committed})`);
                  await new Promise((r) => setTimeout(r, 10));
                }
              } finally {
                conn.close();
              }
              listening.push(broker.startupMs);
              ready.push(broker.startupMs + (performance.now() - after));
              progress(`restart: ${kind}: listening after ${broker.startupMs.toFixed(0)} ms, ready after ${ready.at(-1)!.toFixed(0)} ms`);
            } finally {
              await broker.stop();
            }
          }
          const where = { case: caseName, client: '-', broker: kind };
          rec.add(where, { name: 'to listening', unit: 'ms', lowerIsBetter: true }, listening);
          rec.add(where, { name: 'to ready', unit: 'ms', lowerIsBetter: true }, ready);
        } finally {
          dir.remove();
        }
      });
    }
    return rec.report([
      checkTarget('restart <= 2 s (Brook broker, to ready)', rec.find({ broker: 'brook', metric: 'to ready' }), (v) => v <= 2000, (v) => `${v.toFixed(0)} ms`),
    ]);
  },
};
