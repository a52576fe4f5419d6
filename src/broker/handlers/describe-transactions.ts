/**
 * DescribeTransactions (`kafka-transactions --describe`): each id's state, producer, timeout
 * and partitions. As KafkaApis: an id the principal may not DESCRIBE is answered
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED, and only the topics it may DESCRIBE are listed; an
 * empty id is INVALID_REQUEST, an unknown one TRANSACTIONAL_ID_NOT_FOUND.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeTransactionsRequestData, DescribeTransactionsResponseData } from '../../protocol/messages/describe-transactions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const describeTransactionsHandler = defineHandler<DescribeTransactionsRequestData, DescribeTransactionsResponseData>({
  api: Api.DescribeTransactions,
  authorization: authorizes({ TRANSACTIONAL_ID: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.DescribeTransactions.request.highestVersion,
  handle(ctx, request) {
    const { coordinator } = ctx.broker.transactions;
    const transactionStates = request.transactionalIds.map((transactionalId) => {
      // Kafka's answer for an id it does not describe: the schema's defaults besides the error.
      const empty = { transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: 0n, producerId: 0n, producerEpoch: 0, topics: [] };
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactionalId)) return { ...empty, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
      // TransactionCoordinator.handleDescribeTransactions: an empty id is no id at all.
      if (transactionalId === '') return { ...empty, errorCode: ErrorCode.INVALID_REQUEST };
      if (coordinator.loadInProgress) return { ...empty, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS };
      const d = coordinator.describe(transactionalId);
      if (d === null) return { ...empty, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
      const byTopic = new Map<string, number[]>();
      for (const { topic, partition } of d.partitions) {
        if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) continue;
        const list = byTopic.get(topic);
        if (list === undefined) byTopic.set(topic, [partition]);
        else list.push(partition);
      }
      return {
        errorCode: ErrorCode.NONE,
        transactionalId,
        transactionState: d.state,
        transactionTimeoutMs: d.transactionTimeoutMs,
        transactionStartTimeMs: BigInt(d.transactionStartTimeMs),
        producerId: d.producerId,
        producerEpoch: d.producerEpoch,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
});
