/**
 * Transactional produce throughput: Brook's Producer and Java's KafkaProducer (kafka-clients
 * 4.4.0, BenchTxnProducer in test/support/java), each with a transactional.id, against Brook's
 * broker and against Apache Kafka 4.4 (its full JIT, bench/lib/brokers.ts), in the same run:
 *   node dist/bench/txn-produce-compare.js [--records N] [--per-txn T] [--value-bytes B] [--reps R]
 *     [--brokers brook,kafka] [--clients brook,java]
 * Each run: a fresh 6-partition topic, initTransactions, then N records (B-byte values, no
 * keys) in transactions of T records: beginTransaction, the sends without waiting,
 * commitTransaction (which flushes and ends the transaction with EndTxn; the broker writes
 * the markers). The clock runs from the first beginTransaction to the last commit. Within a
 * repetition the clients alternate; the table shows medians and the ratios Brook/Kafka
 * (same client) and Brook's producer/Java's (same broker). The machine is shared: compare
 * ratios within one run. Not part of npm test: timings depend on the machine.
 */
import { loadavg } from 'node:os';
import { Producer } from '../src/client/producer/index.js';
import { benchJar, clientJvmOptions, javaUnavailable } from './clients/java.js';
import { brokerUnavailable, startBroker, type BrokerKind, type BrokerUnderTest } from './lib/brokers.js';
import { lastJsonLine, runChild } from './lib/child.js';
import { median } from './lib/stats.js';
import { createTopic, uniqueName } from './lib/topics.js';

const CLIENT_NAMES = ['brook', 'java'] as const;
type ClientName = (typeof CLIENT_NAMES)[number];

interface Args { records: number; perTxn: number; valueBytes: number; reps: number; brokers: BrokerKind[]; clients: ClientName[] }

function parse(argv: string[]): Args {
  const a: Args = { records: 200_000, perTxn: 1000, valueBytes: 100, reps: 3, brokers: ['brook', 'kafka'], clients: ['brook', 'java'] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--records') a.records = Number(argv[++i]);
    else if (arg === '--per-txn') a.perTxn = Number(argv[++i]);
    else if (arg === '--value-bytes') a.valueBytes = Number(argv[++i]);
    else if (arg === '--reps') a.reps = Number(argv[++i]);
    else if (arg === '--brokers') a.brokers = argv[++i]!.split(',') as BrokerKind[];
    else if (arg === '--clients') a.clients = argv[++i]!.split(',') as ClientName[];
    else throw new Error(`unknown argument ${arg}`);
  }
  for (const b of a.brokers) if (b !== 'brook' && b !== 'kafka') throw new Error(`unknown broker ${b} (brook, kafka)`);
  for (const c of a.clients) if (!CLIENT_NAMES.includes(c)) throw new Error(`unknown client ${c} (${CLIENT_NAMES.join(', ')})`);
  return a;
}

const PARTITIONS = 6;

interface Run { ms: number; transactions: number }

/** Brook's Producer in this process: send() per record without awaiting, commitTransaction per T records. */
async function brookProducer(bootstrap: string, topic: string, args: Args): Promise<Run> {
  const producer = new Producer({ bootstrapServers: bootstrap, transactionalId: uniqueName('bench-txn-brook'), acks: 'all' });
  const value = Buffer.alloc(args.valueBytes, 'v');
  let failed: unknown = null;
  const onError = (err: unknown): void => { failed ??= err; };
  try {
    await producer.initTransactions();
    let transactions = 0;
    const start = performance.now();
    for (let from = 0; from < args.records; from += args.perTxn) {
      producer.beginTransaction();
      const to = Math.min(args.records, from + args.perTxn);
      for (let i = from; i < to; i++) producer.send({ topic, value }).catch(onError);
      await producer.commitTransaction();
      transactions++;
    }
    const ms = performance.now() - start;
    if (failed !== null) throw failed;
    return { ms, transactions };
  } finally {
    await producer.close();
  }
}

/** Java's KafkaProducer in its own JVM (it times itself: JVM start-up is not counted). */
async function javaProducer(bootstrap: string, topic: string, args: Args): Promise<Run> {
  const result = await runChild('java', [
    ...clientJvmOptions, '-cp', benchJar(), 'brook.conformance.BenchTxnProducer',
    bootstrap, topic, String(args.records), String(args.valueBytes), String(args.perTxn), uniqueName('bench-txn-java'),
  ], { timeoutMs: 600_000 });
  const r = lastJsonLine<{ records: number; transactions: number; ms: number; errors: number; firstError?: string }>(result, 'BenchTxnProducer');
  if (r.errors > 0) throw new Error(`BenchTxnProducer: ${r.errors} sends failed, first: ${r.firstError}`);
  return { ms: r.ms, transactions: r.transactions };
}

const CLIENTS: Record<ClientName, (bootstrap: string, topic: string, args: Args) => Promise<Run>> = { brook: brookProducer, java: javaProducer };

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  for (const b of args.brokers) {
    const why = brokerUnavailable(b);
    if (why !== null) throw new Error(`${b}: ${why}`);
  }
  if (args.clients.includes('java')) {
    const why = javaUnavailable();
    if (why !== null) throw new Error(`java: ${why}`);
    benchJar();
  }
  const rates = new Map<string, number[]>();
  const keyOf = (broker: BrokerKind, client: ClientName): string => `${broker}/${client}`;
  console.error(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const kind of args.brokers) {
    const broker: BrokerUnderTest = await startBroker(kind);
    try {
      for (let rep = 0; rep < args.reps; rep++) {
        // Rotate the order each repetition so no client always runs first.
        const order = args.clients.map((_, i) => args.clients[(i + rep) % args.clients.length]!);
        for (const client of order) {
          const topic = uniqueName('bench-txn');
          await createTopic(broker.bootstrap, topic, PARTITIONS);
          const run = await CLIENTS[client](broker.bootstrap, topic, args);
          const rate = args.records / (run.ms / 1000);
          const key = keyOf(kind, client);
          rates.set(key, [...(rates.get(key) ?? []), rate]);
          console.error(`  ${kind} broker, ${client} producer, rep ${rep + 1}: ${Math.round(rate)} records/s (${run.transactions} transactions in ${Math.round(run.ms)} ms)`);
        }
      }
    } finally {
      await broker.stop();
    }
  }
  console.error(`load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const med = (broker: BrokerKind, client: ClientName): number => median(rates.get(keyOf(broker, client)) ?? []);
  console.log(`\nTransactional produce, ${args.records} records of ${args.valueBytes} B, ${args.perTxn} per transaction (commit each), ${PARTITIONS} partitions, median of ${args.reps}:`);
  console.log(`  ${'broker'.padEnd(8)} ${'producer'.padEnd(9)} ${'records/s'.padStart(10)} ${'txn/s'.padStart(7)}`);
  for (const b of args.brokers) {
    for (const c of args.clients) {
      const r = med(b, c);
      console.log(`  ${b.padEnd(8)} ${c.padEnd(9)} ${String(Math.round(r)).padStart(10)} ${(r / args.perTxn).toFixed(1).padStart(7)}`);
    }
  }
  if (args.brokers.includes('brook') && args.brokers.includes('kafka')) {
    for (const c of args.clients) console.log(`  ${c} producer: Brook's broker / Kafka's = ${(med('brook', c) / med('kafka', c)).toFixed(2)}x`);
  }
  if (args.clients.includes('brook') && args.clients.includes('java')) {
    for (const b of args.brokers) console.log(`  ${b} broker: Brook's producer / Java's = ${(med(b, 'brook') / med(b, 'java')).toFixed(2)}x`);
  }
}

await main();
