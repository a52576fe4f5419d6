/**
 * brook/kafkajs against KafkaJS 2.2.4: one application (clients/kafkajs-app.ts) run with each
 * library, on the same Brook broker (`bin/brook broker`, the run's pool), in the same run:
 *
 * - produce: N keyed messages of about 512 B with `producer.send` of 1,000 (awaited one at a
 *   time), acks -1, uncompressed; and a smaller N gzip-compressed;
 * - consume with `eachMessage`, and with `eachBatch` (eachBatchAutoResolve): one consumer in a
 *   fresh group, fromBeginning, until all N messages of a topic loaded beforehand are seen.
 *
 * Every run is a new Node process (its own heap: peak RSS and CPU time are that client's) and
 * a fresh topic; the two libraries take turns, the first of each pair swapped every
 * repetition, so that whatever else loads the machine weighs on both. The ratio column is
 * brook/kafkajs against KafkaJS (above 1x: brook/kafkajs better; for times, CPU and memory:
 * KafkaJS's over brook/kafkajs's).
 */
import { join } from 'node:path';
import { Producer } from '../../src/client/producer/index.js';
import { projectRoot } from '../../test/support/brook.js';
import type { AppModule, AppResult, AppSpec, AppWorkload } from '../clients/kafkajs-app.js';
import { appMessages } from '../clients/kafkajs-app-data.js';
import { lastJsonLine, runChild } from '../lib/child.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { formatNumber } from '../lib/format.js';
import { progress } from '../lib/progress.js';
import { Recorder, type Metric, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';

const PARTITIONS = 6;
const VALUE_BYTES = 512;
const SEND_BATCH = 1_000;
const SENDS_IN_FLIGHT = 1;
const MODULES: readonly AppModule[] = ['brook/kafkajs', 'kafkajs'];
const APP = join(projectRoot, 'dist', 'bench', 'clients', 'kafkajs-app.js');

interface Case {
  readonly name: string;
  readonly workload: AppWorkload;
  readonly messages: number;
  readonly compression: 'none' | 'gzip';
}

function cases(quick: boolean): Case[] {
  const n = quick ? 2_000 : 200_000;
  const gzip = quick ? 1_000 : 50_000;
  const k = (x: number): string => (x >= 1_000 && x % 1_000 === 0 ? `${x / 1_000}k` : String(x));
  return [
    { name: `produce ${k(n)} x ${VALUE_BYTES} B, acks -1`, workload: 'produce', messages: n, compression: 'none' },
    { name: `produce ${k(gzip)} x ${VALUE_BYTES} B, acks -1, gzip`, workload: 'produce', messages: gzip, compression: 'gzip' },
    { name: `eachMessage ${k(n)} x ${VALUE_BYTES} B`, workload: 'eachMessage', messages: n, compression: 'none' },
    { name: `eachBatch ${k(n)} x ${VALUE_BYTES} B`, workload: 'eachBatch', messages: n, compression: 'none' },
  ];
}

const rate = (name: string): Metric => ({ name, unit: 'msgs/s', lowerIsBetter: false });
const ms = (name: string): Metric => ({ name, unit: 'ms', lowerIsBetter: true });
const mib: Metric = { name: 'client peak RSS', unit: 'MiB', lowerIsBetter: true };

/** Fills a consume case's topic with the application's own messages (Brook's producer: not one of the two under test's code paths). */
async function loadTopic(bootstrap: string, topic: string, messages: number): Promise<void> {
  const producer = new Producer({ bootstrapServers: bootstrap, clientId: 'brook-bench-loader', acks: 1 });
  try {
    const messageOf = appMessages(VALUE_BYTES);
    for (let from = 0; from < messages; from += 5_000) {
      const n = Math.min(5_000, messages - from);
      await producer.sendBatch(Array.from({ length: n }, (_, j) => ({ topic, ...messageOf(from + j) })));
    }
  } finally {
    await producer.close();
  }
}

/** Per-run values of one (case, module), by metric. */
type Samples = Map<string, { metric: Metric; values: number[] }>;

function push(samples: Samples, metric: Metric, value: number | null): void {
  let entry = samples.get(metric.name);
  if (entry === undefined) samples.set(metric.name, (entry = { metric, values: [] }));
  entry.values.push(value ?? Number.NaN);
}

export const kafkajsScenario: Scenario = {
  name: 'kafkajs',
  title: 'brook/kafkajs vs KafkaJS 2.2.4: one application, produce, eachMessage, eachBatch, on Brook\'s broker',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    rec.caseRatio = 'brook/kafkajs vs KafkaJS';
    if (!ctx.brokers.includes('brook')) {
      rec.skipped.push('runs on Brook\'s broker only (--brokers has no brook)');
      return rec.report();
    }
    const all = cases(ctx.quick);
    rec.notes.push(
      `one application (bench/clients/kafkajs-app.ts), importing kafkajs or brook/kafkajs; each run a new Node process and a fresh ${PARTITIONS}-partition topic on Brook's broker (bin/brook broker, fsync on); the two take turns, the first of each pair swapped every repetition`,
      `produce: keyed messages (10,000 keys) with JSON text values of about ${VALUE_BYTES} B, producer.send of ${SEND_BATCH} at a time, ${SENDS_IN_FLIGHT} in flight, acks -1; throughput from connect() to the last acknowledgement`,
      'consume: the same messages loaded beforehand (Brook\'s producer), one consumer in a fresh group, fromBeginning, KafkaJS\'s defaults; "from GROUP_JOIN" and "from first message" end at the last message; "total" is connect() to the last message',
      'client CPU: process.cpuUsage() over the workload; client process CPU: the whole process (start-up and import included); peak RSS: process.resourceUsage().maxRSS; broker CPU: /proc, over the child\'s life',
    );
    await rec.attempt('brook broker', async () => {
      const broker = await ctx.pool.get('brook');
      const samples = new Map<string, Samples>();
      const samplesOf = (c: Case, m: AppModule): Samples => {
        const key = `${c.name}\n${m}`;
        let s = samples.get(key);
        if (s === undefined) samples.set(key, (s = new Map()));
        return s;
      };
      const timeoutMs = ctx.quick ? 60_000 : 600_000;
      for (let run = 1; run <= ctx.runs; run++) {
        const order = run % 2 === 1 ? MODULES : [...MODULES].reverse();
        for (const c of all) {
          for (const module of order) {
            await rec.attempt(`${c.name}, ${module}, run ${run}`, async () => {
              const topic = uniqueName('bench-kafkajs');
              await createTopic(broker.bootstrap, topic, PARTITIONS);
              if (c.workload !== 'produce') await loadTopic(broker.bootstrap, topic, c.messages);
              progress(`kafkajs: ${c.name}, ${module}, run ${run}/${ctx.runs}`);
              const spec: AppSpec = {
                module, workload: c.workload, bootstrap: broker.bootstrap, topic, messages: c.messages, timeoutMs,
                ...(c.workload === 'produce'
                  ? { valueBytes: VALUE_BYTES, batch: SEND_BATCH, inFlight: SENDS_IN_FLIGHT, compression: c.compression }
                  : { group: uniqueName('bench-kafkajs-group') }),
              };
              const brokerCpu0 = cpuMsOf(broker.pid);
              const child = await runChild(process.execPath, [APP, JSON.stringify(spec)], { timeoutMs: timeoutMs + 30_000 });
              const brokerCpu = cpuMsOf(broker.pid) - brokerCpu0;
              const r = lastJsonLine<AppResult>(child, `${module} ${c.workload}`);
              if (r.messages < c.messages) throw new Error(`${module} ${c.workload}: ${r.messages} of ${c.messages} messages`);
              const s = samplesOf(c, module);
              if (c.workload === 'produce') {
                push(s, rate('throughput'), (r.messages / r.ms) * 1000);
              } else {
                push(s, rate('from GROUP_JOIN'), r.joinMs === null ? null : (r.messages / (r.ms - r.joinMs)) * 1000);
                push(s, rate('from first message'), r.firstMs === null ? null : (r.messages / (r.ms - r.firstMs)) * 1000);
                push(s, ms('total'), r.ms);
                push(s, ms('to GROUP_JOIN'), r.joinMs);
              }
              push(s, ms('client CPU'), r.cpuMs);
              push(s, ms('client process CPU'), r.processCpuMs);
              push(s, mib, r.peakRssBytes / 2 ** 20);
              push(s, ms('broker CPU'), brokerCpu);
              progress(`kafkajs: ${module}: ${formatNumber(r.messages / r.ms * 1000)} msgs/s overall, ${r.ms.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms, RSS ${(r.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
            });
          }
        }
      }
      for (const c of all) {
        for (const module of MODULES) {
          for (const { metric, values } of samplesOf(c, module).values()) {
            rec.add({ case: c.name, client: module, broker: 'brook', ...(module === 'brook/kafkajs' ? { vsClient: 'kafkajs' } : {}) }, metric, values);
          }
        }
      }
    });
    return rec.report();
  },
};
