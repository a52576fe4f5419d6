/**
 * FindCoordinator: this broker coordinates every group and transactional id (v0-3 one key,
 * v4+ a batch). A group lookup creates `__consumer_offsets` when missing, as Kafka does at
 * the first group FindCoordinator, and a transactional id lookup `__transaction_state`
 * (Brook synchronously, so the answer is never COORDINATOR_NOT_AVAILABLE while it loads).
 */
import { Api } from '../../protocol/messages/index.js';
import type { FindCoordinatorRequestData, FindCoordinatorResponseData } from '../../protocol/messages/find-coordinator.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;

export const findCoordinatorHandler = defineHandler<FindCoordinatorRequestData, FindCoordinatorResponseData>({
  api: Api.FindCoordinator,
  minVersion: 0,
  maxVersion: Api.FindCoordinator.request.highestVersion,
  handle(ctx, request) {
    const { broker } = ctx;
    const errorResponse = (errorCode: number): FindCoordinatorResponseData => findCoordinatorError(ctx.apiVersion, request, errorCode);
    const keyType = ctx.apiVersion >= 1 ? (request.keyType ?? GROUP_KEY_TYPE) : GROUP_KEY_TYPE;
    if (keyType === GROUP_KEY_TYPE) {
      try {
        broker.groups.ensureTopic();
      } catch (err) {
        broker.log.error('cannot create the group coordinator topic', { err });
        return errorResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
    } else if (keyType === TRANSACTION_KEY_TYPE) {
      try {
        broker.transactions.ensureTopic();
      } catch (err) {
        broker.log.error('cannot create the transaction coordinator topic', { err });
        return errorResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
    }
    const node = { nodeId: broker.config.nodeId, host: broker.advertisedHost, port: broker.advertisedPort };
    return broker.groups.submit(ctx, (c, cctx) => c.findCoordinator(cctx, request, node), errorResponse);
  },
});

function findCoordinatorError(version: number, request: FindCoordinatorRequestData, errorCode: number): FindCoordinatorResponseData {
  const errorMessage = errorInfo(errorCode).message;
  if (version >= 4) {
    return {
      throttleTimeMs: 0,
      coordinators: (request.coordinatorKeys ?? []).map((key) => ({ key, nodeId: -1, host: '', port: -1, errorCode, errorMessage })),
    };
  }
  return { throttleTimeMs: 0, errorCode, errorMessage, nodeId: -1, host: '', port: -1, coordinators: [] };
}
