/**
 * Produce and consume throughput over TLS against plaintext, on Brook and on Apache Kafka 4.4
 * in the same run:
 *   node dist/bench/tls-compare.js [--records N] [--value-bytes B] [--reps R]
 *     [--brokers brook,kafka,kafka-c1] [--clients brook,kafkajs,java-perf]
 * Each broker (Brook as a child process, Kafka in its JVM) opens a PLAINTEXT and an SSL
 * listener with the same PEM keystore (a throwaway PKI made by openssl). Per run, broker,
 * client and listener, the client's producer writes N records (acks=all) to a fresh
 * 6-partition topic, then its consumer reads them back from the beginning (see
 * lib/tls-clients.ts). The clients are the same on every path, so the ratios show what TLS
 * costs each broker. Everything alternates within each repetition; the table shows medians.
 * The machine is shared: compare ratios within one run.
 *
 * Brokers: `kafka` is Kafka's JVM with its full JIT (C1 then C2, as kafka-server-start.sh
 * runs it); `kafka-c1` is the test harness's JVM (test/support/kafka: C1 only, for quick
 * start-up), where the JDK's AES-GCM runs without its AES-NI/CLMUL intrinsics, which only C2
 * has: about 35 MB/s instead of GB/s, so its SSL listener measures the JIT, not Kafka.
 * Not part of npm test: timings depend on the machine.
 */
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { spawnBrook, tempDir, type BrookProcess } from '../test/support/brook.js';
import { startKafka, kafkaAvailable } from '../test/support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing, type TestPki } from '../test/support/tls-certs.js';
import { freePort } from './lib/net.js';
import { createTopic, uniqueName } from './lib/topics.js';
import { TLS_BENCH_CLIENTS, type Target, type TlsBenchClient } from './lib/tls-clients.js';

const BROKERS = ['brook', 'kafka', 'kafka-c1'] as const;
type BrokerName = (typeof BROKERS)[number];

interface Args { records: number; valueBytes: number; reps: number; brokers: BrokerName[]; clients: TlsBenchClient[] }

function parse(argv: string[]): Args {
  const a: Args = { records: 200_000, valueBytes: 1000, reps: 3, brokers: ['brook', 'kafka'], clients: [TLS_BENCH_CLIENTS[0]!] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--records') a.records = Number(argv[++i]);
    else if (arg === '--value-bytes') a.valueBytes = Number(argv[++i]);
    else if (arg === '--reps') a.reps = Number(argv[++i]);
    else if (arg === '--brokers') {
      a.brokers = argv[++i]!.split(',') as BrokerName[];
      const bad = a.brokers.find((b) => !BROKERS.includes(b));
      if (bad !== undefined) throw new Error(`unknown broker ${bad} (${BROKERS.join(', ')})`);
    } else if (arg === '--clients') {
      a.clients = argv[++i]!.split(',').map((name) => {
        const client = TLS_BENCH_CLIENTS.find((c) => c.name === name);
        if (client === undefined) throw new Error(`unknown client ${name} (${TLS_BENCH_CLIENTS.map((c) => c.name).join(', ')})`);
        return client;
      });
    } else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

const PARTITIONS = 6;

interface Endpoint { plaintext: string; ssl: string; stop(): Promise<unknown> }

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

/** Kafka with the harness's JVM options (SerialGC, C1 only), `-Xmx1g`, and with C2 back unless `c1Only`. */
async function kafkaBroker(pki: TestPki, c1Only: boolean): Promise<Endpoint> {
  const kafka = await startKafka({
    sslListener: true,
    config: { 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': pki.serverKeystore },
    jvmOptions: ['-Xmx1g', ...(c1Only ? [] : ['-XX:TieredStopAtLevel=4'])],
  });
  return { plaintext: kafka.bootstrap, ssl: `127.0.0.1:${kafka.sslPort!}`, stop: () => kafka.stop() };
}

/** The protocol and cipher suite a Node client and the broker agree on. */
function negotiated(address: string, caPem: string): Promise<string> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, ca: caPem }, () => {
      resolve(`${socket.getProtocol() ?? '?'} ${socket.getCipher().standardName}`);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const missing = opensslMissing();
  if (missing !== null) throw new Error(missing);
  if (args.brokers.some((b) => b !== 'brook') && !kafkaAvailable()) throw new Error('Kafka 4.4 is not available (Java 17+ and the Kafka classpath)');
  const pki = makeTestPki();
  const dir = tempDir('brook-bench-tls-');
  const endpoints = new Map<BrokerName, Endpoint>();
  const loadBefore = load();
  try {
    for (const name of args.brokers) endpoints.set(name, name === 'brook' ? await brookBroker(pki, dir.path) : await kafkaBroker(pki, name === 'kafka-c1'));
    for (const [name, ep] of endpoints) process.stderr.write(`${name} SSL: ${await negotiated(ep.ssl, pki.caPem)}\n`);
    const value = Buffer.alloc(args.valueBytes, 'v');
    const results = new Map<string, { produce: number[]; consume: number[] }>();
    for (let rep = 0; rep < args.reps; rep++) {
      for (const [name, ep] of endpoints) {
        for (const client of args.clients) {
          for (const ssl of [false, true]) {
            const target: Target = {
              bootstrap: ssl ? ep.ssl : ep.plaintext, tls: ssl ? { caPem: pki.caPem, caFile: pki.ca } : null, partitions: PARTITIONS, dir: dir.path,
            };
            const topic = uniqueName('bench-tls');
            await createTopic(ep.plaintext, topic, PARTITIONS);
            const key = `${name} ${client.name} ${ssl ? 'SSL' : 'PLAINTEXT'}`;
            const r = results.get(key) ?? { produce: [], consume: [] };
            r.produce.push(await client.produce(target, topic, args.records, value));
            r.consume.push(await client.consume(target, topic, args.records));
            results.set(key, r);
            process.stderr.write(`rep ${rep + 1}/${args.reps} ${key}: produce ${r.produce.at(-1)!.toFixed(0)} ms, consume ${r.consume.at(-1)!.toFixed(0)} ms (load ${load()})\n`);
          }
        }
      }
    }
    const mb = (args.records * args.valueBytes) / 1e6;
    console.log(`${args.records} records x ${args.valueBytes} B (${mb.toFixed(0)} MB), ${PARTITIONS} partitions, ${args.reps} runs, medians; load average before ${loadBefore}, after ${load()}`);
    console.log('| broker | client | listener | produce MB/s | consume MB/s | produce SSL/PLAINTEXT | consume SSL/PLAINTEXT |');
    console.log('|---|---|---|---|---|---|---|');
    for (const name of endpoints.keys()) {
      for (const client of args.clients) {
        const plain = results.get(`${name} ${client.name} PLAINTEXT`)!;
        for (const protocol of ['PLAINTEXT', 'SSL']) {
          const r = results.get(`${name} ${client.name} ${protocol}`)!;
          const rate = (ms: number): string => (mb / (ms / 1000)).toFixed(1);
          const ratio = (ms: number, base: number): string => (protocol === 'SSL' ? `${(base / ms).toFixed(2)}x` : '1');
          const [p, c] = [median(r.produce), median(r.consume)];
          console.log(`| ${name} | ${client.name} | ${protocol} | ${rate(p)} | ${rate(c)} | ${ratio(p, median(plain.produce))} | ${ratio(c, median(plain.consume))} |`);
        }
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
