/**
 * A Kafka Streams 4.4 application's throughput on Brook and on Apache Kafka 4.4 in the same run:
 *   node dist/bench/streams-compare.js [--lines N] [--partitions P] [--reps R]
 *     [--brokers brook,kafka] [--guarantees exactly_once_v2,at_least_once] [--commit-interval-ms MS]
 * The application is test/support/java StreamsWordCount (lines → words → groupBy, through a
 * repartition topic → count, a RocksDB store with its changelog → output; record cache off,
 * so one output record per input word). Per run, broker and guarantee: fresh topics, N
 * deterministic lines produced to the input (P partitions) before the application starts,
 * then the application started and the output read with read_committed until every word
 * shows its true count. Reported: input lines/s from the application's first RUNNING state to
 * the complete output (its start-up, JVM and rebalance, shown apart), and whether the counts
 * were exact (each word's updates exactly 1..true count). Brokers: Brook as a child process,
 * Kafka in its own JVM with the full JIT (bench/lib/brokers.ts). Everything alternates within
 * each repetition; the table shows medians. The machine is shared: compare ratios within one
 * run. Not part of npm test: timings depend on the machine.
 */
import { loadavg } from 'node:os';
import { startBroker, brokerUnavailable, type BrokerKind, type BrokerUnderTest } from './lib/brokers.js';
import { createTopic, uniqueName } from './lib/topics.js';
import { tempDir } from '../test/support/brook.js';
import { buildJavaSupport } from '../test/support/java-oracle.js';
import {
  produceLines, readWordCounts, startWordCountApp, totalWords, trueCounts, wordCountInput, wrongCounts,
} from '../test/support/streams-word-count.js';

const GUARANTEES = ['exactly_once_v2', 'at_least_once'] as const;
type Guarantee = (typeof GUARANTEES)[number];

interface Args { lines: number; partitions: number; reps: number; brokers: BrokerKind[]; guarantees: Guarantee[]; commitIntervalMs: number }

function parse(argv: string[]): Args {
  const a: Args = { lines: 20_000, partitions: 2, reps: 1, brokers: ['brook', 'kafka'], guarantees: ['exactly_once_v2', 'at_least_once'], commitIntervalMs: 100 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--lines') a.lines = Number(argv[++i]);
    else if (arg === '--partitions') a.partitions = Number(argv[++i]);
    else if (arg === '--reps') a.reps = Number(argv[++i]);
    else if (arg === '--commit-interval-ms') a.commitIntervalMs = Number(argv[++i]);
    else if (arg === '--brokers') {
      a.brokers = argv[++i]!.split(',') as BrokerKind[];
      const bad = a.brokers.find((b) => b !== 'brook' && b !== 'kafka');
      if (bad !== undefined) throw new Error(`unknown broker ${bad} (brook, kafka)`);
    } else if (arg === '--guarantees') {
      a.guarantees = argv[++i]!.split(',') as Guarantee[];
      const bad = a.guarantees.find((g) => !GUARANTEES.includes(g));
      if (bad !== undefined) throw new Error(`unknown guarantee ${bad} (${GUARANTEES.join(', ')})`);
    } else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

interface Run { startupMs: number; processMs: number; exact: boolean }

async function runOnce(broker: BrokerUnderTest, guarantee: Guarantee, args: Args, input: readonly string[], expected: Map<string, number>): Promise<Run> {
  const prefix = uniqueName('wc');
  await createTopic(broker.bootstrap, `${prefix}-in`, args.partitions);
  await createTopic(broker.bootstrap, `${prefix}-out`, args.partitions);
  await produceLines(broker.bootstrap, `${prefix}-in`, input);
  const state = tempDir('brook-bench-streams-');
  const started = Date.now();
  const app = startWordCountApp({
    bootstrap: broker.bootstrap, applicationId: `${prefix}-app`, input: `${prefix}-in`, output: `${prefix}-out`,
    guarantee, stateDir: state.path, commitIntervalMs: args.commitIntervalMs,
  });
  try {
    const reading = readWordCounts(broker.bootstrap, `${prefix}-out`, args.partitions, expected, 600_000, 500);
    await app.waitFor(/^state RUNNING$/, 120_000);
    const output = await reading;
    if (output.completeAtMs === null) throw new Error(`${broker.kind} ${guarantee}: the output never completed: ${app.lines.join(' | ')}`);
    const runningAt = app.lineTimes[app.lines.indexOf('state RUNNING')]!;
    const wrong = wrongCounts(output, expected);
    if (wrong.length > 0) process.stderr.write(`${broker.kind} ${guarantee}: counts not exact: ${wrong.slice(0, 5).join('; ')}\n`);
    return { startupMs: runningAt - started, processMs: output.completeAtMs - runningAt, exact: wrong.length === 0 };
  } finally {
    const code = await app.close();
    if (code !== 0) process.stderr.write(`${broker.kind} ${guarantee}: the application exited ${code}: ${app.stderr().slice(-2000)}\n`);
    state.remove();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  for (const kind of args.brokers) {
    const why = brokerUnavailable(kind);
    if (why !== null) throw new Error(`${kind}: ${why}`);
  }
  // The application is Java whichever broker it runs on.
  const noJava = brokerUnavailable('kafka');
  if (noJava !== null) throw new Error(`Kafka Streams: ${noJava}`);
  buildJavaSupport();
  const input = wordCountInput(args.lines, 7);
  const expected = trueCounts(input);
  const brokers = new Map<BrokerKind, BrokerUnderTest>();
  const loadBefore = load();
  try {
    for (const kind of args.brokers) brokers.set(kind, await startBroker(kind, { config: { 'num.partitions': String(args.partitions) } }));
    const results = new Map<string, Run[]>();
    for (let rep = 0; rep < args.reps; rep++) {
      for (const guarantee of args.guarantees) {
        for (const [kind, broker] of brokers) {
          const key = `${kind} ${guarantee}`;
          const run = await runOnce(broker, guarantee, args, input, expected);
          results.set(key, [...(results.get(key) ?? []), run]);
          process.stderr.write(`rep ${rep + 1}/${args.reps} ${key}: start-up ${run.startupMs} ms, processing ${run.processMs} ms, exact ${run.exact} (load ${load()})\n`);
        }
      }
    }
    const words = totalWords(expected);
    console.log(`${args.lines} lines (${words} words, ${expected.size} distinct), ${args.partitions} partitions, commit.interval.ms ${args.commitIntervalMs}, ${args.reps} runs, medians; load average before ${loadBefore}, after ${load()}`);
    console.log('| guarantee | broker | start-up to RUNNING (ms) | processing (ms) | input lines/s | words/s | exact | vs Kafka |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const guarantee of args.guarantees) {
      const kafka = results.get(`kafka ${guarantee}`);
      for (const kind of brokers.keys()) {
        const runs = results.get(`${kind} ${guarantee}`)!;
        const ms = median(runs.map((r) => r.processMs));
        const ratio = kafka ? `${(median(kafka.map((r) => r.processMs)) / ms).toFixed(2)}x` : '-';
        console.log(`| ${guarantee} | ${kind} | ${median(runs.map((r) => r.startupMs))} | ${ms} | ${Math.round(args.lines / (ms / 1000))} | ${Math.round(words / (ms / 1000))} | ${runs.every((r) => r.exact) ? 'yes' : 'NO'} | ${ratio} |`);
      }
    }
  } finally {
    for (const broker of brokers.values()) await broker.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
