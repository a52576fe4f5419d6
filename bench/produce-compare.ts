/**
 * Produce throughput, acks=all, Brook's Producer vs KafkaJS vs @platformatic/kafka, in the
 * same run against the same broker (Brook's, in a child process; optionally Apache Kafka):
 *   node dist/bench/produce-compare.js [--records N] [--quick] [--reps R] [--kafka] [--only a,b]
 *     [--keys | --no-keys] [--broker-arg ARG]... [--bootstrap HOST:PORT (a broker already running)]
 * Each client produces N records (~100 B values; with string keys, then without keys) to a
 * fresh 6-partition topic the way a throughput-oriented user would: batches of 1000 records,
 * several batches in flight, everything acknowledged before the clock stops. Runs alternate
 * between clients; the table shows medians, and ratios of Brook to the others. The machine
 * is shared, so only ratios within one run mean anything.
 * Not part of npm test: timings depend on the machine.
 */
import { Kafka, logLevel, CompressionTypes } from 'kafkajs';
import { Producer, type ProducerRecord } from '../src/client/producer/index.js';
import { spawnBrook, tempDir } from '../test/support/brook.js';
import { platformaticKafka } from '../test/support/clients/platformatic-kafka.js';
import { cpuMsOf } from './lib/cpu-time.js';

/** 2.x, or 1.x on Node before 22.22 (test/support/clients/platformatic-kafka.ts). */
const { Producer: PlatformaticProducer, ProduceAcks } = platformaticKafka;

interface Args { records: number; reps: number; kafka: boolean; only: string[] | null; keys: boolean[]; brokerArgs: string[]; bootstrap: string | null }

function parseArgs(argv: string[]): Args {
  const a: Args = { records: 1_000_000, reps: 3, kafka: false, only: null, keys: [true, false], brokerArgs: [], bootstrap: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') a.records = 200_000;
    else if (arg === '--records') a.records = Number(argv[++i]);
    else if (arg === '--reps') a.reps = Number(argv[++i]);
    else if (arg === '--kafka') a.kafka = true;
    else if (arg === '--only') a.only = argv[++i]!.split(',');
    else if (arg === '--keys') a.keys = [true];
    else if (arg === '--no-keys') a.keys = [false];
    else if (arg === '--bootstrap') a.bootstrap = argv[++i]!;
    else if (arg === '--broker-arg') a.brokerArgs.push(argv[++i]!);
    else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

const CHUNK = 1000;
const IN_FLIGHT = 8;
const PARTITIONS = 6;
const VALUE = Buffer.alloc(100, 'v');

function key(i: number): string {
  return `key-${i}`;
}

/** Runs `sendChunk` for N/CHUNK chunks with up to IN_FLIGHT unresolved at once. */
async function windowed(n: number, sendChunk: (from: number, to: number) => Promise<unknown>): Promise<void> {
  const window: Promise<unknown>[] = [];
  for (let from = 0; from < n; from += CHUNK) {
    window.push(sendChunk(from, Math.min(n, from + CHUNK)));
    if (window.length >= IN_FLIGHT) await window.shift();
  }
  await Promise.all(window);
}

type Client = (bootstrap: string, topic: string, n: number, withKeys: boolean) => Promise<number>;

/** Brook: sendBatch per chunk (one array of records, one promise per chunk for the caller). */
const brookBatch: Client = async (bootstrap, topic, n, withKeys) => {
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 'all' });
  try {
    await producer.send({ topic, value: VALUE });
    const start = performance.now();
    await windowed(n, (from, to) => {
      const records: ProducerRecord[] = [];
      for (let i = from; i < to; i++) records.push(withKeys ? { topic, key: key(i), value: VALUE } : { topic, value: VALUE });
      return producer.sendBatch(records);
    });
    return performance.now() - start;
  } finally {
    await producer.close();
  }
};

/** Brook: send() per record without awaiting it (Java style); waits on a chunk's last promise for backpressure, flush at the end. */
const brookSend: Client = async (bootstrap, topic, n, withKeys) => {
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 'all' });
  let failed: unknown = null;
  const onError = (err: unknown): void => { failed ??= err; };
  try {
    await producer.send({ topic, value: VALUE });
    const start = performance.now();
    await windowed(n, (from, to) => {
      let last: Promise<unknown> = Promise.resolve();
      for (let i = from; i < to; i++) {
        last = producer.send(withKeys ? { topic, key: key(i), value: VALUE } : { topic, value: VALUE });
        if (i < to - 1) last.catch(onError);
      }
      return last;
    });
    await producer.flush();
    if (failed) throw failed;
    return performance.now() - start;
  } finally {
    await producer.close();
  }
};

const kafkajs: Client = async (bootstrap, topic, n, withKeys) => {
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false, maxInFlightRequests: IN_FLIGHT });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: [{ value: VALUE }] });
    const start = performance.now();
    await windowed(n, (from, to) => {
      const messages: { key?: string; value: Buffer }[] = [];
      for (let i = from; i < to; i++) messages.push(withKeys ? { key: key(i), value: VALUE } : { value: VALUE });
      return producer.send({ topic, acks: -1, compression: CompressionTypes.None, messages });
    });
    return performance.now() - start;
  } finally {
    await producer.disconnect();
  }
};

const platformatic: Client = async (bootstrap, topic, n, withKeys) => {
  const producer = new PlatformaticProducer<string | undefined, Buffer, string, string>({
    clientId: 'bench-platformatic', bootstrapBrokers: [bootstrap], acks: ProduceAcks.ALL, autocreateTopics: false,
    serializers: { key: (k?: string) => (k === undefined ? undefined : Buffer.from(k)), value: (v?: Buffer) => v },
  });
  try {
    await producer.send({ messages: [{ topic, value: VALUE }] });
    const start = performance.now();
    await windowed(n, (from, to) => {
      const messages: { topic: string; key?: string; value: Buffer }[] = [];
      for (let i = from; i < to; i++) messages.push(withKeys ? { topic, key: key(i), value: VALUE } : { topic, value: VALUE });
      return producer.send({ messages });
    });
    return performance.now() - start;
  } finally {
    await producer.close();
  }
};

const CLIENTS: Record<string, Client> = { 'brook-batch': brookBatch, 'brook-send': brookSend, kafkajs, platformatic };

let topicSeq = 0;
async function createTopic(bootstrap: string): Promise<string> {
  const topic = `bench-${process.pid}-${topicSeq++}`;
  const admin = new Kafka({ clientId: 'bench-admin', brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return topic;
}

async function deleteTopic(bootstrap: string, topic: string): Promise<void> {
  const admin = new Kafka({ clientId: 'bench-admin', brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [topic] });
  } catch {
    // Disk space only: a topic left behind goes with the temp dir.
  } finally {
    await admin.disconnect();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function compare(label: string, bootstrap: string, args: Args, names: string[], reps: number, brokerPid?: number): Promise<void> {
  for (const withKeys of args.keys) {
    const rates = new Map<string, number[]>(names.map((n) => [n, []]));
    const brokerCpu = new Map<string, number[]>(names.map((n) => [n, []]));
    for (let rep = 0; rep < reps; rep++) {
      // Rotate the order each repetition so no client always runs first.
      const order = names.map((_, i) => names[(i + rep) % names.length]!);
      for (const name of order) {
        const topic = await createTopic(bootstrap);
        const cpuBefore = cpuMsOf(brokerPid);
        const ms = await CLIENTS[name]!(bootstrap, topic, args.records, withKeys);
        const cpu = cpuMsOf(brokerPid) - cpuBefore;
        const rate = args.records / (ms / 1000);
        rates.get(name)!.push(rate);
        brokerCpu.get(name)!.push(cpu);
        console.error(`  ${label} ${withKeys ? 'keys' : 'no keys'} rep ${rep + 1} ${name}: ${Math.round(rate)} records/s, broker CPU ${Math.round(cpu)} ms`);
        await deleteTopic(bootstrap, topic);
      }
    }
    console.log(`\n${label}, acks=all, ${args.records} records of ${VALUE.length} B, ${withKeys ? 'string keys' : 'no keys'}, median of ${reps}:`);
    const med = new Map(names.map((n) => [n, median(rates.get(n)!)]));
    for (const n of names) {
      const r = med.get(n)!;
      const ratios = names.filter((o) => !o.startsWith('brook') && n.startsWith('brook')).map((o) => `${(r / med.get(o)!).toFixed(2)}x ${o}`);
      const cpu = median(brokerCpu.get(n)!);
      const cpuText = Number.isNaN(cpu) ? '' : `broker CPU ${String(Math.round(cpu)).padStart(5)} ms  `;
      console.log(`  ${n.padEnd(14)} ${String(Math.round(r)).padStart(9)} records/s  ${cpuText}${ratios.join('  ')}`);
    }
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const names = args.only ?? Object.keys(CLIENTS);
  for (const n of names) if (!CLIENTS[n]) throw new Error(`unknown client ${n} (${Object.keys(CLIENTS).join(', ')})`);
  process.on('unhandledRejection', (err) => { console.error('unhandled rejection', err); process.exitCode = 1; });
  if (args.bootstrap !== null) {
    // A broker started elsewhere (e.g. under --cpu-prof).
    await compare(`broker at ${args.bootstrap}`, args.bootstrap, args, names, args.reps);
    return;
  }
  const dir = tempDir('brook-bench-');
  const brook = await spawnBrook(['--port', '0', '--data-dir', dir.path, ...args.brokerArgs]);
  try {
    await compare('Brook broker', brook.bootstrap, args, names, args.reps, brook.child.pid);
  } finally {
    await brook.stop();
    dir.remove();
  }
  if (args.kafka) {
    const { startKafka } = await import('../test/support/kafka/kafka-broker.js');
    const kafka = await startKafka();
    try {
      await compare('Apache Kafka 4.4.0', kafka.bootstrap, args, names, 1, kafka.pid);
    } finally {
      await kafka.stop();
    }
  }
}

await main();
