/**
 * The brokers under test, behind one interface: Brook's broker as a child process
 * (`bin/brook broker`, a temp data dir, an OS-chosen port) and Apache Kafka 4.4 (single-node
 * KRaft, test/support/kafka). Both run in their own process so their CPU and memory are
 * theirs alone, and both are started with the same group settings
 * (group.initial.rebalance.delay.ms=0, 1 partition by default).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnBrook, tempDir } from '../../test/support/brook.js';
import { kafkaAvailable, startKafka } from '../../test/support/kafka/kafka-broker.js';
import { pinProcess } from './cpu-affinity.js';
import { rssBytes } from './rss.js';

export type BrokerKind = 'brook' | 'kafka';

export interface BrokerUnderTest {
  readonly kind: BrokerKind;
  readonly bootstrap: string;
  readonly pid: number;
  readonly dataDir: string;
  /** From spawning the process to accepting requests. */
  readonly startupMs: number;
  rssBytes(): number | null;
  /** What the broker wrote to stderr so far (Brook's log lines; empty for Kafka, which logs to files). */
  stderr(): string;
  stop(): Promise<void>;
}

export interface BrokerStartOptions {
  /** Reuse this data dir (kept on stop); default a fresh temp dir removed on stop. */
  dataDir?: string;
  /** Extra Kafka-style properties (both brokers understand the group ones used here). */
  config?: Record<string, string>;
  /** Pin the broker to these CPUs once it accepts requests (`--broker-cpus`); start-up is not pinned. */
  cpus?: string | null;
  /** Brook only: run the broker of this other built checkout (`--baseline`), not this one's. */
  root?: string;
}

const commonConfig: Record<string, string> = {
  'group.initial.rebalance.delay.ms': '0',
  'num.partitions': '1',
  'auto.create.topics.enable': 'false',
};

export async function startBrookBroker(options: BrokerStartOptions = {}): Promise<BrokerUnderTest> {
  const temp = options.dataDir === undefined ? tempDir('brook-bench-') : null;
  const dataDir = options.dataDir ?? temp!.path;
  const propsFile = join(dataDir, 'bench.properties');
  const props = { ...commonConfig, ...options.config };
  writeFileSync(propsFile, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  const started = performance.now();
  const proc = await spawnBrook(['--port', '0', '--data-dir', join(dataDir, 'data'), '--config', propsFile], 600_000, options.root);
  const startupMs = performance.now() - started;
  return {
    kind: 'brook',
    bootstrap: proc.bootstrap,
    pid: proc.child.pid!,
    dataDir,
    startupMs,
    rssBytes: () => rssBytes(proc.child.pid!),
    stderr: () => proc.stderr(),
    stop: async () => {
      await proc.stop();
      temp?.remove();
    },
  };
}

export async function startKafkaBroker(options: BrokerStartOptions = {}): Promise<BrokerUnderTest> {
  const kafka = await startKafka({
    config: { ...commonConfig, ...options.config },
    dataDir: options.dataDir,
    // The same heap for every run; 1 GiB so 1M-record runs are not GC-bound. The full JIT
    // (C2) a Kafka JVM normally runs with, not the test harness's quick-start C1 only: C1
    // leaves Kafka's hot paths (TLS's AES-GCM, record copying) several times slower.
    jvmOptions: ['-Xms512m', '-Xmx1g', '-XX:TieredStopAtLevel=4'],
    startTimeoutMs: 120_000,
  });
  return {
    kind: 'kafka',
    bootstrap: kafka.bootstrap,
    pid: kafka.pid,
    dataDir: kafka.dataDir,
    startupMs: kafka.startupMs,
    rssBytes: () => kafka.rssBytes(),
    stderr: () => '',
    stop: async () => { await kafka.stop(); },
  };
}

export async function startBroker(kind: BrokerKind, options: BrokerStartOptions = {}): Promise<BrokerUnderTest> {
  const broker = kind === 'brook' ? await startBrookBroker(options) : await startKafkaBroker(options);
  if (options.cpus != null) {
    try {
      pinProcess(broker.pid, options.cpus);
    } catch (err) {
      await broker.stop();
      throw err;
    }
  }
  return broker;
}

/** Why a broker kind cannot run here, or null when it can. */
export function brokerUnavailable(kind: BrokerKind): string | null {
  if (kind === 'brook') return null;
  return kafkaAvailable() ? null : 'no Java 17+ / Kafka classpath (BROOK_KAFKA=0 or missing)';
}
