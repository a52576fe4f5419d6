/**
 * FindCoordinator for a single-node broker: this node coordinates every group and every
 * transactional id. Pure: the broker passes the node clients should connect to.
 * v0-3 ask about one key; v4+ about a batch (`coordinatorKeys`).
 */
import { errorInfo, ErrorCode } from '../protocol/errors.js';
import type { Coordinator, FindCoordinatorRequestData, FindCoordinatorResponseData } from '../protocol/messages/find-coordinator.js';

export interface CoordinatorNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

/** Kafka's CoordinatorType ids. */
const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;

/** Kafka's Node.noNode(), sent with errors. */
const NO_NODE: CoordinatorNode = { nodeId: -1, host: '', port: -1 };

function lookup(keyType: number): number {
  // Share-group coordinators (type 2) and unknown types: Kafka answers INVALID_REQUEST.
  return keyType === GROUP_KEY_TYPE || keyType === TRANSACTION_KEY_TYPE ? ErrorCode.NONE : ErrorCode.INVALID_REQUEST;
}

export function findCoordinatorResponse(
  apiVersion: number,
  req: FindCoordinatorRequestData,
  node: CoordinatorNode,
): FindCoordinatorResponseData {
  const keyType = apiVersion >= 1 ? (req.keyType ?? GROUP_KEY_TYPE) : GROUP_KEY_TYPE;
  const errorCode = lookup(keyType);
  const target = errorCode === ErrorCode.NONE ? node : NO_NODE;
  if (apiVersion >= 4) {
    const coordinators: Coordinator[] = (req.coordinatorKeys ?? []).map((key) => ({
      key,
      nodeId: target.nodeId,
      host: target.host,
      port: target.port,
      errorCode,
      errorMessage: errorCode === ErrorCode.NONE ? '' : errorInfo(errorCode).message,
    }));
    return { throttleTimeMs: 0, coordinators };
  }
  return {
    throttleTimeMs: 0,
    errorCode,
    // Kafka sends the error's message, which for success is "NONE".
    errorMessage: errorCode === ErrorCode.NONE ? 'NONE' : errorInfo(errorCode).message,
    nodeId: target.nodeId,
    host: target.host,
    port: target.port,
    coordinators: [],
  };
}
