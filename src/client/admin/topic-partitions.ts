/**
 * Admin.describeTopics: topics with their partitions, leaders, replicas, ISR and (KIP-966)
 * eligible leader replicas, through DescribeTopicPartitions, following its cursor until every
 * partition is read, as Kafka 4's admin client does; through Metadata (no ELR: null) when the
 * broker does not serve DescribeTopicPartitions.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeTopicPartitionsResponseCursor, DescribeTopicPartitionsResponseData } from '../../protocol/messages/describe-topic-partitions.js';
import { ZERO_UUID } from '../cluster.js';
import { check, type AdminContext } from './requests.js';
import type { DescribedTopic } from './types.js';

/** Kafka's max.request.partition.size.limit default: the most partitions a broker puts in one response. */
export const DEFAULT_PARTITIONS_PER_REQUEST = 2000;

const byName = (a: DescribedTopic, b: DescribedTopic): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `names` null: every topic. Throws the error of the first topic that has one (e.g. UNKNOWN_TOPIC_OR_PARTITION). */
export async function describeTopics(ctx: AdminContext, names: readonly string[] | null, partitionsPerRequest = DEFAULT_PARTITIONS_PER_REQUEST): Promise<DescribedTopic[]> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  if (connection.supportedVersion(Api.DescribeTopicPartitions) === undefined) return viaMetadata(ctx, names);
  const topics = new Map<string, DescribedTopic>();
  let cursor: DescribeTopicPartitionsResponseCursor | null = null;
  do {
    const response: DescribeTopicPartitionsResponseData = await connection.request(Api.DescribeTopicPartitions, {
      topics: (names ?? []).map((name) => ({ name })), responsePartitionLimit: partitionsPerRequest, cursor,
    }, { signal: ctx.signal });
    for (const t of response.topics) {
      const name = t.name ?? '';
      check(t.errorCode, name);
      let topic = topics.get(name);
      if (!topic) topics.set(name, (topic = { name, topicId: t.topicId, internal: t.isInternal, partitions: [] }));
      for (const p of t.partitions) {
        check(p.errorCode, `${name}-${p.partitionIndex}`);
        topic.partitions.push({
          partition: p.partitionIndex, leader: p.leaderId, leaderEpoch: p.leaderEpoch, replicas: p.replicaNodes, isr: p.isrNodes,
          elr: p.eligibleLeaderReplicas, lastKnownElr: p.lastKnownElr, offline: p.offlineReplicas,
        });
      }
    }
    cursor = response.nextCursor;
  } while (cursor !== null);
  return [...topics.values()].sort(byName);
}

async function viaMetadata(ctx: AdminContext, names: readonly string[] | null): Promise<DescribedTopic[]> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.Metadata, {
    topics: names === null ? null : names.map((name) => ({ name, topicId: ZERO_UUID })),
    allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
  }, { signal: ctx.signal });
  return response.topics.map((t): DescribedTopic => {
    check(t.errorCode, t.name);
    return {
      name: t.name ?? '',
      topicId: t.topicId ?? ZERO_UUID,
      internal: t.isInternal ?? false,
      partitions: t.partitions.map((p) => ({
        partition: p.partitionIndex, leader: p.leaderId, leaderEpoch: p.leaderEpoch ?? -1, replicas: p.replicaNodes, isr: p.isrNodes,
        elr: null, lastKnownElr: null, offline: p.offlineReplicas ?? [],
      })).sort((a, b) => a.partition - b.partition),
    };
  }).sort(byName);
}
