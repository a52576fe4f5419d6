/**
 * Apache Kafka's Java client (kafka-clients 4.4.0): BenchConsumer / BenchProducer in the
 * test-support jar (test/support/java), one JVM per run; they time themselves, so JVM start-up
 * is not counted.
 */
import { buildJavaSupport } from '../../test/support/java-oracle.js';
import { commandWorks } from '../../test/support/clients/run.js';
import { lastJsonLine, runChild } from '../lib/child.js';
import type { ConsumeSpec, ProduceSpec, ThroughputClient, ThroughputRun } from './types.js';

let jar: string | null = null;

/** The shaded jar, built (once) when missing or stale. */
export function benchJar(): string {
  jar ??= buildJavaSupport();
  return jar;
}

export function javaUnavailable(): string | null {
  return commandWorks('java', ['-version']) ? null : 'java not found';
}

/** Heap for client JVMs: the same for every run. */
export const clientJvmOptions = ['-Xms256m', '-Xmx1g', '-XX:+UseParallelGC'];

export interface JavaProduceResult {
  records: number;
  ms: number;
  bytes: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
}

export async function javaProduce(spec: ProduceSpec): Promise<JavaProduceResult & { clientRssBytes: number | null }> {
  const result = await runChild('java', [
    ...clientJvmOptions, '-cp', benchJar(), 'brook.conformance.BenchProducer',
    spec.bootstrap, spec.topic, String(spec.records), String(spec.valueBytes), spec.acks === -1 ? 'all' : '1',
  ], { timeoutMs: spec.timeoutMs, onPid: spec.onPid });
  const r = lastJsonLine<JavaProduceResult>(result, 'BenchProducer');
  if (r.errors > 0) throw new Error(`BenchProducer: ${r.errors} sends failed, first: ${r.firstError}`);
  return { ...r, clientRssBytes: result.peakRssBytes };
}

export interface JavaConsumeResult {
  records: number;
  ms: number;
  firstMs: number;
  bytes: number;
  timedOut: boolean;
}

export async function javaConsume(spec: ConsumeSpec): Promise<JavaConsumeResult & { clientRssBytes: number | null }> {
  const result = await runChild('java', [
    ...clientJvmOptions, '-cp', benchJar(), 'brook.conformance.BenchConsumer',
    spec.bootstrap, spec.topic, spec.group, String(spec.records), String(spec.timeoutMs),
  ], { timeoutMs: spec.timeoutMs + 30_000, onPid: spec.onPid });
  const r = lastJsonLine<JavaConsumeResult>(result, 'BenchConsumer');
  if (r.timedOut) throw new Error(`BenchConsumer timed out after ${r.records} of ${spec.records} records`);
  return { ...r, clientRssBytes: result.peakRssBytes };
}

export const javaClient: ThroughputClient = {
  name: 'java',
  inProcess: false,
  unavailable: javaUnavailable,
  async consume(spec): Promise<ThroughputRun> {
    const r = await javaConsume(spec);
    return { records: r.records, ms: r.ms, firstRecordMs: r.firstMs, clientRssBytes: r.clientRssBytes };
  },
  async produce(spec): Promise<ThroughputRun> {
    const r = await javaProduce(spec);
    return { records: r.records, ms: r.ms, clientRssBytes: r.clientRssBytes };
  },
};
