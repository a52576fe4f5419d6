/**
 * OffsetDelete. As Kafka's KafkaApis: partitions of unknown topics are answered
 * UNKNOWN_TOPIC_OR_PARTITION by the broker, the rest go to the group coordinator (always
 * called, for the group-level checks). A group-level error replaces the whole answer, as
 * OffsetDeleteResponse.Builder.merge does; otherwise the broker's partitions come first.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  OffsetDeleteRequestData,
  OffsetDeleteRequestTopic,
  OffsetDeleteResponseData,
  OffsetDeleteResponseTopic,
} from '../../protocol/messages/offset-delete.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const offsetDeleteHandler = defineHandler<OffsetDeleteRequestData, OffsetDeleteResponseData>({
  api: Api.OffsetDelete,
  authorization: authorizes({ GROUP: ['DELETE'], TOPIC: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.OffsetDelete.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    if (!authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, request.groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, throttleTimeMs: 0, topics: [] };
    const topics: OffsetDeleteResponseTopic[] = [];
    const byName = new Map<string, OffsetDeleteResponseTopic>();
    const add = (name: string, partitions: OffsetDeleteResponseTopic['partitions']): void => {
      let topic = byName.get(name);
      if (topic === undefined) {
        topic = { name, partitions: [] };
        byName.set(name, topic);
        topics.push(topic);
      }
      topic.partitions.push(...partitions);
    };
    const valid: OffsetDeleteRequestTopic[] = [];
    for (const t of request.topics) {
      if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) {
        add(t.name, t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })));
        continue;
      }
      const partitions = t.partitions.filter((p) => {
        if (storage.partition(t.name, p.partitionIndex) !== undefined) return true;
        add(t.name, [{ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }]);
        return false;
      });
      if (partitions.length > 0) valid.push({ ...t, partitions });
    }
    const forCoordinator: OffsetDeleteRequestData = { ...request, topics: valid };
    return ctx.broker.groups
      .submit<OffsetDeleteResponseData>(
        ctx,
        (c, cctx) => c.offsetDelete(cctx, forCoordinator),
        (errorCode) => ({ errorCode, throttleTimeMs: 0, topics: [] }),
      )
      .then((answer) => {
        if (answer.errorCode !== ErrorCode.NONE) return answer;
        for (const t of answer.topics) add(t.name, t.partitions);
        return { ...answer, topics };
      });
  },
});
