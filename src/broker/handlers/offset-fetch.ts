/**
 * OffsetFetch: one group (v0-7) or several (v8+). Unknown topics and partitions simply have
 * no offset (-1), as in Kafka. v0 is not served, as in Kafka 4 (KIP-896), though the
 * coordinator could answer it.
 *
 * With an authorizer, as Kafka's KafkaApis: a group the client may not DESCRIBE answers
 * GROUP_AUTHORIZATION_FAILED; named topics it may not DESCRIBE answer TOPIC_AUTHORIZATION_FAILED
 * in each partition; "all topics" leaves them out.
 */
import { Api } from '../../protocol/messages/index.js';
import type { OffsetFetchRequestData, OffsetFetchRequestTopics, OffsetFetchResponseData, OffsetFetchResponseGroup, OffsetFetchResponseTopics } from '../../protocol/messages/offset-fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const offsetFetchHandler = defineHandler<OffsetFetchRequestData, OffsetFetchResponseData>({
  api: Api.OffsetFetch,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: 1,
  maxVersion: Api.OffsetFetch.request.highestVersion,
  handle(ctx, request) {
    if (ctx.broker.acls === null) return fetchOffsets(ctx, request);
    return ctx.apiVersion >= 8 ? authorizedGroups(ctx, request) : authorizedGroup(ctx, request);
  },
});

function fetchOffsets(ctx: RequestContext, request: OffsetFetchRequestData): Promise<OffsetFetchResponseData> {
  return ctx.broker.groups.submit(ctx, (c, cctx) => c.offsetFetch(cctx, request), (code) => offsetFetchError(ctx.apiVersion, request, code));
}

const describable = (ctx: RequestContext, topic: string): boolean => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);

/** The topics the client may not DESCRIBE, each partition refused. */
function refusedTopics(ctx: RequestContext, topics: readonly OffsetFetchRequestTopics[]): OffsetFetchResponseTopics[] {
  return topics.filter((t) => !describable(ctx, t.name)).map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })),
  }));
}

async function authorizedGroups(ctx: RequestContext, request: OffsetFetchRequestData): Promise<OffsetFetchResponseData> {
  const groups = request.groups ?? [];
  const allowed = groups.filter((g) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId));
  const forCoordinator = allowed.map((g) => (g.topics === null ? g : { ...g, topics: g.topics.filter((t) => describable(ctx, t.name)) }));
  const answer = allowed.length === 0 ? { throttleTimeMs: 0, errorCode: 0, topics: [], groups: [] } : await fetchOffsets(ctx, { ...request, groups: forCoordinator });
  const byId = new Map((answer.groups ?? []).map((g) => [g.groupId, g]));
  return {
    ...answer,
    groups: groups.map((g): OffsetFetchResponseGroup => {
      const found = byId.get(g.groupId);
      if (found === undefined || !allowed.includes(g)) return { groupId: g.groupId, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
      if (found.errorCode !== ErrorCode.NONE) return found;
      if (g.topics === null) return { ...found, topics: found.topics.filter((t) => describable(ctx, t.name)) };
      return { ...found, topics: [...found.topics, ...refusedTopics(ctx, g.topics)] };
    }),
  };
}

async function authorizedGroup(ctx: RequestContext, request: OffsetFetchRequestData): Promise<OffsetFetchResponseData> {
  if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, request.groupId ?? '')) return offsetFetchError(ctx.apiVersion, request, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const topics = request.topics ?? null;
  const answer = await fetchOffsets(ctx, topics === null ? request : { ...request, topics: topics.filter((t) => describable(ctx, t.name)) });
  if ((answer.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return answer;
  if (topics === null) return { ...answer, topics: (answer.topics ?? []).filter((t) => describable(ctx, t.name)) };
  return { ...answer, topics: [...(answer.topics ?? []), ...refusedTopics(ctx, topics)] };
}

/** The whole request failed: per group (v8+), at the top (v2-7) or in every partition (v0-1). */
function offsetFetchError(version: number, request: OffsetFetchRequestData, errorCode: number): OffsetFetchResponseData {
  if (version >= 8) {
    return { throttleTimeMs: 0, errorCode: 0, topics: [], groups: (request.groups ?? []).map((g) => ({ groupId: g.groupId, topics: [], errorCode })) };
  }
  if (version >= 2) return { throttleTimeMs: 0, errorCode, topics: [], groups: [] };
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    groups: [],
    topics: (request.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode })),
    })),
  };
}
