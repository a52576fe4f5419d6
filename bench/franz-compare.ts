/**
 * Brook's client against franz-go, interleaved run by run on the same broker(s), with the
 * load average beside each figure (the machine is shared: only ratios within one run count):
 *   node dist/bench/franz-compare.js [--brokers brook,kafka] [--only produce,consume]
 *     [--clients brook,franz] [--bootstrap HOST:PORT (a broker already running)]
 *     [--consume-topic T (already loaded with --consume-records records)] [--produce-records N] [--consume-records N] [--value-bytes 100,1000] [--acks all,1] [--reps R]
 * Produce: each client sends N records (null key, the given value size) one call per record
 * with a completion callback (Brook: `send(record, callback)`; franz-go: `Produce(ctx, rec,
 * promise)`), into a fresh 6-partition topic per run, until every record is acknowledged.
 * Consume: a topic of N records (loaded once per broker, independently of both clients), read
 * from the start by each client in a fresh group (Brook: a pollViews loop with its defaults;
 * franz-go: PollFetches); time from subscribe to the last record, and to the first.
 * Medians of R runs; ratio = franz-go's time / Brook's (above 1x: Brook faster).
 * Each producer runs with its defaults: franz-go compresses with snappy, Brook's producer (as
 * Java's and librdkafka's) does not, and the values (all 'x') compress about twentyfold. For
 * one codec on both: FRANZBENCH_COMPRESSION=none (franz-go), or
 * BROOK_PRODUCER_OPTIONS='{"compression":"snappy"}' (Brook's producer options as JSON).
 * Not part of npm test or npm run bench: timings depend on the machine.
 */
import { loadavg } from 'node:os';
import { Consumer } from '../src/client/consumer/index.js';
import { Producer } from '../src/client/producer/index.js';
import { franzClient } from './clients/franz.js';
import { startBroker, type BrokerKind, type BrokerUnderTest } from './lib/brokers.js';
import { createTopic, loadTopic, uniqueName } from './lib/topics.js';
import { progress } from './lib/progress.js';

interface Args { brokers: BrokerKind[]; clients: string[]; bootstrap: string | null; consumeTopic: string | null; only: string[]; produceRecords: number; consumeRecords: number; valueBytes: number[]; acks: (-1 | 1)[]; reps: number }

function parseArgs(argv: string[]): Args {
  const a: Args = { brokers: ['brook'], clients: ['brook', 'franz'], bootstrap: null, consumeTopic: null, only: ['produce', 'consume'], produceRecords: 1_000_000, consumeRecords: 5_000_000, valueBytes: [100], acks: [-1], reps: 3 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = (): string => argv[++i] ?? '';
    if (arg === '--brokers') a.brokers = next().split(',') as BrokerKind[];
    else if (arg === '--bootstrap') a.bootstrap = next();
    else if (arg === '--consume-topic') a.consumeTopic = next();
    else if (arg === '--clients') a.clients = next().split(',');
    else if (arg === '--only') a.only = next().split(',');
    else if (arg === '--produce-records') a.produceRecords = Number(next());
    else if (arg === '--consume-records') a.consumeRecords = Number(next());
    else if (arg === '--value-bytes') a.valueBytes = next().split(',').map(Number);
    else if (arg === '--acks') a.acks = next().split(',').map((s) => (s === 'all' || s === '-1' ? -1 : 1));
    else if (arg === '--reps') a.reps = Number(next());
    else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

const PARTITIONS = 6;

interface Sample { ms: number; firstMs?: number; load: number }

async function brookProduce(bootstrap: string, topic: string, records: number, valueBytes: number, acks: -1 | 1): Promise<number> {
  const producer = new Producer({ bootstrapServers: bootstrap, clientId: 'brook-franz-compare', acks, ...JSON.parse(process.env.BROOK_PRODUCER_OPTIONS ?? '{}') });
  try {
    await producer.connect();
    const value = Buffer.alloc(valueBytes, 'x');
    let left = records;
    let failure: Error | null = null;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => { done = resolve; });
    const callback = (err: Error | null): void => {
      if (err !== null) failure ??= err;
      if (--left === 0) done();
    };
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    // send(record, callback) never blocks: beyond bufferMemory, records wait inside the
    // producer (at most maxBlockMs each) until earlier batches are acknowledged.
    for (let i = 0; i < records; i++) producer.send({ topic, value }, callback);
    if (process.env.BROOK_TRACE) progress(`all sent after ${(performance.now() - start).toFixed(0)} ms`);
    await finished;
    const ms = performance.now() - start;
    if (process.env.BROOK_TRACE) {
      const cpu = process.cpuUsage(cpuBefore);
      progress(`client CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms of ${ms.toFixed(0)} ms; metrics ${JSON.stringify(producer.metrics())}`);
    }
    if (failure !== null) throw failure;
    return ms;
  } finally {
    await producer.close();
  }
}

async function brookConsume(bootstrap: string, topic: string, records: number): Promise<{ ms: number; firstMs: number }> {
  const consumer = new Consumer({ bootstrapServers: bootstrap, clientId: 'brook-franz-compare', groupId: uniqueName('franz-compare-group'), autoOffsetReset: 'earliest' });
  try {
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    let count = 0;
    let first = -1;
    consumer.subscribe([topic]);
    // pollViews by default (as bench/clients/brook.ts); BROOK_POLL=records: poll().
    const views = process.env.BROOK_POLL !== 'records';
    while (count < records) {
      const batch = views ? await consumer.pollViews({ timeoutMs: 1_000 }) : await consumer.poll({ timeoutMs: 1_000 });
      if (batch.length > 0 && first < 0) first = performance.now() - start;
      count += batch.length;
    }
    const ms = performance.now() - start;
    if (process.env.BROOK_TRACE) {
      const cpu = process.cpuUsage(cpuBefore);
      progress(`client CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms of ${ms.toFixed(0)} ms`);
    }
    return { ms, firstMs: first };
  } finally {
    await consumer.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function row(label: string, brook: Sample[], franz: Sample[], records: number): string {
  const b = brook.length > 0 ? median(brook.map((s) => s.ms)) : NaN;
  const f = franz.length > 0 ? median(franz.map((s) => s.ms)) : NaN;
  const first = (xs: Sample[]): string => (xs[0]?.firstMs !== undefined ? ` first ${median(xs.map((s) => s.firstMs!)).toFixed(0)} ms` : '');
  const loads = [...brook, ...franz].map((s) => s.load);
  return `${label.padEnd(36)} brook ${b.toFixed(0).padStart(6)} ms (${(records / b * 1000 / 1e6).toFixed(2)}M/s${first(brook)})  franz ${f.toFixed(0).padStart(6)} ms (${(records / f * 1000 / 1e6).toFixed(2)}M/s${first(franz)})  ratio ${(f / b).toFixed(2)}x  load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}  runs brook [${brook.map((s) => s.ms.toFixed(0)).join(', ')}] franz [${franz.map((s) => s.ms.toFixed(0)).join(', ')}]`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const lines: string[] = [];
  for (const kind of args.brokers) {
    progress(`starting ${kind} broker`);
    const broker: Pick<BrokerUnderTest, 'bootstrap' | 'stop'> = args.bootstrap !== null
      ? { bootstrap: args.bootstrap, stop: async () => undefined }
      : await startBroker(kind, {});
    try {
      if (args.only.includes('produce')) {
        for (const valueBytes of args.valueBytes) {
          for (const acks of args.acks) {
            const records = valueBytes >= 1000 ? Math.round(args.produceRecords / 5) : args.produceRecords;
            const brook: Sample[] = [];
            const franz: Sample[] = [];
            for (let rep = 0; rep < args.reps; rep++) {
              // Alternating which goes first, so neither always runs after the other's load.
              const order = (rep % 2 === 0 ? ['brook', 'franz'] : ['franz', 'brook']).filter((c) => args.clients.includes(c));
              for (const who of order) {
                const topic = uniqueName('franz-compare-produce');
                await createTopic(broker.bootstrap, topic, PARTITIONS);
                const load = loadavg()[0]!;
                const ms = who === 'brook'
                  ? await brookProduce(broker.bootstrap, topic, records, valueBytes, acks)
                  : (await franzClient.produce({ bootstrap: broker.bootstrap, topic, partitions: PARTITIONS, records, valueBytes, acks, timeoutMs: 600_000 })).ms;
                (who === 'brook' ? brook : franz).push({ ms, load });
                progress(`produce ${kind} ${records}x${valueBytes} acks=${acks}: ${who} ${ms.toFixed(0)} ms (load ${load.toFixed(1)})`);
              }
            }
            lines.push(row(`${kind} produce ${records}x${valueBytes}B acks=${acks === -1 ? 'all' : '1'}`, brook, franz, records));
          }
        }
      }
      if (args.only.includes('consume')) {
        const records = args.consumeRecords;
        const topic = args.consumeTopic ?? uniqueName('franz-compare-consume');
        if (args.consumeTopic === null) {
          await createTopic(broker.bootstrap, topic, PARTITIONS);
          progress(`loading ${records} records into ${kind}`);
          await loadTopic(broker.bootstrap, topic, { records, valueBytes: 100, partitions: PARTITIONS });
        }
        const brook: Sample[] = [];
        const franz: Sample[] = [];
        for (let rep = 0; rep < args.reps; rep++) {
          const order = (rep % 2 === 0 ? ['brook', 'franz'] : ['franz', 'brook']).filter((c) => args.clients.includes(c));
          for (const who of order) {
            const load = loadavg()[0]!;
            const r = who === 'brook'
              ? await brookConsume(broker.bootstrap, topic, records)
              : await franzClient.consume({ bootstrap: broker.bootstrap, topic, group: uniqueName('franz-compare-group'), records, timeoutMs: 600_000 })
                .then((x) => ({ ms: x.ms, firstMs: x.firstRecordMs ?? -1 }));
            (who === 'brook' ? brook : franz).push({ ms: r.ms, firstMs: r.firstMs, load });
            progress(`consume ${kind} ${records}: ${who} ${r.ms.toFixed(0)} ms, first ${r.firstMs.toFixed(0)} ms (load ${load.toFixed(1)})`);
          }
        }
        lines.push(row(`${kind} consume ${records}x100B`, brook, franz, records));
      }
    } finally {
      await broker.stop();
    }
  }
  process.stdout.write(`\nmedians of ${args.reps}, ratio = franz-go's time / Brook's (above 1x: Brook faster)\n${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
