/**
 * OffsetFetch: one group (v1-7) or several (v8+). Unknown topics and partitions simply have
 * no offset (-1), as in Kafka. v0 is not served, as in Kafka 4 (KIP-896). v10 names topics
 * by id (KIP-848): as Kafka's KafkaApis, ids are resolved to names first (an unknown id:
 * UNKNOWN_TOPIC_ID in each partition), the coordinator leaves out an offset committed under
 * another id of the same name, and "all topics" answers with each topic's id and leaves out
 * topics that no longer exist.
 *
 * With an authorizer, as Kafka's KafkaApis: a group the client may not DESCRIBE answers
 * GROUP_AUTHORIZATION_FAILED; named topics it may not DESCRIBE answer TOPIC_AUTHORIZATION_FAILED
 * in each partition; "all topics" leaves them out. The broker's own answers follow the
 * coordinator's topics.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  OffsetFetchRequestData, OffsetFetchRequestGroup, OffsetFetchRequestTopics, OffsetFetchResponseData, OffsetFetchResponseGroup, OffsetFetchResponseTopics,
} from '../../protocol/messages/offset-fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import type { RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { topicIdByName, topicNameById } from '../topic-ids.js';

/** OffsetFetch v8 asks for several groups; v10 names topics by id. */
const GROUPS_VERSION = 8;
const TOPIC_IDS_VERSION = 10;

export const offsetFetchHandler = defineHandler<OffsetFetchRequestData, OffsetFetchResponseData>({
  api: Api.OffsetFetch,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: 1,
  maxVersion: Api.OffsetFetch.request.highestVersion,
  handle(ctx, request) {
    if (ctx.apiVersion >= GROUPS_VERSION) return fetchGroups(ctx, request);
    if (ctx.broker.acls === null) return fetchOffsets(ctx, request);
    return authorizedGroup(ctx, request);
  },
});

function fetchOffsets(ctx: RequestContext, request: OffsetFetchRequestData): Promise<OffsetFetchResponseData> {
  return ctx.broker.groups.submit(ctx, (c, cctx) => c.offsetFetch(cctx, request), (code) => offsetFetchError(ctx.apiVersion, request, code));
}

const describable = (ctx: RequestContext, topic: string): boolean => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);

/** Each partition of a topic the broker answers itself (KafkaApis' buildErrorResponse). */
function refusedTopic(t: OffsetFetchRequestTopics, errorCode: number): OffsetFetchResponseTopics {
  return {
    name: t.name,
    topicId: t.topicId,
    partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode })),
  };
}

/** What the broker makes of one group of a v8+ request before the coordinator sees it. */
interface GroupPlan {
  readonly request: OffsetFetchRequestGroup;
  /** null: the client may not DESCRIBE the group. */
  readonly forCoordinator: OffsetFetchRequestGroup | null;
  /** Named topics the broker answers itself, after the coordinator's. */
  readonly refused: OffsetFetchResponseTopics[];
}

function planGroup(ctx: RequestContext, g: OffsetFetchRequestGroup): GroupPlan {
  if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId)) return { request: g, forCoordinator: null, refused: [] };
  if (g.topics === null) return { request: g, forCoordinator: g, refused: [] };
  const useTopicIds = ctx.apiVersion >= TOPIC_IDS_VERSION;
  const refused: OffsetFetchResponseTopics[] = [];
  const topics: OffsetFetchRequestTopics[] = [];
  for (const t of g.topics) {
    const named = useTopicIds ? { ...t, name: topicNameById(ctx.broker.storage, t.topicId) } : t;
    const name = named.name ?? '';
    if (useTopicIds && name === '') refused.push(refusedTopic(named, ErrorCode.UNKNOWN_TOPIC_ID));
    else if (!describable(ctx, name)) refused.push(refusedTopic(named, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
    else topics.push(named);
  }
  return { request: g, forCoordinator: { ...g, topics }, refused };
}

/** One group's answer as the client gets it (KafkaApis' fetchOffsetsForGroup / fetchAllOffsetsForGroup). */
function finishGroup(ctx: RequestContext, plan: GroupPlan, found: OffsetFetchResponseGroup | undefined): OffsetFetchResponseGroup {
  const groupId = plan.request.groupId;
  if (plan.forCoordinator === null) return { groupId, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  if (found === undefined) return { groupId, topics: [], errorCode: ErrorCode.UNKNOWN_SERVER_ERROR };
  if (found.errorCode !== ErrorCode.NONE) return found;
  if (plan.request.topics !== null) return { ...found, topics: [...found.topics, ...plan.refused] };
  const topics: OffsetFetchResponseTopics[] = [];
  for (const t of found.topics) {
    const name = t.name ?? '';
    if (!describable(ctx, name)) continue;
    if (ctx.apiVersion < TOPIC_IDS_VERSION) {
      topics.push(t);
      continue;
    }
    // The coordinator keeps offsets by name: a topic's id is the broker's to give, and a
    // topic that no longer exists has none, so v10 cannot name it.
    const topicId = t.topicId === undefined || t.topicId === ZERO_UUID ? topicIdByName(ctx.broker.storage, name) : t.topicId;
    if (topicId !== ZERO_UUID) topics.push({ ...t, topicId });
  }
  return { ...found, topics };
}

async function fetchGroups(ctx: RequestContext, request: OffsetFetchRequestData): Promise<OffsetFetchResponseData> {
  const plans = (request.groups ?? []).map((g) => planGroup(ctx, g));
  const forCoordinator = plans.flatMap((p) => (p.forCoordinator === null ? [] : [p.forCoordinator]));
  const answer = forCoordinator.length === 0 ? null : await fetchOffsets(ctx, { ...request, groups: forCoordinator });
  const byId = new Map((answer?.groups ?? []).map((g) => [g.groupId, g]));
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics: [], groups: plans.map((p) => finishGroup(ctx, p, byId.get(p.request.groupId))) };
}

async function authorizedGroup(ctx: RequestContext, request: OffsetFetchRequestData): Promise<OffsetFetchResponseData> {
  if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, request.groupId ?? '')) return offsetFetchError(ctx.apiVersion, request, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const topics = request.topics ?? null;
  const answer = await fetchOffsets(ctx, topics === null ? request : { ...request, topics: topics.filter((t) => describable(ctx, t.name)) });
  if ((answer.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return answer;
  if (topics === null) return { ...answer, topics: (answer.topics ?? []).filter((t) => describable(ctx, t.name)) };
  const refused = topics.filter((t) => !describable(ctx, t.name)).map((t) => ({ ...refusedTopic(t, ErrorCode.TOPIC_AUTHORIZATION_FAILED), name: t.name }));
  return { ...answer, topics: [...(answer.topics ?? []), ...refused] };
}

/** The whole request failed: per group (v8+), at the top (v2-7) or in every partition (v1). */
export function offsetFetchError(version: number, request: OffsetFetchRequestData, errorCode: number): OffsetFetchResponseData {
  if (version >= GROUPS_VERSION) {
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
