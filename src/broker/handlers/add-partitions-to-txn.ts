/**
 * AddPartitionsToTxn, the producer's path (v0-3): the partitions join the transaction
 * (Ongoing) once the coordinator's record is durable. As KafkaApis, an unknown partition
 * fails the whole request: it gets UNKNOWN_TOPIC_OR_PARTITION and the others
 * OPERATION_NOT_ATTEMPTED. v4+ (brokers verifying a transaction, KIP-890) is not served:
 * a single node verifies nothing over the network.
 *
 * Authorization as KafkaApis: WRITE on the transactional id, else
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition; then WRITE on each topic,
 * internal topics never writable here (their partitions join through AddOffsetsToTxn), a
 * refused topic's partitions TOPIC_AUTHORIZATION_FAILED and, the request failing whole, the
 * others UNKNOWN_TOPIC_OR_PARTITION or OPERATION_NOT_ATTEMPTED.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  AddPartitionsToTxnRequestData, AddPartitionsToTxnResponseData, AddPartitionsToTxnTopic, AddPartitionsToTxnTopicResult,
} from '../../protocol/messages/add-partitions-to-txn.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, authorizes } from '../authorization.js';
import { INTERNAL_TOPIC_NAMES } from './metadata.js';
import type { BrokerContext } from '../broker-context.js';
import { clientError } from './transaction-errors.js';

function results(topics: readonly AddPartitionsToTxnTopic[], errorFor: (topic: string, partition: number) => number): AddPartitionsToTxnTopicResult[] {
  return topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: errorFor(t.name, p) })),
  }));
}

function exists(broker: BrokerContext, topic: string, partition: number): boolean {
  const meta = broker.storage.topic(topic);
  return meta !== undefined && partition >= 0 && partition < meta.partitions;
}

export const addPartitionsToTxnHandler = defineHandler<AddPartitionsToTxnRequestData, AddPartitionsToTxnResponseData>({
  api: Api.AddPartitionsToTxn,
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'], TOPIC: ['WRITE'] }),
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, request) {
    const topics = request.v3AndBelowTopics ?? [];
    const transactionalId = request.v3AndBelowTransactionalId ?? '';
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
      return { throttleTimeMs: 0, resultsByTopicV3AndBelow: results(topics, () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) };
    }
    const writable = filterAuthorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, topics.map((t) => t.name).filter((name) => !INTERNAL_TOPIC_NAMES.has(name)));
    const refused = topics.some((t) => !writable.has(t.name) || t.partitions.some((p) => !exists(ctx.broker, t.name, p)));
    if (refused) {
      const errorFor = (topic: string, p: number): number => {
        if (!writable.has(topic)) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        return exists(ctx.broker, topic, p) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      };
      return { throttleTimeMs: 0, resultsByTopicV3AndBelow: results(topics, errorFor) };
    }
    const input = {
      transactionalId,
      producerId: request.v3AndBelowProducerId ?? -1n,
      producerEpoch: request.v3AndBelowProducerEpoch ?? -1,
    };
    const partitions = topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
    const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.addPartitions(id, input, partitions, nowMs));
    const errorCode = clientError(reply.errorCode, ctx.apiVersion, 2);
    return { throttleTimeMs: 0, resultsByTopicV3AndBelow: results(topics, () => errorCode) };
  },
});
