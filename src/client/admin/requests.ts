/**
 * How admin requests reach the right broker of a (possibly multi-broker) cluster: group
 * requests go to the group's coordinator (FindCoordinator, retried on NOT_COORDINATOR and
 * the like, as Kafka's admin client does), partition requests to each partition's leader.
 */
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import type { Cluster, BrokerAddress } from '../cluster.js';
import type { BrokerConnection } from '../connection.js';
import { isRetriableCoordinatorFailure } from '../coordinator-errors.js';
import type { TopicPartition } from './types.js';

export interface AdminContext {
  readonly cluster: Cluster;
  /** The call's time limit in ms (sent where a request carries a timeout, e.g. ListOffsets). */
  readonly apiTimeoutMs: number;
  /** Aborts at the call's time limit or when the caller aborts: every retry loop ends with it. */
  readonly signal: AbortSignal;
}

/** Throws for a non-zero error code. */
export function check(errorCode: number, detail?: string | null): void {
  if (errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(errorCode, detail ?? undefined);
}

/**
 * Runs `attempt` against the group's coordinator, looking it up again and retrying (after
 * retry.backoff.ms) while the failure is one a retry can heal (coordinator moved or
 * loading, a broken connection), until the call's signal ends it.
 */
export async function withCoordinator<T>(
  ctx: AdminContext, group: string,
  attempt: (connection: BrokerConnection, coordinator: BrokerAddress) => Promise<T>,
): Promise<T> {
  const { cluster, signal } = ctx;
  for (;;) {
    try {
      const coordinator = await cluster.findCoordinator(group, undefined, signal);
      const connection = await cluster.connectionTo(coordinator, signal);
      return await attempt(connection, coordinator);
    } catch (err) {
      if (signal.aborted || !isRetriableCoordinatorFailure(err)) throw err;
      await cluster.backoff(signal);
    }
  }
}

/** Partitions grouped by the id of their leader broker (from metadata, refreshed when unknown). */
export async function byLeader<P extends TopicPartition>(ctx: AdminContext, partitions: readonly P[]): Promise<Map<number, P[]>> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  const missing = topics.filter((t) => ctx.cluster.topic(t) === undefined);
  if (missing.length > 0) await ctx.cluster.refreshMetadata(missing, ctx.signal);
  const out = new Map<number, P[]>();
  for (const p of partitions) {
    const leader = await ctx.cluster.leaderFor(p.topic, p.partition, ctx.signal);
    const list = out.get(leader) ?? [];
    list.push(p);
    out.set(leader, list);
  }
  return out;
}

/** `topic` → its partitions' entries, in the shape request bodies nest them. */
export function groupByTopic<P extends TopicPartition>(partitions: readonly P[]): Map<string, P[]> {
  const out = new Map<string, P[]>();
  for (const p of partitions) {
    const list = out.get(p.topic) ?? [];
    list.push(p);
    out.set(p.topic, list);
  }
  return out;
}

export function compareTopicPartition(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

export const tpKey = (tp: TopicPartition): string => `${tp.topic}\u0000${tp.partition}`;
