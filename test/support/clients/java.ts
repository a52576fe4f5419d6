/**
 * Apache Kafka's Java clients (kafka-clients 4.4.0) against a broker under test, through
 * `brook.conformance.RoundTrip` in the Java test-support jar (test/support/java).
 */
import { buildJavaSupport } from '../java-oracle.js';
import { commandWorks, runProcess } from './run.js';
import type { ClientRecord } from './records.js';

export type JavaCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type RoundTripMode = 'both' | 'produce' | 'consume';

export interface RoundTripPartition {
  produced?: number;
  lastProducedOffset?: number;
  consumed?: number;
  lastConsumedOffset?: number;
  endOffset?: number;
}

export interface RoundTripSummary {
  produced: number;
  consumed: number;
  partitions: Record<string, RoundTripPartition>;
  errors: string[];
  produceMs: number;
  consumeMs: number;
  /** produce and consume modes only. */
  records?: ClientRecord[];
}

/** java 17+ runs and the jar is built or Maven can build it. */
export function javaAvailable(): boolean {
  return commandWorks('java', ['-version']) && commandWorks('mvn', ['-v']);
}

let jar: string | null = null;

/** Builds the jar (if stale) once; call before starting brokers in this process (it blocks). */
export function javaJar(): string {
  jar ??= buildJavaSupport();
  return jar;
}

/** Record i as RoundTrip.java makes it (key null for every 97th record). */
export function roundTripKey(i: number): string | null {
  return i % 97 === 96 ? null : `key-${i % 37}`;
}

export function roundTripValue(i: number): string {
  return `value-${i}-${'the quick brown fox jumps over the lazy dog; '.repeat(3)}`;
}

export interface RoundTripOptions {
  readonly idempotent?: boolean;
  readonly compression?: JavaCompression;
  readonly mode?: RoundTripMode;
  /** The consumer gives up after this long without a new record. */
  readonly idleMs?: number;
  readonly timeoutMs?: number;
}

interface RawRecord { p: number; o: number; k: string | null; v: string | null; seq: string | null }

export async function runRoundTrip(bootstrap: string, topic: string, count: number, options: RoundTripOptions = {}): Promise<RoundTripSummary> {
  const args = [
    `-Dbrook.roundtrip.idleMs=${options.idleMs ?? 8_000}`,
    `-Dbrook.roundtrip.watchdogMs=${(options.timeoutMs ?? 60_000) - 2_000}`,
    '-cp', javaJar(), 'brook.conformance.RoundTrip',
    bootstrap, topic, String(count), String(options.idempotent ?? true), options.compression ?? 'none', options.mode ?? 'both',
  ];
  const result = await runProcess('java', args, { timeoutMs: options.timeoutMs ?? 60_000 });
  const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
  if (result.code !== 0 || line === undefined) {
    throw new Error(`RoundTrip exited ${result.code}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.slice(-3000)}`);
  }
  const raw = JSON.parse(line) as Omit<RoundTripSummary, 'records'> & { records?: RawRecord[] };
  const summary: RoundTripSummary = { ...raw, records: undefined };
  if (raw.records) {
    summary.records = raw.records.map((r): ClientRecord => ({
      partition: r.p, offset: BigInt(r.o), key: r.k, value: r.v, headers: r.seq === null ? {} : { seq: r.seq },
    }));
  } else {
    delete summary.records;
  }
  return summary;
}
