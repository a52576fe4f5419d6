/**
 * EndTxn: commit or abort. The answer comes once the PrepareCommit/PrepareAbort record is
 * durable; the markers and the Complete record follow (a producer's next InitProducerId or
 * AddPartitionsToTxn meanwhile gets CONCURRENT_TRANSACTIONS, as in Kafka). v0-4 is
 * transaction version 1; v5 is version 2 (KafkaApis: a request above v4 is TV_2): the epoch
 * bumps at every end and the answer carries the producer id and epoch to go on with. Needs
 * WRITE on the transactional id (KafkaApis).
 */
import { Api } from '../../protocol/messages/index.js';
import type { EndTxnRequestData, EndTxnResponseData } from '../../protocol/messages/end-txn.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { clientError } from './transaction-errors.js';
import { TRANSACTION_VERSION_2 } from '../../coordinator/transactions/state.js';

export const endTxnHandler = defineHandler<EndTxnRequestData, EndTxnResponseData>({
  api: Api.EndTxn,
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'] }),
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, request) {
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    }
    const input = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
    const version = ctx.apiVersion >= 5 ? TRANSACTION_VERSION_2 : 0;
    const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.endTxn(id, input, request.committed, nowMs, version));
    return { throttleTimeMs: 0, errorCode: clientError(reply.errorCode, ctx.apiVersion, 2), producerId: reply.producerId, producerEpoch: reply.producerEpoch };
  },
});
