/**
 * FindCoordinator for a single-node broker: this node coordinates every group, every
 * transactional id and every share-partition's state (key type SHARE, v6: the key is
 * "group:topicId:partition", Kafka's SharePartitionKey). Pure: the broker passes the node
 * clients should connect to. v0-3 ask about one key; v4+ about a batch (`coordinatorKeys`).
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
export const SHARE_KEY_TYPE = 2;
/** Kafka's first FindCoordinator version that serves SHARE keys (KIP-932). */
const SHARE_MIN_VERSION = 6;

/** Kafka's Node.noNode(), sent with errors. */
const NO_NODE: CoordinatorNode = { nodeId: -1, host: '', port: -1 };

function lookup(keyType: number, key: string, apiVersion: number): number {
  if (keyType === GROUP_KEY_TYPE || keyType === TRANSACTION_KEY_TYPE) return ErrorCode.NONE;
  // Unknown types, SHARE before v6 and keys that are not share-partition keys: INVALID_REQUEST, as Kafka.
  return keyType === SHARE_KEY_TYPE && apiVersion >= SHARE_MIN_VERSION && isSharePartitionKey(key) ? ErrorCode.NONE : ErrorCode.INVALID_REQUEST;
}

/**
 * Kafka's SharePartitionKey.getInstance(String): at least three ':'-separated parts (Java's
 * split, which drops trailing empty parts), the last a partition (Integer.parseInt), the one
 * before it a topic id (Uuid.fromString: base64url of 16 bytes), the rest a group id not blank.
 */
export function isSharePartitionKey(key: string): boolean {
  const parts = key.split(':');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 3) return false;
  const partition = parts[parts.length - 1]!;
  const topicId = parts[parts.length - 2]!;
  if (parts.slice(0, -2).join(':').trim() === '') return false;
  if (!/^[+-]?\d+$/.test(partition) || Number(partition) > 2 ** 31 - 1 || Number(partition) < -(2 ** 31)) return false;
  if (topicId.length > 24 || !/^[A-Za-z0-9_-]*={0,2}$/.test(topicId)) return false;
  return Buffer.from(topicId, 'base64url').length === 16;
}

export function findCoordinatorResponse(
  apiVersion: number,
  req: FindCoordinatorRequestData,
  node: CoordinatorNode,
): FindCoordinatorResponseData {
  const keyType = apiVersion >= 1 ? (req.keyType ?? GROUP_KEY_TYPE) : GROUP_KEY_TYPE;
  if (apiVersion >= 4) {
    const coordinators: Coordinator[] = (req.coordinatorKeys ?? []).map((key) => {
      const errorCode = lookup(keyType, key, apiVersion);
      const target = errorCode === ErrorCode.NONE ? node : NO_NODE;
      return {
        key,
        nodeId: target.nodeId,
        host: target.host,
        port: target.port,
        errorCode,
        errorMessage: errorCode === ErrorCode.NONE ? '' : errorInfo(errorCode).message,
      };
    });
    return { throttleTimeMs: 0, coordinators };
  }
  const errorCode = lookup(keyType, req.key ?? '', apiVersion);
  const target = errorCode === ErrorCode.NONE ? node : NO_NODE;
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
