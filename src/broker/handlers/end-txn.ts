/**
 * EndTxn (transaction version 1, v0-4): commit or abort. The answer comes once the
 * PrepareCommit/PrepareAbort record is durable; the markers and the Complete record follow
 * (a producer's next InitProducerId or AddPartitionsToTxn meanwhile gets
 * CONCURRENT_TRANSACTIONS, as in Kafka). v5 (transaction version 2: the epoch bumps at each
 * end) is not served: it needs Produce v12, which Brook's schemas lack. Needs WRITE on the
 * transactional id (KafkaApis).
 */
import { Api } from '../../protocol/messages/index.js';
import type { EndTxnRequestData, EndTxnResponseData } from '../../protocol/messages/end-txn.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize } from '../authorization.js';
import { clientError } from './transaction-errors.js';

export const endTxnHandler = defineHandler<EndTxnRequestData, EndTxnResponseData>({
  api: Api.EndTxn,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, request) {
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    }
    const input = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
    const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.endTxn(id, input, request.committed, nowMs));
    return { throttleTimeMs: 0, errorCode: clientError(reply.errorCode, ctx.apiVersion, 2) };
  },
});
