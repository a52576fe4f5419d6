/**
 * The clients bench/tls-compare.ts drives over PLAINTEXT and SSL: Brook's producer and
 * consumer, KafkaJS (in this process) and Apache Kafka's own perf tools
 * (org.apache.kafka.tools.ProducerPerformance / ConsumerPerformance, kafka-producer-perf-test
 * and kafka-consumer-perf-test, from the Kafka 4.4 classpath, in a JVM of their own). Each
 * times itself, so connection set-up, JVM start-up and group joins are not counted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Consumer, Producer, type ProducerRecord, type TopicPartition } from '../../src/index.js';
import { kafkaClasspath } from '../../test/support/kafka/kafka-broker.js';
import { runChild } from './child.js';

/** One listener to talk to: its bootstrap, and the CA (PEM text and file) when it is SSL. */
export interface Target {
  readonly bootstrap: string;
  readonly tls: { readonly caPem: string; readonly caFile: string } | null;
  readonly partitions: number;
  /** For files a client needs (the Java tools' properties). */
  readonly dir: string;
}

export interface TlsBenchClient {
  readonly name: string;
  /** Writes n records of `value` with acks=all; returns ms from the first send to the last ack. */
  produce(target: Target, topic: string, n: number, value: Buffer): Promise<number>;
  /** Reads n records from the beginning; returns ms to the last (from the first fetch or first record, see each). */
  consume(target: Target, topic: string, n: number): Promise<number>;
}

const CHUNK = 1000;
const IN_FLIGHT = 8;
const CONSUME_TIMEOUT_MS = 300_000;

/** Brook's producer (sendBatch of 1000, 8 in flight) and consumer (assign every partition, no group). */
export const brookClient: TlsBenchClient = {
  name: 'brook',
  async produce(target, topic, n, value) {
    const producer = new Producer({ bootstrapServers: target.bootstrap, acks: 'all', ...brookSecurity(target) });
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
  },
  /** From the first poll (connections opened on the way count). */
  async consume(target, topic, n) {
    const consumer = new Consumer({ bootstrapServers: target.bootstrap, ...brookSecurity(target) });
    try {
      const partitions: TopicPartition[] = Array.from({ length: target.partitions }, (_, partition) => ({ topic, partition }));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      const start = performance.now();
      let seen = 0;
      const deadline = Date.now() + CONSUME_TIMEOUT_MS;
      while (seen < n) {
        if (Date.now() > deadline) throw new Error(`brook consumed ${seen} of ${n} records in ${CONSUME_TIMEOUT_MS} ms`);
        seen += (await consumer.poll({ timeoutMs: 1000 })).length;
      }
      return performance.now() - start;
    } finally {
      await consumer.close();
    }
  },
};

function brookSecurity(target: Target): { securityProtocol: 'PLAINTEXT' } | { securityProtocol: 'SSL'; ssl: { ca: string } } {
  return target.tls === null ? { securityProtocol: 'PLAINTEXT' } : { securityProtocol: 'SSL', ssl: { ca: target.tls.caPem } };
}

function kafkajs(target: Target): Kafka {
  return new Kafka({
    clientId: 'brook-bench-kafkajs', brokers: [target.bootstrap], logLevel: logLevel.NOTHING,
    ...(target.tls !== null ? { ssl: { ca: [target.tls.caPem] } } : {}),
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 },
  });
}

/** KafkaJS: producer.send of 1000 records, 8 in flight; a consumer in a fresh group (it has no assign). */
export const kafkajsClient: TlsBenchClient = {
  name: 'kafkajs',
  async produce(target, topic, n, value) {
    const producer = kafkajs(target).producer();
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: [{ value }] });
      const start = performance.now();
      const window: Promise<unknown>[] = [];
      for (let from = 0; from < n; from += CHUNK) {
        const messages = Array.from({ length: Math.min(CHUNK, n - from) }, () => ({ value }));
        window.push(producer.send({ topic, acks: -1, messages }));
        if (window.length >= IN_FLIGHT) await window.shift();
      }
      await Promise.all(window);
      return performance.now() - start;
    } finally {
      await producer.disconnect();
    }
  },
  /** From the first record (the group join is not counted). */
  async consume(target, topic, n) {
    const consumer = kafkajs(target).consumer({ groupId: `${topic}-kafkajs`, maxBytes: 50 * 1024 * 1024 });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      let count = 0;
      let first = 0;
      return await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`kafkajs consumed ${count} of ${n} in ${CONSUME_TIMEOUT_MS} ms`)), CONSUME_TIMEOUT_MS);
        consumer.run({
          eachBatch: async ({ batch }) => {
            if (count === 0) first = performance.now();
            count += batch.messages.length;
            if (count >= n) {
              clearTimeout(timer);
              resolve(performance.now() - first);
            }
          },
        }).catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
  },
};

/** The Java tools' JVM: full JIT (C2), as a client JVM runs. */
const JAVA_OPTIONS = ['-Xms256m', '-Xmx1g', '-XX:+UseParallelGC'];

function javaSecurityFile(target: Target, name: string): string {
  const file = join(target.dir, `${name}.properties`);
  const lines = target.tls === null
    ? ['security.protocol=PLAINTEXT']
    : ['security.protocol=SSL', 'ssl.truststore.type=PEM', `ssl.truststore.location=${target.tls.caFile}`];
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function runTool(mainClass: string, args: string[]): Promise<string> {
  const result = await runChild('java', [...JAVA_OPTIONS, '-cp', kafkaClasspath(), mainClass, ...args], { timeoutMs: CONSUME_TIMEOUT_MS + 60_000 });
  if (result.code !== 0) throw new Error(`${mainClass} exited with ${result.code}: ${result.stderr.slice(-2000)}${result.stdout.slice(-2000)}`);
  return result.stdout;
}

/**
 * kafka-producer-perf-test (acks=all, Kafka's defaults otherwise: linger.ms=5,
 * batch.size=16384) and kafka-consumer-perf-test (a fresh group, subscribe); times as the
 * tools report them (the consumer's fetch time leaves the group join out).
 */
export const javaPerfClient: TlsBenchClient = {
  name: 'java-perf',
  async produce(target, topic, n, value) {
    const out = await runTool('org.apache.kafka.tools.ProducerPerformance', [
      '--topic', topic, '--num-records', String(n), '--record-size', String(value.length), '--throughput', '-1',
      '--warmup-records', '0', '--bootstrap-server', target.bootstrap, '--command-property', 'acks=all',
      '--command-config', javaSecurityFile(target, 'producer'),
    ]);
    // The last line: "N records sent, R records/sec (M MB/sec), ..."
    const m = [...out.matchAll(/(\d+) records sent, ([\d.]+) records\/sec/g)].at(-1);
    if (m === undefined || Number(m[1]) !== n) throw new Error(`ProducerPerformance: no summary for ${n} records in:\n${out.slice(-2000)}`);
    return (n / Number(m[2])) * 1000;
  },
  async consume(target, topic, n) {
    const out = await runTool('org.apache.kafka.tools.ConsumerPerformance', [
      '--topic', topic, '--num-records', String(n), '--bootstrap-server', target.bootstrap, '--group', `${topic}-java`,
      '--timeout', '60000', '--command-config', javaSecurityFile(target, 'consumer'),
    ]);
    // Header: start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, ...
    const header = out.split('\n').findIndex((l) => l.startsWith('start.time'));
    const fields = (out.split('\n')[header + 1] ?? '').split(',').map((s) => s.trim());
    const records = Number(fields[4]);
    const fetchMs = Number(fields[7]);
    if (header < 0 || records < n || !(fetchMs > 0)) throw new Error(`ConsumerPerformance: no summary for ${n} records in:\n${out.slice(-2000)}`);
    return fetchMs;
  },
};

export const TLS_BENCH_CLIENTS: readonly TlsBenchClient[] = [brookClient, kafkajsClient, javaPerfClient];
