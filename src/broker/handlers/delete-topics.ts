/**
 * DeleteTopics: by name (v1-5) or by name or topic id (v6+). Data is removed with the
 * topic; clients waiting on its partitions are woken so they see it gone.
 *
 * Internal topics (`__consumer_offsets`) are not deleted: INVALID_TOPIC_EXCEPTION, worded as
 * Kafka refuses DeleteRecords on them. A deliberate difference: Kafka 4.1 deletes
 * `__consumer_offsets` (NONE), and its coordinator then drops every group and its committed
 * offsets (test/interop/broker-differential.test.ts, D10). Brook's coordinator would keep
 * them in memory and lose them at the next restart; neither is what anyone deleting a topic
 * by mistake wants.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteTopicsRequestData, DeleteTopicsResponseData, DeletableTopicResult } from '../../protocol/messages/delete-topics.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import { StorageError } from '../../storage/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const deleteTopicsHandler = defineHandler<DeleteTopicsRequestData, DeleteTopicsResponseData>({
  api: Api.DeleteTopics,
  authorization: authorizes({ TOPIC: ['DELETE', 'DESCRIBE'] }),
  // v0 was removed in Kafka 4 (KIP-896).
  minVersion: 1,
  maxVersion: Api.DeleteTopics.request.highestVersion,
  handle(ctx, request) {
    const { storage, log } = ctx.broker;
    const wanted = ctx.apiVersion >= 6
      ? (request.topics ?? []).map((t) => ({ name: t.name, topicId: t.topicId }))
      : (request.topicNames ?? []).map((name) => ({ name, topicId: ZERO_UUID }));
    const responses: DeletableTopicResult[] = wanted.map(({ name, topicId }) => {
      const byId = name === null;
      // Kafka (ControllerApis.deleteTopics): a name needs DELETE before it is even looked up;
      // an id that exists needs DESCRIBE (else its name stays hidden), then DELETE.
      const denied = (topicName: string | null): DeletableTopicResult =>
        ({ name: topicName, topicId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: errorInfo(ErrorCode.TOPIC_AUTHORIZATION_FAILED).message });
      if (!byId && !authorize(ctx, AclOperation.DELETE, ResourceType.TOPIC, name)) return denied(name);
      const topic = byId ? storage.topicById(topicId) : storage.topic(name);
      if (topic && byId) {
        if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name)) return denied(null);
        if (!authorize(ctx, AclOperation.DELETE, ResourceType.TOPIC, topic.name)) return denied(topic.name);
      }
      if (!topic) {
        // Kafka explains these with its error's default message.
        const errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        return { name, topicId, errorCode, errorMessage: errorInfo(errorCode).message };
      }
      if (topic.isInternal) {
        log.warn('refusing to delete an internal topic', { topic: topic.name, client: ctx.clientHost });
        return { name: topic.name, topicId: topic.topicId, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: `Cannot delete internal topic ${topic.name}` };
      }
      try {
        storage.deleteTopic(topic.name);
        log.info('deleted topic', { topic: topic.name });
        return { name: topic.name, topicId: topic.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        return { name: topic.name, topicId: topic.topicId, errorCode: err.errorCode, errorMessage: err.message };
      }
    });
    if (responses.some((r) => r.errorCode === ErrorCode.NONE)) ctx.broker.groups.topicsChanged();
    // Their share-group state goes too (Kafka's share coordinator, on the topics' deletion).
    ctx.broker.shareState.topicsDeleted(new Set(responses.filter((r) => r.errorCode === ErrorCode.NONE).flatMap((r) => (r.topicId === undefined ? [] : [r.topicId]))));
    return { throttleTimeMs: 0, responses };
  },
});
