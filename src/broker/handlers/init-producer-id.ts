/**
 * InitProducerId. Without a transactional id (an idempotent producer) every call gets a
 * producer id never used before (ids are reserved in persisted blocks), epoch 0, as Kafka.
 * With one, the transaction coordinator answers (allocation, epoch bump, fencing, KIP-360
 * recovery: src/coordinator/transactions/).
 *
 * v6 (KIP-939, two-phase commit) is not served: Kafka 4.4 marks it unstable
 * (InitProducerIdRequest's latestVersionUnstable) and, with unstable.api.versions.enable off
 * as by default, neither advertises nor serves it (it closes the connection, as Brook does).
 */
import { Api } from '../../protocol/messages/index.js';
import type { InitProducerIdRequestData, InitProducerIdResponseData } from '../../protocol/messages/init-producer-id.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizeByResourceType, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { allocateProducerId } from '../producer-ids.js';
import { clientError } from './transaction-errors.js';

export const initProducerIdHandler = defineHandler<InitProducerIdRequestData, InitProducerIdResponseData>({
  api: Api.InitProducerId,
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'], CLUSTER: ['IDEMPOTENT_WRITE'], TOPIC: ['WRITE'] }),
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, request) {
    const { transactionalId } = request;
    // Kafka: WRITE on the transactional id; an idempotent producer needs IDEMPOTENT_WRITE on
    // the cluster or WRITE on some topic (KIP-679).
    const refused = (errorCode: number): InitProducerIdResponseData => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 });
    if (transactionalId !== null) {
      if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) return refused(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    } else if (!authorizeCluster(ctx, AclOperation.IDEMPOTENT_WRITE) && !authorizeByResourceType(ctx, AclOperation.WRITE, ResourceType.TOPIC)) {
      return refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    if (transactionalId !== null) {
      const input = {
        transactionalId,
        transactionTimeoutMs: request.transactionTimeoutMs,
        producerId: ctx.apiVersion >= 3 ? (request.producerId ?? -1n) : -1n,
        producerEpoch: ctx.apiVersion >= 3 ? (request.producerEpoch ?? -1) : -1,
      };
      const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.initProducerId(id, input, nowMs));
      return {
        throttleTimeMs: 0,
        // PRODUCER_FENCED came with v4 (KIP-588); older clients know INVALID_PRODUCER_EPOCH.
        errorCode: clientError(reply.errorCode, ctx.apiVersion, 4),
        producerId: reply.producerId,
        producerEpoch: reply.producerEpoch,
      };
    }
    const producerId = allocateProducerId(ctx.broker.storage, ctx.broker.log);
    if (producerId === null) return refused(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
  },
});
