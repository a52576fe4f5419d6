/**
 * Produce and consume throughput over TLS against plaintext, on Brook and on Apache Kafka 4.4
 * in the same run:
 *   node dist/bench/tls-compare.js [--records N] [--value-bytes B] [--reps R] [--brokers brook,kafka]
 * Each broker (Brook as a child process, Kafka in its JVM) opens a PLAINTEXT and an SSL
 * listener with the same PEM keystore (a throwaway PKI made by openssl). Per run and listener,
 * Brook's producer writes N records (acks=all, batches of 1000, 8 in flight) to a fresh
 * 6-partition topic, then Brook's consumer (assigned every partition, no group) reads them
 * back from the beginning. The clients are the same on every path, so the ratios show what
 * TLS costs each broker. Listeners and brokers alternate within each repetition; the table
 * shows medians. The machine is shared: compare ratios within one run.
 * Not part of npm test: timings depend on the machine.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Consumer, Producer, type ProducerRecord, type TopicPartition } from '../src/index.js';
import { spawnBrook, tempDir, type BrookProcess } from '../test/support/brook.js';
import { startKafka, kafkaAvailable, type KafkaBroker } from '../test/support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing, type TestPki } from '../test/support/tls-certs.js';
import { freePort } from './lib/net.js';
import { createTopic, uniqueName } from './lib/topics.js';

interface Args { records: number; valueBytes: number; reps: number; brokers: string[] }

function parse(argv: string[]): Args {
  const a: Args = { records: 200_000, valueBytes: 1000, reps: 3, brokers: ['brook', 'kafka'] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--records') a.records = Number(argv[++i]);
    else if (arg === '--value-bytes') a.valueBytes = Number(argv[++i]);
    else if (arg === '--reps') a.reps = Number(argv[++i]);
    else if (arg === '--brokers') a.brokers = argv[++i]!.split(',');
    else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

const PARTITIONS = 6;
const CHUNK = 1000;
const IN_FLIGHT = 8;

interface Endpoint { plaintext: string; ssl: string; stop(): Promise<unknown> }
type Security = { securityProtocol: 'PLAINTEXT' } | { securityProtocol: 'SSL'; ssl: { ca: string } };

async function brookBroker(pki: TestPki, dir: string): Promise<Endpoint> {
  const [plain, ssl] = [await freePort(), await freePort()];
  const props = join(dir, 'server.properties');
  writeFileSync(props, [
    `listeners=PLAINTEXT://127.0.0.1:${plain},SSL://127.0.0.1:${ssl}`,
    'ssl.keystore.type=PEM', `ssl.keystore.location=${pki.serverKeystore}`,
    `log.dirs=${join(dir, 'data')}`, '',
  ].join('\n'));
  const broker: BrookProcess = await spawnBrook(['--config', props]);
  return { plaintext: `127.0.0.1:${plain}`, ssl: `127.0.0.1:${ssl}`, stop: () => broker.stop() };
}

async function kafkaBroker(pki: TestPki): Promise<Endpoint> {
  const kafka: KafkaBroker = await startKafka({
    sslListener: true,
    config: { 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': pki.serverKeystore },
    jvmOptions: ['-Xmx1g'],
  });
  return { plaintext: kafka.bootstrap, ssl: `127.0.0.1:${kafka.sslPort!}`, stop: () => kafka.stop() };
}

async function produce(bootstrap: string, security: Security, topic: string, n: number, value: Buffer): Promise<number> {
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 'all', ...security });
  try {
    await producer.send({ topic, value });
    const start = performance.now();
    const window: Promise<unknown>[] = [];
    for (let from = 0; from < n; from += CHUNK) {
      const records: ProducerRecord[] = [];
      for (let i = from; i < Math.min(n, from + CHUNK); i++) records.push({ topic, value });
      window.push(producer.sendBatch(records));
      if (window.length >= IN_FLIGHT) await window.shift();
    }
    await Promise.all(window);
    return performance.now() - start;
  } finally {
    await producer.close();
  }
}

/** Reads every record of the topic (n + the warm-up one) from the beginning. */
async function consume(bootstrap: string, security: Security, topic: string, n: number): Promise<number> {
  const consumer = new Consumer({ bootstrapServers: bootstrap, ...security });
  try {
    const partitions: TopicPartition[] = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition }));
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    const start = performance.now();
    let seen = 0;
    const deadline = Date.now() + 300_000;
    while (seen < n + 1) {
      if (Date.now() > deadline) throw new Error(`consumed ${seen} of ${n + 1} records in 300 s`);
      seen += (await consumer.poll({ timeoutMs: 1000 })).length;
    }
    return performance.now() - start;
  } finally {
    await consumer.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const missing = opensslMissing();
  if (missing !== null) throw new Error(missing);
  if (args.brokers.includes('kafka') && !kafkaAvailable()) throw new Error('Kafka 4.4 is not available (Java 17+ and the Kafka classpath)');
  const pki = makeTestPki();
  const dir = tempDir('brook-bench-tls-');
  const endpoints = new Map<string, Endpoint>();
  try {
    if (args.brokers.includes('brook')) endpoints.set('brook', await brookBroker(pki, dir.path));
    if (args.brokers.includes('kafka')) endpoints.set('kafka', await kafkaBroker(pki));
    const value = Buffer.alloc(args.valueBytes, 'v');
    const results = new Map<string, { produce: number[]; consume: number[] }>();
    for (let rep = 0; rep < args.reps; rep++) {
      for (const [name, ep] of endpoints) {
        for (const security of [{ securityProtocol: 'PLAINTEXT' }, { securityProtocol: 'SSL', ssl: { ca: pki.caPem } }] as Security[]) {
          const bootstrap = security.securityProtocol === 'SSL' ? ep.ssl : ep.plaintext;
          const topic = uniqueName('bench-tls');
          await createTopic(ep.plaintext, topic, PARTITIONS);
          const key = `${name} ${security.securityProtocol}`;
          const r = results.get(key) ?? { produce: [], consume: [] };
          r.produce.push(await produce(bootstrap, security, topic, args.records, value));
          r.consume.push(await consume(bootstrap, security, topic, args.records));
          results.set(key, r);
          process.stderr.write(`rep ${rep + 1}/${args.reps} ${key}: produce ${r.produce.at(-1)!.toFixed(0)} ms, consume ${r.consume.at(-1)!.toFixed(0)} ms\n`);
        }
      }
    }
    const mb = (args.records * args.valueBytes) / 1e6;
    console.log(`${args.records} records x ${args.valueBytes} B (${mb.toFixed(0)} MB), ${PARTITIONS} partitions, Brook's clients, ${args.reps} runs, medians`);
    console.log('| broker | listener | produce MB/s | consume MB/s | produce TLS/plaintext | consume TLS/plaintext |');
    console.log('|---|---|---|---|---|---|');
    for (const name of endpoints.keys()) {
      const plain = results.get(`${name} PLAINTEXT`)!;
      for (const protocol of ['PLAINTEXT', 'SSL']) {
        const r = results.get(`${name} ${protocol}`)!;
        const p = median(r.produce);
        const c = median(r.consume);
        const rate = (ms: number): string => (mb / (ms / 1000)).toFixed(1);
        const ratio = (ms: number, base: number): string => (protocol === 'SSL' ? `${(base / ms).toFixed(2)}x` : '1');
        console.log(`| ${name} | ${protocol} | ${rate(p)} | ${rate(c)} | ${ratio(p, median(plain.produce))} | ${ratio(c, median(plain.consume))} |`);
      }
    }
  } finally {
    for (const ep of endpoints.values()) await ep.stop();
    pki.remove();
    dir.remove();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
