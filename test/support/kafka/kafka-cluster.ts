/**
 * A multi-node Apache Kafka 4.4 cluster for interop tests: N JVMs, each a combined KRaft
 * broker and controller (`process.roles=broker,controller`) with a static N-voter quorum,
 * on 127.0.0.1 ports the OS picked, each in its own temp dir. Fewer JVMs than a separate
 * controller quorum, so it starts faster and costs less CPU on 2 cores; a quorum of 3
 * survives one node down.
 *
 *   const kafka = await startKafkaCluster({ brokers: 3 });
 *   await kafka.createTopic('t', 6, 3);            // leader of partition p: node p % 3 + 1
 *   const coordinator = await kafka.coordinatorOf('g');
 *   await kafka.stopBroker(coordinator);           // SIGKILL; Kafka elects new leaders
 *   await kafka.startBroker(coordinator);          // same data, same ports
 *   await kafka.close();
 *
 * Storage: the first cluster on a machine formats node 1 (kafka.tools.StorageTool) and keeps
 * its bootstrap snapshot (feature levels only) in target/kraft-bootstrap/; every node gets
 * that file and its own meta.properties, so later clusters start no format JVM at all.
 * (Kafka 4.4's formatter writes the bootstrap records as the metadata log's first snapshot,
 * __cluster_metadata-0/00000000000000000000-0000000000.checkpoint; 4.1 wrote them to
 * bootstrap.checkpoint. The snapshot holds no cluster or node id, only record timestamps.)
 * Cluster queries (leaderOf, coordinatorOf, createTopic) use the raw wire client
 * (raw-client.ts), not Brook's client, so the harness does not depend on what it tests.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import {
  HOST, kafkaDir, javaVersionText, defaultJvmOptions, failureReport, fileSize, freePorts, kafkaClasspath, log4j2Properties, logTailOf, propertiesText,
  randomClusterId, releaseTempDir, runJava, cdsOptions, spawnKafkaJvm, trackTempDir, type KafkaExit, type KafkaJvm,
} from './kafka-jvm.js';
import { waitFor, type ClusterMetadata, describeCluster, findCoordinatorOnce, createTopicOnce } from './kafka-cluster-queries.js';

export interface KafkaClusterOptions {
  /** Number of nodes, each broker and controller (default 3). */
  brokers?: number;
  /**
   * Replication factor of __consumer_offsets (default: the number of brokers, so a group's
   * coordinator moves when its broker stops). 1 pins each group's coordinator to one broker
   * (unavailable while that broker is down).
   */
  offsetsTopicReplicationFactor?: number;
  /** Partitions of __consumer_offsets (default 6; Kafka's is 50, slower to create). */
  offsetsTopicPartitions?: number;
  /** group.initial.rebalance.delay.ms (default 0). */
  groupInitialRebalanceDelayMs?: number;
  /** Extra server.properties entries for every node; they override everything. */
  config?: Record<string, string>;
  /** Extra JVM options after the defaults (-Xms64m -Xmx384m, serial GC, C1 only). */
  jvmOptions?: string[];
  /** Per start (the whole cluster, or one startBroker); default 90000. */
  startTimeoutMs?: number;
}

export interface KafkaClusterNode {
  readonly nodeId: number;
  readonly host: string;
  /** Client (PLAINTEXT) port. */
  readonly port: number;
  readonly controllerPort: number;
  readonly dataDir: string;
}

export interface KafkaCluster {
  /** Every node's `host:port`, comma-separated. */
  readonly bootstrap: string;
  readonly nodes: readonly KafkaClusterNode[];
  readonly clusterId: string;
  /** Time spent writing storage (a StorageTool run only when no checkpoint is cached). */
  readonly formatMs: number;
  /** Time from spawning the JVMs to every node listing every broker in Metadata. */
  readonly startupMs: number;
  /** Node ids whose JVM runs. */
  running(): number[];
  /** Stops one node: SIGKILL (default) or `{ clean: true }` for SIGTERM (controlled shutdown). */
  stopBroker(nodeId: number, options?: { clean?: boolean }): Promise<KafkaExit>;
  /** Starts a stopped node again on its data and ports; resolves when every running node lists it. */
  startBroker(nodeId: number): Promise<void>;
  /**
   * Creates a topic with explicit replica assignments over the running nodes (partition p:
   * leader running[p % n], then the next ones) and waits until every running node knows
   * all its leaders.
   */
  createTopic(name: string, partitions: number, replicationFactor: number, config?: Record<string, string>): Promise<void>;
  /** The partition's leader (node id) per a running node's Metadata; -1 when it has none. */
  leaderOf(topic: string, partition: number): Promise<number>;
  /** The group's coordinator (node id), retrying while Kafka answers COORDINATOR_NOT_AVAILABLE (up to `timeoutMs`, default 30000). */
  coordinatorOf(group: string, timeoutMs?: number): Promise<number>;
  /** Brokers, topics, partitions (leader, replicas, ISR) from a running node. */
  metadata(topics?: string[] | null): Promise<ClusterMetadata>;
  /** Last lines of one node's server.log. */
  logTail(nodeId: number, lines?: number): string;
  /** Resident set size of a running node's JVM. */
  rssBytes(nodeId: number): number | null;
  /** SIGKILL to every node (SIGTERM to one writing the CDS archive), then the temp dirs are removed. Idempotent. */
  close(): Promise<void>;
}

const clusterJvmOptions = ['-Xms64m', '-Xmx384m'];

function nodeProperties(node: KafkaClusterNode, voters: string, options: KafkaClusterOptions, brokerCount: number): string {
  const rf = String(options.offsetsTopicReplicationFactor ?? brokerCount);
  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(node.nodeId),
    'controller.quorum.voters': voters,
    listeners: `PLAINTEXT://${HOST}:${node.port},CONTROLLER://${HOST}:${node.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${node.port},CONTROLLER://${HOST}:${node.controllerPort}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': join(node.dataDir, 'logs'),
    'offsets.topic.replication.factor': rf,
    'offsets.topic.num.partitions': String(options.offsetsTopicPartitions ?? 6),
    'transaction.state.log.replication.factor': rf,
    'transaction.state.log.min.isr': '1',
    'transaction.state.log.num.partitions': '6',
    'share.coordinator.state.topic.replication.factor': rf,
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': String(options.groupInitialRebalanceDelayMs ?? 0),
    'auto.create.topics.enable': 'true',
    // A SIGKILLed node is fenced (and its partitions get new leaders) after 2 s, not 9 s.
    'broker.heartbeat.interval.ms': '500',
    'broker.session.timeout.ms': '2000',
    // Fewer threads than the defaults: 3 JVMs on 2 cores.
    'num.network.threads': '2',
    'num.io.threads': '2',
    'background.threads': '2',
    'num.recovery.threads.per.data.dir': '1',
    'log.cleaner.threads': '1',
    'log.cleaner.dedupe.buffer.size': String(8 * 1024 * 1024),
    ...options.config,
  };
  return propertiesText(props, 'test/support/kafka/kafka-cluster.ts');
}

/** What `kafka-storage format` writes as meta.properties (version 1: KRaft). */
function metaProperties(clusterId: string, nodeId: number): string {
  // A directory id as Kafka makes one: a random UUID, base64url, not starting with '-'.
  const directoryId = randomBytes(16).toString('base64url').replace(/^-/, 'A');
  return `#\n#written by test/support/kafka/kafka-cluster.ts\nnode.id=${nodeId}\ndirectory.id=${directoryId}\nversion=1\ncluster.id=${clusterId}\n`;
}

/** The bootstrap snapshot kafka-storage format writes, relative to log.dirs (Kafka 4.4). */
const BOOTSTRAP_SNAPSHOT = join('__cluster_metadata-0', '00000000000000000000-0000000000.checkpoint');

/** Where a formatted bootstrap snapshot is kept, per classpath and Java build. */
function checkpointCachePath(cp: string): string {
  const key = createHash('sha256').update(`${javaVersionText()}\n${cp}`).digest('hex').slice(0, 16);
  return join(kafkaDir, 'target', 'kraft-bootstrap', `bootstrap-${key}.checkpoint`);
}

export async function startKafkaCluster(options: KafkaClusterOptions = {}): Promise<KafkaCluster> {
  const brokerCount = options.brokers ?? 3;
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const cp = kafkaClasspath();
  const root = mkdtempSync(join(tmpdir(), 'brook-kafka-cluster-'));
  trackTempDir(root);
  const jvms = new Map<number, KafkaJvm>();
  const logStarts = new Map<number, number>();
  try {
    const ports = await freePorts(2 * brokerCount);
    const nodes: KafkaClusterNode[] = Array.from({ length: brokerCount }, (_, i) => ({
      nodeId: i + 1, host: HOST, port: ports[2 * i]!, controllerPort: ports[2 * i + 1]!, dataDir: join(root, `node-${i + 1}`),
    }));
    const voters = nodes.map((n) => `${n.nodeId}@${HOST}:${n.controllerPort}`).join(',');
    const clusterId = randomClusterId();
    const jvmArgsOf = (node: KafkaClusterNode): string[] => [
      ...defaultJvmOptions, ...clusterJvmOptions, ...(options.jvmOptions ?? []),
      `-Dlog4j2.configurationFile=${join(node.dataDir, 'log4j2.properties')}`, '-cp', cp,
    ];
    for (const node of nodes) {
      mkdirSync(node.dataDir, { recursive: true });
      writeFileSync(join(node.dataDir, 'server.properties'), nodeProperties(node, voters, options, brokerCount));
      writeFileSync(join(node.dataDir, 'log4j2.properties'), log4j2Properties(node.dataDir));
    }

    // Storage: meta.properties (per node) and the bootstrap snapshot (the feature levels, the
    // same for every node and cluster of this Kafka build). The snapshot comes from the
    // cache when a previous cluster formatted one; otherwise node 1 is formatted (a static
    // quorum: no --standalone), its snapshot cached, and copied to the others.
    const formatStart = performance.now();
    const cached = checkpointCachePath(cp);
    if (!existsSync(cached)) {
      const first = nodes[0]!;
      const formatted = await runJava([...cdsOptions(cp, false).options, ...jvmArgsOf(first), 'kafka.tools.StorageTool', 'format', '--cluster-id', clusterId, '--config', join(first.dataDir, 'server.properties')], first.dataDir);
      if (formatted.code !== 0) throw new Error(`kafka-storage format failed (exit ${formatted.code}):\n${formatted.output}`);
      mkdirSync(dirname(cached), { recursive: true });
      const tmp = `${cached}.${process.pid}.tmp`;
      copyFileSync(join(first.dataDir, 'logs', BOOTSTRAP_SNAPSHOT), tmp);
      renameSync(tmp, cached);
    }
    for (const node of nodes) {
      const logs = join(node.dataDir, 'logs');
      mkdirSync(logs, { recursive: true });
      writeFileSync(join(logs, 'meta.properties'), metaProperties(clusterId, node.nodeId));
      const snapshot = join(logs, BOOTSTRAP_SNAPSHOT);
      mkdirSync(dirname(snapshot), { recursive: true });
      // The formatter leaves its snapshot read-only (node 1's, when formatted just now).
      rmSync(snapshot, { force: true });
      copyFileSync(cached, snapshot);
    }
    const formatMs = Math.round(performance.now() - formatStart);

    const spawnNode = (node: KafkaClusterNode): KafkaJvm => {
      logStarts.set(node.nodeId, fileSize(join(node.dataDir, 'server.log')));
      // Only node 1 may write the CDS archive (on a clean exit), once per machine.
      const jvm = spawnKafkaJvm(cp, node.dataDir, join(node.dataDir, 'server.properties'), jvmArgsOf(node), node.nodeId === 1);
      jvms.set(node.nodeId, jvm);
      return jvm;
    };
    const running = (): number[] => nodes.filter((n) => jvms.get(n.nodeId)?.exit() === null).map((n) => n.nodeId);
    const nodeOf = (nodeId: number): KafkaClusterNode => {
      const node = nodes.find((n) => n.nodeId === nodeId);
      if (node === undefined) throw new Error(`no node ${nodeId} in this cluster (1..${brokerCount})`);
      return node;
    };
    const failure = (what: string, ids: number[]): Error => new Error(`${what}\n${ids.map((id) => {
      const node = nodeOf(id);
      const exit = jvms.get(id)?.exit() ?? null;
      return `--- node ${id}${exit === null ? '' : ` (exited: code ${exit.code}, signal ${exit.signal})`}: ${failureReport(node.dataDir, logStarts.get(id) ?? 0)}`;
    }).join('\n')}`);
    /** Until every running node lists every running node as a broker (registered and unfenced). */
    const waitUntilListed = async (what: string, ids: number[], deadline: number): Promise<void> => {
      await waitFor(what, deadline, async () => {
        const crashed = ids.filter((id) => jvms.get(id)?.exit() !== null);
        if (crashed.length > 0) throw failure(`${what}: node(s) ${crashed.join(', ')} exited`, crashed);
        const want = running();
        for (const id of want) {
          const md = await describeCluster(nodeOf(id), null, 2_000);
          const listed = new Set(md.brokers.map((b) => b.nodeId));
          if (!want.every((w) => listed.has(w))) return false;
        }
        return true;
      }, () => failure(`${what}: not within the time limit`, ids));
    };

    const spawnedAt = performance.now();
    for (const node of nodes) spawnNode(node);
    await waitUntilListed(`starting ${brokerCount} Kafka nodes`, nodes.map((n) => n.nodeId), spawnedAt + timeoutMs);
    const startupMs = Math.round(performance.now() - spawnedAt);

    const anyRunning = (): KafkaClusterNode => {
      const id = running()[0];
      if (id === undefined) throw new Error('no Kafka node is running');
      return nodeOf(id);
    };
    let closing: Promise<void> | null = null;
    return {
      bootstrap: nodes.map((n) => `${n.host}:${n.port}`).join(','),
      nodes,
      clusterId,
      formatMs,
      startupMs,
      running,
      async stopBroker(nodeId, stopOptions = {}) {
        nodeOf(nodeId);
        const jvm = jvms.get(nodeId)!;
        return stopOptions.clean === true ? jvm.terminate(15_000) : jvm.kill();
      },
      async startBroker(nodeId) {
        const node = nodeOf(nodeId);
        if (jvms.get(nodeId)?.exit() === null) throw new Error(`node ${nodeId} is running`);
        spawnNode(node);
        await waitUntilListed(`restarting node ${nodeId}`, [nodeId], performance.now() + timeoutMs);
      },
      async createTopic(name, partitions, replicationFactor, config = {}) {
        const ids = running();
        if (replicationFactor > ids.length) throw new Error(`replication factor ${replicationFactor} > ${ids.length} running nodes`);
        const assignments = Array.from({ length: partitions }, (_, p) => ({
          partitionIndex: p,
          brokerIds: Array.from({ length: replicationFactor }, (_, r) => ids[(p + r) % ids.length]!),
        }));
        await createTopicOnce(anyRunning(), name, assignments, config);
        await waitFor(`leaders of ${name} on every node`, performance.now() + 30_000, async () => {
          for (const id of running()) {
            const topic = (await describeCluster(nodeOf(id), [name], 2_000)).topics.find((t) => t.name === name);
            if (topic === undefined || topic.partitions.length !== partitions || topic.partitions.some((p) => p.leaderId < 0)) return false;
          }
          return true;
        });
      },
      async leaderOf(topic, partition) {
        const md = await describeCluster(anyRunning(), [topic], 5_000);
        return md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leaderId ?? -1;
      },
      async coordinatorOf(group, waitMs = 30_000) {
        let found = -1;
        await waitFor(`the coordinator of group ${group}`, performance.now() + waitMs, async () => {
          found = await findCoordinatorOnce(anyRunning(), group);
          return found >= 0;
        });
        return found;
      },
      metadata: (topics = null) => describeCluster(anyRunning(), topics, 5_000),
      logTail: (nodeId, lines = 50) => logTailOf(nodeOf(nodeId).dataDir, lines),
      rssBytes: (nodeId) => jvms.get(nodeId)?.rssBytes() ?? null,
      close(): Promise<void> {
        closing ??= (async () => {
          // The data goes anyway: SIGKILL, except a JVM that writes the CDS archive on a clean
          // exit (once per machine). SIGTERM to all nodes at once takes about 7 s.
          await Promise.all([...jvms.values()].map((jvm) => (jvm.dumpsCds ? jvm.terminate(15_000) : jvm.kill())));
          releaseTempDir(root);
        })();
        return closing;
      },
    };
  } catch (err) {
    await Promise.all([...jvms.values()].map((jvm) => jvm.kill()));
    releaseTempDir(root);
    throw err;
  }
}
