/**
 * FindCoordinator: this broker coordinates every group, transactional id and share-partition
 * (v0-3 one key, v4+ a batch). A group lookup creates `__consumer_offsets` when missing, as
 * Kafka does at the first group FindCoordinator, a transactional id lookup
 * `__transaction_state` and a SHARE lookup `__share_group_state` (Brook synchronously, so
 * the answer is never COORDINATOR_NOT_AVAILABLE while it loads). SHARE keys are asked by
 * brokers: CLUSTER_ACTION on the cluster, else the whole request is refused, as KafkaApis.
 */
import { Api } from '../../protocol/messages/index.js';
import type { FindCoordinatorRequestData, FindCoordinatorResponseData } from '../../protocol/messages/find-coordinator.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizeCluster, authorizes } from '../authorization.js';
import { SHARE_KEY_TYPE } from '../../coordinator/find-coordinator.js';

const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;

export const findCoordinatorHandler = defineHandler<FindCoordinatorRequestData, FindCoordinatorResponseData>({
  api: Api.FindCoordinator,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TRANSACTIONAL_ID: ['DESCRIBE'], CLUSTER: ['CLUSTER_ACTION'] }),
  minVersion: 0,
  maxVersion: Api.FindCoordinator.request.highestVersion,
  handle: findCoordinator,
});

function findCoordinator(ctx: RequestContext, request: FindCoordinatorRequestData): FindCoordinatorResponseData | Promise<FindCoordinatorResponseData> {
  const { broker } = ctx;
  const errorResponse = (errorCode: number): FindCoordinatorResponseData => findCoordinatorError(ctx.apiVersion, request, errorCode);
  const keyType = ctx.apiVersion >= 1 ? (request.keyType ?? GROUP_KEY_TYPE) : GROUP_KEY_TYPE;
  // Kafka: DESCRIBE on the group or transactional id, per key.
  const denied = deniedKeys(ctx, keyType, ctx.apiVersion >= 4 ? (request.coordinatorKeys ?? []) : [request.key ?? '']);
  if (denied !== null) {
    const deniedError = keyType === GROUP_KEY_TYPE ? ErrorCode.GROUP_AUTHORIZATION_FAILED : ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    if (ctx.apiVersion < 4) return errorResponse(deniedError);
    const allowed = request.coordinatorKeys!.filter((k) => !denied.has(k));
    const refused = findCoordinatorError(ctx.apiVersion, { ...request, coordinatorKeys: [...denied] }, deniedError);
    if (allowed.length === 0) return refused;
    // In the request's order, as Kafka answers key by key.
    return Promise.resolve(findCoordinator(ctx, { ...request, coordinatorKeys: allowed })).then((answer) => {
      const byKey = new Map([...(answer.coordinators ?? []), ...refused.coordinators!].map((c) => [c.key, c]));
      return { ...answer, coordinators: request.coordinatorKeys!.map((k) => byKey.get(k)!) };
    });
  }
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
  } else if (keyType === SHARE_KEY_TYPE && ctx.apiVersion >= 6) {
    // Kafka asks once a key is past the version check: an empty batch asks nothing.
    if ((request.coordinatorKeys ?? []).length > 0 && !authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) {
      return errorResponse(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    try {
      broker.shareState.ensureTopic();
    } catch (err) {
      broker.log.error('cannot create the share coordinator topic', { err });
      return errorResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
  }
  const node = { nodeId: broker.config.nodeId, host: broker.advertisedHost, port: broker.advertisedPort };
  return broker.groups.submit(ctx, (c, cctx) => c.findCoordinator(cctx, request, node), errorResponse);
}

export function findCoordinatorError(version: number, request: FindCoordinatorRequestData, errorCode: number): FindCoordinatorResponseData {
  const errorMessage = errorInfo(errorCode).message;
  if (version >= 4) {
    return {
      throttleTimeMs: 0,
      coordinators: (request.coordinatorKeys ?? []).map((key) => ({ key, nodeId: -1, host: '', port: -1, errorCode, errorMessage })),
    };
  }
  return { throttleTimeMs: 0, errorCode, errorMessage, nodeId: -1, host: '', port: -1, coordinators: [] };
}

/** The keys the client may not DESCRIBE, or null when there are none. */
function deniedKeys(ctx: RequestContext, keyType: number, keys: readonly string[]): Set<string> | null {
  if (ctx.broker.acls === null) return null;
  const resourceType = keyType === GROUP_KEY_TYPE ? ResourceType.GROUP : keyType === TRANSACTION_KEY_TYPE ? ResourceType.TRANSACTIONAL_ID : null;
  if (resourceType === null) return null;
  let denied: Set<string> | null = null;
  for (const key of keys) if (!authorize(ctx, AclOperation.DESCRIBE, resourceType, key)) (denied ??= new Set()).add(key);
  return denied;
}
