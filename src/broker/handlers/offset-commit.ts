/**
 * OffsetCommit. As Kafka's KafkaApis: partitions of unknown topics (or beyond a topic's
 * partition count) are answered UNKNOWN_TOPIC_OR_PARTITION by the broker; the rest go to
 * the group coordinator and the two answers are merged (the broker's first, then the
 * coordinator's, partitions of one topic together, as OffsetCommitResponse.Builder does).
 * When nothing is left for the coordinator, the broker answers alone. v0-1 are not served,
 * as in Kafka 4 (KIP-896), though the coordinator could answer them.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  OffsetCommitRequestData,
  OffsetCommitRequestTopic,
  OffsetCommitResponseData,
  OffsetCommitResponseTopic,
} from '../../protocol/messages/offset-commit.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const offsetCommitHandler = defineHandler<OffsetCommitRequestData, OffsetCommitResponseData>({
  api: Api.OffsetCommit,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 2,
  maxVersion: Api.OffsetCommit.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    const everyPartition = (errorCode: number): OffsetCommitResponseData => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return everyPartition(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const rejected = new TopicMerger();
    const valid: OffsetCommitRequestTopic[] = [];
    for (const t of request.topics) {
      if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) {
        rejected.add(t.name, t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })));
        continue;
      }
      const partitions = t.partitions.filter((p) => {
        if (storage.partition(t.name, p.partitionIndex) !== undefined) return true;
        rejected.add(t.name, [{ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }]);
        return false;
      });
      if (partitions.length > 0) valid.push({ ...t, partitions });
    }
    if (valid.length === 0) return { throttleTimeMs: 0, topics: rejected.topics };
    const forCoordinator: OffsetCommitRequestData = { ...request, topics: valid };
    return ctx.broker.groups
      .submit<OffsetCommitResponseData>(ctx, (c, cctx) => c.offsetCommit(cctx, forCoordinator), everyPartition)
      .then((answer) => {
        for (const t of answer.topics) rejected.add(t.name, t.partitions);
        return { ...answer, topics: rejected.topics };
      });
  },
});

/** Topics in order of first appearance; partitions of a topic named again join its entry. */
class TopicMerger {
  readonly topics: OffsetCommitResponseTopic[] = [];
  private readonly byName = new Map<string, OffsetCommitResponseTopic>();

  add(name: string, partitions: OffsetCommitResponseTopic['partitions']): void {
    let topic = this.byName.get(name);
    if (topic === undefined) {
      topic = { name, partitions: [] };
      this.byName.set(name, topic);
      this.topics.push(topic);
    }
    topic.partitions.push(...partitions);
  }
}
