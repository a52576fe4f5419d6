/**
 * librdkafka as a broker load (scenario 3): bench/c/rdkafka_load.c, compiled on first use
 * against the system librdkafka (Debian's librdkafka-dev, as the mock-cluster tests are).
 * It times itself and reports per-record send-to-acknowledgement latency.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastJsonLine, runChild } from '../lib/child.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let binary: string | null = null;
let buildError: string | null = null;

function build(): string | null {
  if (binary !== null || buildError !== null) return binary;
  const result = spawnSync('bash', [join(root, 'scripts', 'build-rdkafka-program.sh'), join(root, 'bench', 'c', 'rdkafka_load.c'), join(root, 'bench', '.build', 'rdkafka_load')], { encoding: 'utf8' });
  if (result.status === 0) binary = result.stdout.trim();
  else buildError = `bench/c/rdkafka_load.c did not build: ${(result.stderr || String(result.error)).trim().split('\n').at(-1)}`;
  return binary;
}

/** Null when the load can run, otherwise why not. */
export function rdkafkaLoadUnavailable(): string | null {
  return build() === null ? buildError : null;
}

export interface RdkafkaProduceSpec {
  bootstrap: string;
  topic: string;
  records: number;
  valueBytes: number;
  acks: 1 | -1;
  /** Records per second, paced open-loop (latency from each record's scheduled time); 0: as fast as possible. */
  rate: number;
  timeoutMs: number;
}

export interface RdkafkaProduceResult {
  records: number;
  bytes: number;
  ms: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  firstError: string;
}

export async function rdkafkaProduce(spec: RdkafkaProduceSpec): Promise<RdkafkaProduceResult> {
  const result = await runChild(build()!, [
    'produce', spec.bootstrap, spec.topic, String(spec.records), String(spec.valueBytes), spec.acks === -1 ? 'all' : '1', String(spec.rate),
  ], { timeoutMs: spec.timeoutMs });
  const r = lastJsonLine<RdkafkaProduceResult>(result, 'rdkafka_load produce');
  if (r.errors > 0) throw new Error(`rdkafka_load: ${r.errors} deliveries failed, first: ${r.firstError}`);
  return r;
}

export interface RdkafkaConsumeResult {
  records: number;
  bytes: number;
  ms: number;
  firstMs: number;
  timedOut: boolean;
}

export async function rdkafkaConsume(spec: { bootstrap: string; topic: string; partitions: number; records: number; timeoutMs: number }): Promise<RdkafkaConsumeResult> {
  const result = await runChild(build()!, [
    'consume', spec.bootstrap, spec.topic, String(spec.partitions), String(spec.records), String(spec.timeoutMs),
  ], { timeoutMs: spec.timeoutMs + 30_000 });
  const r = lastJsonLine<RdkafkaConsumeResult>(result, 'rdkafka_load consume');
  if (r.timedOut) throw new Error(`rdkafka_load consume timed out after ${r.records} of ${spec.records} records`);
  return r;
}
