/**
 * DescribeShareGroupOffsets (KIP-932), as Kafka 4.4's KafkaApis and GroupCoordinatorService:
 * per group, the start offset of each share-partition from the share coordinator
 * (ReadShareGroupStateSummary), with its leader epoch and, from v1, its lag: the log end
 * minus the start offset minus the records past it already delivered for good (the state's
 * delivery complete count); -1 while the start offset or that count is unknown.
 *
 * As Kafka, the group itself is not looked up for named topics: an unknown group, or a
 * topic without state, reads as uninitialized (start offset -1). Without topics (null), the
 * group's initialized share-partitions are described. Authorization: DESCRIBE on the group
 * (else GROUP_AUTHORIZATION_FAILED for it); named topics the client may not DESCRIBE come last
 * with TOPIC_AUTHORIZATION_FAILED per partition; undescribable ones are left out of "all".
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import type {
  DescribeShareGroupOffsetsRequestData, DescribeShareGroupOffsetsRequestGroup, DescribeShareGroupOffsetsRequestTopic, DescribeShareGroupOffsetsResponseData,
  DescribeShareGroupOffsetsResponseGroup, DescribeShareGroupOffsetsResponsePartition, DescribeShareGroupOffsetsResponseTopic,
} from '../../protocol/messages/describe-share-group-offsets.js';
import type { ReadShareGroupStateSummaryRequestData, ReadShareGroupStateSummaryResponsePartitionResult } from '../../protocol/messages/read-share-group-state-summary.js';
import { kafkaErrorMessage } from '../../coordinator/share-state/responses.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

function groupError(groupId: string, errorCode: number, errorMessage: string | null): DescribeShareGroupOffsetsResponseGroup {
  return { groupId, topics: [], errorCode, errorMessage };
}

/** A partition without state, or of an unknown topic (GroupCoordinatorService's defaults). */
function uninitialized(partitionIndex: number): DescribeShareGroupOffsetsResponsePartition {
  return { partitionIndex, startOffset: -1n, leaderEpoch: 0, lag: -1n, errorCode: ErrorCode.NONE, errorMessage: null };
}

/** Kafka's shouldComputeSharePartitionLag. */
function knowsLag(p: ReadShareGroupStateSummaryResponsePartitionResult): boolean {
  return p.errorCode === ErrorCode.NONE && p.startOffset !== -1n && (p.deliveryCompleteCount ?? -1) !== -1;
}

/**
 * Kafka's computeShareGroupLagAndBuildResponse: a summary's error is not passed on, the
 * partition just reads as uninitialized; the log end is the high watermark (Kafka's latest
 * offset, read uncommitted).
 */
function partitionOf(ctx: RequestContext, topic: string | undefined, p: ReadShareGroupStateSummaryResponsePartitionResult): DescribeShareGroupOffsetsResponsePartition {
  const ok = p.errorCode === ErrorCode.NONE;
  if (!knowsLag(p)) return { partitionIndex: p.partition, startOffset: ok ? p.startOffset : -1n, leaderEpoch: ok ? p.leaderEpoch : 0, lag: -1n, errorCode: ErrorCode.NONE, errorMessage: null };
  const log = topic === undefined ? undefined : ctx.broker.storage.partition(topic, p.partition);
  if (log === undefined) {
    return { partitionIndex: p.partition, startOffset: 0n, leaderEpoch: 0, lag: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: kafkaErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
  }
  const lag = log.highWatermark - p.startOffset - BigInt(p.deliveryCompleteCount ?? 0);
  return { partitionIndex: p.partition, startOffset: p.startOffset, leaderEpoch: p.leaderEpoch, lag, errorCode: ErrorCode.NONE, errorMessage: null };
}

/** Kafka's readShareGroupStateSummary: the share coordinator's summary, as the response's topics. */
async function readSummary(ctx: RequestContext, request: ReadShareGroupStateSummaryRequestData, names: ReadonlyMap<string, string>): Promise<DescribeShareGroupOffsetsResponseTopic[]> {
  if (request.topics.length === 0) return [];
  const summary = await ctx.broker.shareState.readSummary(request, ctx.signal);
  return summary.results.map((t) => {
    const topicName = names.get(t.topicId);
    return { topicName: topicName ?? '', topicId: t.topicId, partitions: t.partitions.map((p) => partitionOf(ctx, topicName, p)) };
  });
}

/** Kafka's describeShareGroupOffsets: named topics; unknown ones (no topic id) come last, uninitialized. */
async function describeTopics(ctx: RequestContext, groupId: string, topics: readonly DescribeShareGroupOffsetsRequestTopic[]): Promise<DescribeShareGroupOffsetsResponseTopic[]> {
  const names = new Map<string, string>();
  const unknown: DescribeShareGroupOffsetsResponseTopic[] = [];
  const request: ReadShareGroupStateSummaryRequestData = { groupId, topics: [] };
  for (const t of topics) {
    const meta = ctx.broker.storage.topic(t.topicName);
    if (meta === undefined) {
      unknown.push({ topicName: t.topicName, topicId: ZERO_UUID, partitions: t.partitions.map(uninitialized) });
      continue;
    }
    names.set(meta.topicId, t.topicName);
    request.topics.push({ topicId: meta.topicId, partitions: t.partitions.map((partition) => ({ partition, leaderEpoch: 0 })) });
  }
  return [...await readSummary(ctx, request, names), ...unknown];
}

/** Kafka's describeShareGroupAllOffsets: the group's initialized share-partitions of topics that still exist. */
async function describeAll(ctx: RequestContext, groupId: string): Promise<DescribeShareGroupOffsetsResponseTopic[]> {
  const initialized = await ctx.broker.groups.submit<ReadonlyMap<string, readonly number[]> | CoordinatorError>(
    ctx, (c, cctx) => c.initializedShareGroupPartitions(cctx, groupId), (errorCode) => new CoordinatorError(errorCode),
  );
  if (initialized instanceof CoordinatorError) throw initialized;
  const names = new Map<string, string>();
  const request: ReadShareGroupStateSummaryRequestData = { groupId, topics: [] };
  for (const [topicId, partitions] of initialized) {
    const meta = ctx.broker.storage.topicById(topicId);
    if (meta === undefined) continue;
    names.set(topicId, meta.name);
    request.topics.push({ topicId, partitions: partitions.map((partition) => ({ partition, leaderEpoch: 0 })) });
  }
  return readSummary(ctx, request, names);
}

/** The coordinator could not run the request (not loaded, shutting down): the group's error. */
class CoordinatorError extends Error {
  constructor(readonly errorCode: number) {
    super(`coordinator error ${errorCode}`);
  }
}

function failedGroup(groupId: string, err: unknown): DescribeShareGroupOffsetsResponseGroup {
  const errorCode = err instanceof CoordinatorError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
  return groupError(groupId, errorCode, kafkaErrorMessage(errorCode));
}

async function describeGroup(ctx: RequestContext, g: DescribeShareGroupOffsetsRequestGroup): Promise<DescribeShareGroupOffsetsResponseGroup> {
  if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId)) return groupError(g.groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
  if (g.topics === null) {
    try {
      const topics = await describeAll(ctx, g.groupId);
      return { ...groupError(g.groupId, ErrorCode.NONE, null), topics: topics.filter((t) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topicName)) };
    } catch (err) {
      return failedGroup(g.groupId, err);
    }
  }
  if (g.topics.length === 0) return groupError(g.groupId, ErrorCode.NONE, null);
  const allowed = g.topics.filter((t) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topicName));
  const refused = g.topics.filter((t) => !allowed.includes(t)).map((t): DescribeShareGroupOffsetsResponseTopic => ({
    topicName: t.topicName,
    topicId: ZERO_UUID,
    partitions: t.partitions.map((partitionIndex) => ({
      partitionIndex, startOffset: -1n, leaderEpoch: 0, lag: -1n,
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: kafkaErrorMessage(ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    })),
  }));
  try {
    const topics = await describeTopics(ctx, g.groupId, allowed);
    return { ...groupError(g.groupId, ErrorCode.NONE, null), topics: [...topics, ...refused] };
  } catch (err) {
    return failedGroup(g.groupId, err);
  }
}

export const describeShareGroupOffsetsHandler = defineHandler<DescribeShareGroupOffsetsRequestData, DescribeShareGroupOffsetsResponseData>({
  api: Api.DescribeShareGroupOffsets,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.DescribeShareGroupOffsets.request.highestVersion,
  async handle(ctx, request) {
    const groups = await Promise.all(request.groups.map((g) => describeGroup(ctx, g)));
    return { throttleTimeMs: 0, groups };
  },
});
