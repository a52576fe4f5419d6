/**
 * OffsetCommit. As Kafka's KafkaApis: v10+ names topics by id (KIP-848), resolved to names
 * first (an unknown id: UNKNOWN_TOPIC_ID for the topic); before v10 each named topic's id is
 * looked up instead, so that the coordinator checks a consumer-group member's older epoch
 * against the epochs its partitions were assigned at (KIP-1251) at every version, and keeps
 * the id with the offset. Partitions of unknown topics (or beyond a topic's partition count)
 * are answered UNKNOWN_TOPIC_OR_PARTITION by the broker;
 * the rest go to the group coordinator and the two answers are merged (the broker's first,
 * then the coordinator's, partitions of one topic together, as OffsetCommitResponse.Builder
 * does). When nothing is left for the coordinator, the broker answers alone. v0-1 are not
 * served, as in Kafka 4 (KIP-896).
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  OffsetCommitRequestData,
  OffsetCommitRequestTopic,
  OffsetCommitResponseData,
  OffsetCommitResponsePartition,
} from '../../protocol/messages/offset-commit.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import { TopicMerger, topicIdByName, topicNameById } from '../topic-ids.js';

/** OffsetCommit v10 names topics by id. */
const TOPIC_IDS_VERSION = 10;

export const offsetCommitHandler = defineHandler<OffsetCommitRequestData, OffsetCommitResponseData>({
  api: Api.OffsetCommit,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 2,
  maxVersion: Api.OffsetCommit.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    const everyPartition = (errorCode: number): OffsetCommitResponseData => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return everyPartition(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const useTopicIds = ctx.apiVersion >= TOPIC_IDS_VERSION;
    const rejected = new TopicMerger<OffsetCommitResponsePartition>(useTopicIds);
    const refuse = (t: OffsetCommitRequestTopic, name: string, partitions: OffsetCommitRequestTopic['partitions'], errorCode: number): void =>
      rejected.add(t.topicId, name, partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })));
    const valid: OffsetCommitRequestTopic[] = [];
    for (const t of request.topics) {
      const name = useTopicIds ? topicNameById(storage, t.topicId) : (t.name ?? '');
      if (useTopicIds && name === '') refuse(t, name, t.partitions, ErrorCode.UNKNOWN_TOPIC_ID);
      else if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, name)) refuse(t, name, t.partitions, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else {
        const topicId = useTopicIds ? t.topicId : topicIdByName(storage, name);
        if (topicId === undefined || topicId === ZERO_UUID) refuse(t, name, t.partitions, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        else {
          const partitions = t.partitions.filter((p) => {
            if (storage.partition(name, p.partitionIndex) !== undefined) return true;
            refuse(t, name, [p], ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            return false;
          });
          if (partitions.length > 0) valid.push({ ...t, name, topicId, partitions });
        }
      }
    }
    if (valid.length === 0) return { throttleTimeMs: 0, topics: rejected.topics };
    const forCoordinator: OffsetCommitRequestData = { ...request, topics: valid };
    return ctx.broker.groups
      .submit<OffsetCommitResponseData>(ctx, (c, cctx) => c.offsetCommit(cctx, forCoordinator), (errorCode) => ({
        throttleTimeMs: 0,
        topics: valid.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
      }))
      .then((answer) => {
        for (const t of answer.topics) rejected.add(t.topicId, t.name, t.partitions);
        return { ...answer, topics: rejected.topics };
      });
  },
});
