/**
 * InitProducerId for idempotent producers: every call gets a producer id never used
 * before (ids are reserved in persisted blocks), epoch 0 — what Kafka does for a producer
 * without a transactional id. Transactions are not supported (no transaction coordinator
 * exists): a transactional id is refused with INVALID_REQUEST and a log line.
 */
import { Api } from '../../protocol/messages/index.js';
import type { InitProducerIdRequestData, InitProducerIdResponseData } from '../../protocol/messages/init-producer-id.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import { AclOperation, ResourceType, authorize, authorizeByResourceType, authorizeCluster } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const initProducerIdHandler = defineHandler<InitProducerIdRequestData, InitProducerIdResponseData>({
  api: Api.InitProducerId,
  minVersion: 0,
  maxVersion: Api.InitProducerId.request.highestVersion,
  handle(ctx, request) {
    // Kafka: WRITE on the transactional id; an idempotent producer needs IDEMPOTENT_WRITE on
    // the cluster or WRITE on some topic (KIP-679).
    const refused = (errorCode: number): InitProducerIdResponseData => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 });
    if (request.transactionalId !== null) {
      if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) return refused(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    } else if (!authorizeCluster(ctx, AclOperation.IDEMPOTENT_WRITE) && !authorizeByResourceType(ctx, AclOperation.WRITE, ResourceType.TOPIC)) {
      return refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    if (request.transactionalId !== null) {
      ctx.broker.log.info('transactional producer refused: transactions are not supported', { transactionalId: request.transactionalId });
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 };
    }
    try {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: ctx.broker.storage.allocateProducerId(), producerEpoch: 0 };
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      // The next id block could not be persisted (disk full): as Kafka's producer id manager
      // answers while it has no block, a retriable "not yet".
      ctx.broker.log.warn('no producer id: the id block could not be persisted', { err });
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, producerId: -1n, producerEpoch: -1 };
    }
  },
});
