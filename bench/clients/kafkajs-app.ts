/**
 * One KafkaJS application, run by the `kafkajs` scenario with KafkaJS 2.2.4 and with
 * brook/kafkajs: the module it imports is its only parameter, so both runs execute the same
 * code. It does one workload per process (its own heap, its own peak RSS and CPU time):
 *
 * - `produce`: `producer.send` of `batch` keyed messages (JSON text values of about
 *   `valueBytes`), `inFlight` sends outstanding, acks -1, the given compression;
 * - `eachMessage` / `eachBatch`: one consumer in a fresh group, fromBeginning, `run()` with
 *   that handler (eachBatch: eachBatchAutoResolve, KafkaJS's default) until `messages` are seen.
 *
 * Both clients run with their defaults otherwise. Prints one JSON line (AppResult) on stdout.
 *
 *   node dist/bench/clients/kafkajs-app.js '<AppSpec as JSON>'
 */
import type * as KafkaJS from 'kafkajs';
import { appMessages } from './kafkajs-app-data.js';

export type AppModule = 'kafkajs' | 'brook/kafkajs';
export type AppWorkload = 'produce' | 'eachMessage' | 'eachBatch';

export interface AppSpec {
  module: AppModule;
  workload: AppWorkload;
  bootstrap: string;
  topic: string;
  /** Consumers: a fresh group id. */
  group?: string;
  messages: number;
  /** Produce: the size of each value (JSON text, about this many bytes). */
  valueBytes?: number;
  /** Produce: messages per `send`. */
  batch?: number;
  /** Produce: sends outstanding at once. */
  inFlight?: number;
  compression?: 'none' | 'gzip';
  timeoutMs: number;
}

export interface AppResult {
  module: AppModule;
  workload: AppWorkload;
  /** Messages produced (acknowledged) or consumed. */
  messages: number;
  /** Value bytes produced or consumed. */
  valueBytes: number;
  /** `await import(module)`. */
  importMs: number;
  /** From connect() to the last acknowledgement (produce) or the last message (consume). */
  ms: number;
  /** Consume: connect() to the GROUP_JOIN event; null if none was seen. */
  joinMs: number | null;
  /** Consume: connect() to the first message. */
  firstMs: number | null;
  /** disconnect() after the last message. */
  disconnectMs: number;
  /** process.cpuUsage() over connect() .. the last message, user + system. */
  cpuMs: number;
  /** The whole process's CPU time (start-up and import included), at the end. */
  processCpuMs: number;
  /** process.resourceUsage().maxRSS: the process's peak resident set. */
  peakRssBytes: number;
}

async function produce(kafka: KafkaJS.Kafka, lib: typeof KafkaJS, spec: AppSpec): Promise<Omit<AppResult, 'module' | 'workload' | 'importMs' | 'processCpuMs' | 'peakRssBytes'>> {
  const valueBytes = spec.valueBytes ?? 512;
  const batch = spec.batch ?? 1000;
  const inFlight = spec.inFlight ?? 1;
  const messageOf = appMessages(valueBytes);
  const compression = spec.compression === 'gzip' ? lib.CompressionTypes.GZIP : lib.CompressionTypes.None;
  const producer = kafka.producer();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await producer.connect();
  let next = 0;
  let bytes = 0;
  const sender = async (): Promise<void> => {
    while (next < spec.messages) {
      const from = next;
      const n = Math.min(batch, spec.messages - from);
      next += n;
      const messages: KafkaJS.Message[] = [];
      for (let i = from; i < from + n; i++) {
        const message = messageOf(i);
        bytes += message.value.length;
        messages.push(message);
      }
      await producer.send({ topic: spec.topic, acks: -1, compression, messages });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const t1 = performance.now();
  await producer.disconnect();
  return { messages: spec.messages, valueBytes: bytes, ms, joinMs: null, firstMs: null, disconnectMs: performance.now() - t1, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function consume(kafka: KafkaJS.Kafka, spec: AppSpec): Promise<Omit<AppResult, 'module' | 'workload' | 'importMs' | 'processCpuMs' | 'peakRssBytes'>> {
  const consumer = kafka.consumer({ groupId: spec.group! });
  let count = 0;
  let bytes = 0;
  let joinMs: number | null = null;
  let firstMs: number | null = null;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  consumer.on(consumer.events.GROUP_JOIN, () => { joinMs ??= performance.now() - t0; });
  let done!: () => void;
  let failed!: (err: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => { done = resolve; failed = reject; });
  consumer.on(consumer.events.CRASH, (e) => failed(e.payload.error));
  const timer = setTimeout(() => failed(new Error(`${spec.module}: ${count} of ${spec.messages} messages in ${spec.timeoutMs} ms`)), spec.timeoutMs);
  const seen = (): void => {
    firstMs ??= performance.now() - t0;
  };
  await consumer.connect();
  await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
  if (spec.workload === 'eachMessage') {
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen();
        bytes += message.value?.length ?? 0;
        if (++count === spec.messages) done();
      },
    });
  } else {
    await consumer.run({
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        seen();
        for (const message of batch.messages) bytes += message.value?.length ?? 0;
        count += batch.messages.length;
        if (count >= spec.messages) done();
      },
    });
  }
  await finished;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearTimeout(timer);
  const t1 = performance.now();
  await consumer.disconnect();
  return { messages: count, valueBytes: bytes, ms, joinMs, firstMs, disconnectMs: performance.now() - t1, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(spec: AppSpec): Promise<AppResult> {
  const i0 = performance.now();
  const lib = (await import(spec.module)) as typeof KafkaJS;
  const importMs = performance.now() - i0;
  const kafka = new lib.Kafka({ clientId: 'bench-kafkajs-app', brokers: [spec.bootstrap], logLevel: lib.logLevel.NOTHING });
  const r = spec.workload === 'produce' ? await produce(kafka, lib, spec) : await consume(kafka, spec);
  const usage = process.resourceUsage();
  return {
    module: spec.module, workload: spec.workload, importMs, ...r,
    processCpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    peakRssBytes: usage.maxRSS * 1024,
  };
}

main(JSON.parse(process.argv[2] ?? '{}') as AppSpec).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
