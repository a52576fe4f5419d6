/**
 * Cluster queries for the Kafka cluster harness (kafka-cluster.ts) over the raw wire client:
 * Metadata v12, FindCoordinator v4, CreateTopics v7, and a deadline-bounded poll.
 */
import { RawConnection } from './raw-client.js';

export interface ClusterPartition {
  readonly partition: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly errorCode: number;
}

export interface ClusterTopic {
  readonly name: string;
  readonly errorCode: number;
  /** Sorted by partition. */
  readonly partitions: readonly ClusterPartition[];
}

export interface ClusterMetadata {
  readonly controllerId: number;
  /** Registered, unfenced brokers, sorted by node id. */
  readonly brokers: readonly { nodeId: number; host: string; port: number }[];
  readonly topics: readonly ClusterTopic[];
}

const COORDINATOR_NOT_AVAILABLE = 15;
const NOT_COORDINATOR = 16;
const COORDINATOR_LOAD_IN_PROGRESS = 14;

async function withConnection<T>(address: { host: string; port: number }, timeoutMs: number, use: (conn: RawConnection) => Promise<T>): Promise<T> {
  const conn = await RawConnection.connect(address.host, address.port, { clientId: 'brook-kafka-cluster', timeoutMs });
  try {
    return await use(conn);
  } finally {
    conn.close();
  }
}

/** Metadata v12 from one node; `topics` null: every topic. */
export function describeCluster(address: { host: string; port: number }, topics: string[] | null, timeoutMs: number): Promise<ClusterMetadata> {
  return withConnection(address, timeoutMs, async (conn) => {
    const md = await conn.request('Metadata', 12, {
      topics: topics === null ? null : topics.map((name) => ({ name })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    return {
      controllerId: md.controllerId ?? -1,
      brokers: md.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })).sort((a, b) => a.nodeId - b.nodeId),
      topics: md.topics.map((t) => ({
        name: t.name ?? '',
        errorCode: t.errorCode,
        partitions: t.partitions.map((p) => ({
          partition: p.partitionIndex, leaderId: p.leaderId, leaderEpoch: p.leaderEpoch ?? -1, replicas: p.replicaNodes, isr: p.isrNodes, errorCode: p.errorCode,
        })).sort((a, b) => a.partition - b.partition),
      })),
    };
  });
}

/** FindCoordinator v4 for a group: its node id, or -1 while Kafka has none to name (e.g. __consumer_offsets being created). */
export function findCoordinatorOnce(address: { host: string; port: number }, group: string): Promise<number> {
  return withConnection(address, 5_000, async (conn) => {
    const response = await conn.request('FindCoordinator', 4, { keyType: 0, coordinatorKeys: [group] });
    const c = response.coordinators?.[0];
    if (c === undefined) throw new Error(`FindCoordinator(${group}): empty response`);
    if ([COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS].includes(c.errorCode)) return -1;
    if (c.errorCode !== 0) throw new Error(`FindCoordinator(${group}): error ${c.errorCode} ${c.errorMessage ?? ''}`);
    return c.nodeId;
  });
}

/** CreateTopics v7 with explicit replica assignments; throws on any error. */
export async function createTopicOnce(
  address: { host: string; port: number },
  name: string,
  assignments: { partitionIndex: number; brokerIds: number[] }[],
  config: Record<string, string>,
): Promise<void> {
  await withConnection(address, 30_000, async (conn) => {
    const response = await conn.request('CreateTopics', 7, {
      topics: [{ name, numPartitions: -1, replicationFactor: -1, assignments, configs: Object.entries(config).map(([k, v]) => ({ name: k, value: v })) }],
      timeoutMs: 20_000,
      validateOnly: false,
    });
    const result = response.topics[0];
    if (result === undefined || result.errorCode !== 0) {
      throw new Error(`CreateTopics ${name}: error ${result?.errorCode} ${result?.errorMessage ?? ''}`);
    }
  });
}

/**
 * Polls `probe` every 100 ms until it returns true; errors count as "not yet", except
 * errors it throws deliberately after a node crashed (any error whose message starts with
 * the `what`). At `deadline` (performance.now() time) throws `onTimeout()` or a plain error.
 */
export async function waitFor(what: string, deadline: number, probe: () => Promise<boolean>, onTimeout?: () => Error): Promise<void> {
  let last: unknown;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(what)) throw err;
      last = err;
    }
    if (performance.now() > deadline) {
      if (onTimeout !== undefined) throw onTimeout();
      throw new Error(`timed out waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
