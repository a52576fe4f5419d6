/** DescribeTransactions (`kafka-transactions --describe`): each id's state, producer, timeout and partitions. */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeTransactionsRequestData, DescribeTransactionsResponseData } from '../../protocol/messages/describe-transactions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const describeTransactionsHandler = defineHandler<DescribeTransactionsRequestData, DescribeTransactionsResponseData>({
  api: Api.DescribeTransactions,
  minVersion: 0,
  maxVersion: Api.DescribeTransactions.request.highestVersion,
  handle(ctx, request) {
    const { coordinator } = ctx.broker.transactions;
    const transactionStates = request.transactionalIds.map((transactionalId) => {
      const empty = { transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] };
      if (coordinator.loadInProgress) return { ...empty, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS };
      const d = coordinator.describe(transactionalId);
      if (d === null) return { ...empty, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
      const byTopic = new Map<string, number[]>();
      for (const { topic, partition } of d.partitions) {
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
