/**
 * Offsets: a group's committed offsets (OffsetFetch), commits on its behalf (OffsetCommit
 * with generation -1 and no member id, as Kafka's admin client does: allowed only while the
 * group has no members), OffsetDelete, and log offsets by ListOffsets at each leader.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError, isRetriable } from '../../protocol/errors.js';
import { GroupNotFoundError } from './errors.js';
import { byLeader, check, compareTopicPartition, groupByTopic, tpKey, withCoordinator, type AdminContext } from './requests.js';
import type { CommittedOffset, DeletedOffset, PlannedOffset, TopicPartition } from './types.js';
import { errorInfo } from '../../protocol/errors.js';

/** ListOffsets' special timestamps. */
export const EARLIEST_TIMESTAMP = -2n;
export const LATEST_TIMESTAMP = -1n;

/** The group's committed offsets (partitions without a commit are left out), sorted. */
export async function fetchCommittedOffsets(ctx: AdminContext, group: string): Promise<CommittedOffset[]> {
  return withCoordinator(ctx, group, async (connection) => {
    const version = connection.supportedVersion(Api.OffsetFetch);
    let topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch?: number; metadata: string | null; errorCode: number }[] }[];
    if (version !== undefined && version >= 8) {
      const response = await connection.request(Api.OffsetFetch, {
        groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: null }], requireStable: false,
      }, { signal: ctx.signal });
      const g = response.groups?.find((x) => x.groupId === group);
      if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `OffsetFetch left out group ${group}`);
      if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return [];
      check(g.errorCode, group);
      // Up to v9 (the admin client names topics, version-caps.ts) every topic has its name.
      topics = g.topics.map((t) => ({ ...t, name: t.name ?? '' }));
    } else {
      const response = await connection.request(Api.OffsetFetch, { groupId: group, topics: null, requireStable: false }, { signal: ctx.signal });
      if (response.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return [];
      check(response.errorCode ?? ErrorCode.NONE, group);
      topics = response.topics ?? [];
    }
    const out: CommittedOffset[] = [];
    for (const t of topics) {
      for (const p of t.partitions) {
        check(p.errorCode, `${t.name}-${p.partitionIndex}`);
        // -1: no committed offset (Kafka's admin client drops these).
        if (p.committedOffset < 0n) continue;
        out.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.metadata });
      }
    }
    return out.sort(compareTopicPartition);
  });
}

/**
 * ListOffsets for `timestamp` (EARLIEST_TIMESTAMP, LATEST_TIMESTAMP or a time in ms) at each
 * partition's leader; retries leader changes until default.api.timeout.ms. The value is null
 * when no record has a timestamp at or after the one asked for.
 */
export async function listOffsets(ctx: AdminContext, partitions: readonly TopicPartition[], timestamp: bigint): Promise<Map<string, bigint | null>> {
  const result = new Map<string, bigint | null>();
  let pending = [...partitions];
  while (pending.length > 0) {
    const retry: TopicPartition[] = [];
    let lastError: KafkaProtocolError | null = null;
    const groups = await byLeader(ctx, pending);
    await Promise.all([...groups].map(async ([leader, tps]) => {
      const connection = await ctx.cluster.connectionToNode(leader, ctx.signal);
      const response = await connection.request(Api.ListOffsets, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [...groupByTopic(tps)].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({ partitionIndex: p.partition, currentLeaderEpoch: -1, timestamp })),
        })),
        timeoutMs: ctx.apiTimeoutMs,
      }, { signal: ctx.signal });
      for (const t of response.topics) {
        for (const p of t.partitions) {
          const tp = { topic: t.name, partition: p.partitionIndex };
          if (p.errorCode !== ErrorCode.NONE) {
            const err = new KafkaProtocolError(p.errorCode, `${t.name}-${p.partitionIndex}`);
            if (!isRetriable(p.errorCode)) throw err;
            lastError = err;
            ctx.cluster.invalidateTopic(t.name);
            retry.push(tp);
            continue;
          }
          const offset = p.offset ?? -1n;
          result.set(tpKey(tp), offset < 0n ? null : offset);
        }
      }
    }));
    if (retry.length > 0) {
      ctx.cluster.logger.debug('ListOffsets failed; retrying', { error: lastError });
      await ctx.cluster.backoff(ctx.signal);
    }
    pending = retry;
  }
  return result;
}

/** OffsetCommit for an inactive group (generation -1, no member id). */
export async function commitOffsets(ctx: AdminContext, group: string, offsets: readonly PlannedOffset[]): Promise<void> {
  if (offsets.length === 0) return;
  await withCoordinator(ctx, group, async (connection) => {
    const response = await connection.request(Api.OffsetCommit, {
      groupId: group,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [...groupByTopic(offsets)].map(([name, ps]) => ({
        name,
        partitions: ps.map((p) => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: -1, committedMetadata: '' })),
      })),
    }, { signal: ctx.signal });
    for (const t of response.topics) {
      for (const p of t.partitions) check(p.errorCode, `${t.name}-${p.partitionIndex}`);
    }
  });
}

/** OffsetDelete; per-partition outcome (GROUP_SUBSCRIBED_TO_TOPIC while a member consumes the topic). */
export async function deleteOffsets(ctx: AdminContext, group: string, partitions: readonly TopicPartition[]): Promise<DeletedOffset[]> {
  return withCoordinator(ctx, group, async (connection) => {
    const response = await connection.request(Api.OffsetDelete, {
      groupId: group,
      topics: [...groupByTopic(partitions)].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p.partition })) })),
    }, { signal: ctx.signal });
    if (response.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(response.errorCode, `group '${group}'`);
    const out: DeletedOffset[] = [];
    for (const t of response.topics) {
      for (const p of t.partitions) {
        out.push({ topic: t.name, partition: p.partitionIndex, error: p.errorCode === ErrorCode.NONE ? null : errorInfo(p.errorCode).name });
      }
    }
    return out.sort(compareTopicPartition);
  });
}
