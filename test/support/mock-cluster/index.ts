/**
 * librdkafka's mock Kafka cluster (rdkafka_mock.h, in-process brokers of librdkafka itself)
 * as a child process: mock_cluster.c, built by build.sh against the system librdkafka.
 * Brokers 1..N listen on 127.0.0.1 ports the OS chose; leaders, coordinators, broker
 * outages and request errors are set by the test.
 *
 *   const mock = await startMockCluster({ brokers: 3 });
 *   await mock.createTopic('t', 6, 3);
 *   await mock.setPartitionLeader('t', 0, 2);
 *   await mock.setCoordinator('group', 'g', 3);
 *   ... clients talk to mock.bootstrap ...
 *   await mock.close();
 *
 * Not a Kafka broker: no CreateTopics/admin APIs, the classic group protocol only, and
 * everything in memory (see test/support/README.md for what it supports).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const supportDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'support', 'mock-cluster');

export class MockClusterError extends Error {
  readonly code = 'ERR_MOCK_CLUSTER' as const;
}

export interface MockClusterOptions {
  /** Number of brokers, ids 1..brokers (default 3). */
  brokers?: number;
  /** Default 10000. */
  startTimeoutMs?: number;
}

export interface MockBroker {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

export type CoordinatorKeyType = 'group' | 'transaction';

/** A Kafka error code, or librdkafka's name of one ('NOT_COORDINATOR', '_TRANSPORT' = drop the connection). */
export type MockError = number | string;

export interface MockCluster {
  /** 'host:port,...' of every broker, as librdkafka reports it. */
  readonly bootstrap: string;
  /** Brokers by id (1..N), parsed from `bootstrap` (librdkafka lists them in id order). */
  readonly brokers: readonly MockBroker[];
  readonly pid: number;
  /** Time from spawn to the bootstrap line. */
  readonly startupMs: number;
  /** rd_kafka_mock_topic_create. (The mock answers no CreateTopics request.) */
  createTopic(name: string, partitions: number, replicationFactor: number): Promise<void>;
  /** rd_kafka_mock_partition_set_leader; -1: no leader. */
  setPartitionLeader(topic: string, partition: number, brokerId: number): Promise<void>;
  /** rd_kafka_mock_partition_set_follower: the replica a consumer is told to fetch from. */
  setPartitionFollower(topic: string, partition: number, brokerId: number): Promise<void>;
  /** rd_kafka_mock_coordinator_set: FindCoordinator for this key answers this broker. */
  setCoordinator(keyType: CoordinatorKeyType, key: string, brokerId: number): Promise<void>;
  /** rd_kafka_mock_broker_set_down: closes its connections and refuses new ones. */
  brokerDown(brokerId: number): Promise<void>;
  brokerUp(brokerId: number): Promise<void>;
  /** rd_kafka_mock_broker_set_rtt: delays this broker's responses. */
  setRtt(brokerId: number, ms: number): Promise<void>;
  /** rd_kafka_mock_push_request_errors: the next requests with this API key (any broker) fail with these errors, in order. */
  pushRequestErrors(apiKey: number, errors: readonly MockError[]): Promise<void>;
  clearRequestErrors(apiKey: number): Promise<void>;
  /** rd_kafka_mock_topic_set_error: returned for the topic in Metadata (and AddPartitionsToTxn). */
  setTopicError(topic: string, error: MockError): Promise<void>;
  /** rd_kafka_mock_set_apiversion: the range advertised and accepted; (-1, -1) disables the API. */
  setApiVersion(apiKey: number, minVersion: number, maxVersion: number): Promise<void>;
  /** Any command line of mock_cluster.c, answered "ok" (resolves) or "error ..." (rejects). */
  command(line: string): Promise<void>;
  /** The last lines librdkafka logged (stderr). */
  logTail(lines?: number): string;
  /** Closes stdin (the program destroys the cluster and exits); SIGKILL after 5 s. Idempotent. */
  close(): Promise<void>;
}

let binary: string | undefined;

/** Builds target/mock_cluster when missing or stale (build.sh); returns its path. */
export function mockClusterBinary(): string {
  if (binary === undefined) {
    const result = spawnSync('bash', [join(supportDir, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) throw new MockClusterError(`test/support/mock-cluster/build.sh failed (${result.status})`);
    binary = result.stdout.trim();
  }
  return binary;
}

/** True when gcc and librdkafka's headers (pkg-config rdkafka) are there, or the binary is built. */
export function mockClusterAvailable(): boolean {
  if (existsSync(join(supportDir, 'target', 'mock_cluster'))) return true;
  return spawnSync('pkg-config', ['--exists', 'rdkafka']).status === 0 && spawnSync('gcc', ['--version'], { stdio: 'ignore' }).status === 0;
}

function parseBrokers(bootstrap: string): MockBroker[] {
  return bootstrap.split(',').map((hostPort, i) => {
    const colon = hostPort.lastIndexOf(':');
    return { nodeId: i + 1, host: hostPort.slice(0, colon), port: Number(hostPort.slice(colon + 1)) };
  });
}

/** Words of a command line may not contain whitespace (the program splits on it). */
function word(value: string | number): string {
  const s = String(value);
  if (s === '' || /\s/.test(s)) throw new MockClusterError(`not usable in a mock_cluster command: ${JSON.stringify(s)}`);
  return s;
}

export async function startMockCluster(options: MockClusterOptions = {}): Promise<MockCluster> {
  const brokerCount = options.brokers ?? 3;
  const bin = mockClusterBinary();
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(bin, [String(brokerCount)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderrLines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderrLines.push(line);
    if (stderrLines.length > 200) stderrLines.shift();
  });
  // Dies with this process: closing our end of its stdin makes it exit.
  const onExit = (): void => void child.kill('SIGKILL');
  process.once('exit', onExit);

  const lines = createInterface({ input: child.stdout! });
  const waiting: { resolve: (line: string) => void; reject: (err: Error) => void }[] = [];
  let ended: Error | null = null;
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    process.off('exit', onExit);
    ended = new MockClusterError(`mock_cluster exited (code ${code}, signal ${signal}); stderr:\n${stderrLines.slice(-20).join('\n')}`);
    for (const w of waiting.splice(0)) w.reject(ended);
    resolve();
  }));
  child.once('error', (err) => {
    ended = err;
    for (const w of waiting.splice(0)) w.reject(err);
  });
  lines.on('line', (line) => waiting.shift()?.resolve(line));
  const nextLine = (): Promise<string> => ended !== null ? Promise.reject(ended) : new Promise((resolve, reject) => waiting.push({ resolve, reject }));

  const timeoutMs = options.startTimeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  let bootstrap: string;
  try {
    bootstrap = await Promise.race([
      nextLine(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new MockClusterError(`no bootstrap line from mock_cluster within ${timeoutMs} ms`)), timeoutMs))),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const startupMs = Math.round(performance.now() - spawnedAt);
  const brokers = parseBrokers(bootstrap);

  // One command at a time: answers come back in order, one line each.
  let queue: Promise<unknown> = Promise.resolve();
  const command = (line: string): Promise<void> => {
    const run = queue.then(async () => {
      if (ended !== null) throw ended;
      const answer = nextLine();
      child.stdin!.write(`${line}\n`);
      const reply = await answer;
      if (reply !== 'ok') throw new MockClusterError(`mock_cluster "${line}": ${reply}`);
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const cmd = (...words: (string | number)[]): Promise<void> => {
    try {
      return command(words.map(word).join(' '));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  };

  let closing: Promise<void> | null = null;
  return {
    bootstrap,
    brokers,
    pid: child.pid!,
    startupMs,
    createTopic: (name, partitions, replicationFactor) => cmd('topic', name, partitions, replicationFactor),
    setPartitionLeader: (topic, partition, brokerId) => cmd('leader', topic, partition, brokerId),
    setPartitionFollower: (topic, partition, brokerId) => cmd('follower', topic, partition, brokerId),
    setCoordinator: (keyType, key, brokerId) => cmd('coordinator', keyType, key, brokerId),
    brokerDown: (brokerId) => cmd('down', brokerId),
    brokerUp: (brokerId) => cmd('up', brokerId),
    setRtt: (brokerId, ms) => cmd('rtt', brokerId, ms),
    pushRequestErrors: (apiKey, errors) => cmd('errors', apiKey, ...errors),
    clearRequestErrors: (apiKey) => cmd('clear-errors', apiKey),
    setTopicError: (topic, error) => cmd('topic-error', topic, error),
    setApiVersion: (apiKey, minVersion, maxVersion) => cmd('apiversion', apiKey, minVersion, maxVersion),
    command,
    logTail: (n = 40) => stderrLines.slice(-n).join('\n'),
    close(): Promise<void> {
      closing ??= (async () => {
        if (ended === null) {
          child.stdin!.end();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
      })();
      return closing;
    },
  };
}
