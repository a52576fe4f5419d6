/**
 * Scenario 10: embedded start. What an application's test suite pays for a broker of its own:
 * `Broker.start({ port: 0, dataDir: null })` until it accepts connections, and `stop()`, in
 * this process (modules loaded: one suite starting many brokers); in a new Node process,
 * loading the package first (one test file's first broker); and, for comparison, a broker
 * process from spawn to ready: Brook's `bin/brook broker` (file storage) and Apache Kafka 4.4
 * (single-node KRaft, storage formatted beforehand, not counted).
 */
import { join } from 'node:path';
import { Broker } from '../../src/broker/broker.js';
import { silentLogger } from '../../src/util/log.js';
import { projectRoot } from '../../test/support/brook.js';
import { startBroker } from '../lib/brokers.js';
import { lastJsonLine, runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { Recorder, checkTarget, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';

const ms = (name: string) => ({ name, unit: 'ms', lowerIsBetter: true });

/** A new Node process: load the package, start an in-memory broker, stop it; times in ms. */
const COLD_START = `
const t0 = performance.now();
const { Broker, silentLogger } = await import(${JSON.stringify(join(projectRoot, 'dist', 'src', 'index.js'))});
const t1 = performance.now();
const broker = await Broker.start({ port: 0, dataDir: null, log: silentLogger });
const t2 = performance.now();
await broker.stop();
const t3 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, startMs: t2 - t1, stopMs: t3 - t2 }));
`;

export const embeddedStartScenario: Scenario = {
  name: 'embedded-start',
  title: 'embedded start: an in-memory Broker.start until it accepts connections, and stop',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const where = (c: string, broker: 'brook' | 'kafka' = 'brook') => ({ case: c, client: '-', broker });

    await rec.attempt('in process', async () => {
      const cycles = ctx.quick ? 20 : 200;
      progress(`embedded-start: ${cycles} in-memory starts and stops in this process`);
      const start: number[] = [];
      const stop: number[] = [];
      for (let i = 0; i < cycles; i++) {
        const t0 = performance.now();
        const broker = await Broker.start({ port: 0, dataDir: null, log: silentLogger });
        const t1 = performance.now();
        await broker.stop();
        start.push(t1 - t0);
        stop.push(performance.now() - t1);
      }
      rec.add(where('in process, memory'), ms('start'), start);
      rec.add(where('in process, memory'), ms('stop'), stop);
      rec.add(where('in process, memory'), ms('start + stop'), start.map((s, i) => s + stop[i]!));
    });

    await rec.attempt('new process', async () => {
      const runs = ctx.quick ? 2 : Math.max(ctx.runs, 10);
      const results: { importMs: number; startMs: number; stopMs: number }[] = [];
      for (let run = 1; run <= runs; run++) {
        progress(`embedded-start: new process, run ${run}/${runs}`);
        const child = await runChild(process.execPath, ['--input-type=module', '-e', COLD_START], { timeoutMs: 60_000 });
        results.push(lastJsonLine(child, 'the embedding process'));
      }
      rec.add(where('new process, memory'), ms('import'), results.map((r) => r.importMs));
      rec.add(where('new process, memory'), ms('first start'), results.map((r) => r.startMs));
      rec.add(where('new process, memory'), ms('import + first start'), results.map((r) => r.importMs + r.startMs));
    });

    for (const kind of usableBrokers(ctx, rec)) {
      if (ctx.quick && kind !== 'brook') {
        rec.skipped.push(`${kind} broker process: not in quick mode`);
        continue;
      }
      await rec.attempt(`${kind} broker process`, async () => {
        const startup: number[] = [];
        for (let run = 1; run <= ctx.runs; run++) {
          progress(`embedded-start: ${kind} broker process, run ${run}/${ctx.runs}`);
          const broker = await startBroker(kind, ctx.pool.options(kind));
          startup.push(broker.startupMs);
          await broker.stop();
        }
        rec.add(where('broker process, spawn to ready', kind), ms('start'), startup);
      });
    }
    rec.notes.push('in process: the median of many cycles, modules already loaded; new process: Node started, the package imported, then the first start');
    rec.notes.push('broker process: Brook with file storage in a temp dir; Kafka with its storage formatted before the spawn (not counted), -Xms512m -Xmx1g');
    return rec.report([
      checkTarget('in-memory Broker.start + stop < 50 ms (in process)', rec.find({ case: 'in process, memory', metric: 'start + stop' }), (v) => v < 50, (v) => `${v.toFixed(2)} ms`),
    ]);
  },
};
