/**
 * What a coordinator's failed append answers, in one place for every coordinator (Kafka's
 * GroupCoordinatorService.handleOperationException, GroupMetadataManager's
 * appendGroupMetadataErrorToResponseError, TransactionStateManager's appendTransactionToLog):
 * a storage error makes the client look for the coordinator again; a missing partition, too
 * few replicas or a timeout is "not available" (the client retries); a record too large is
 * an internal error (the coordinator wrote it); any other code goes through as it is (e.g.
 * a fenced producer's transactional batch), as Kafka's group coordinator passes it on.
 * Mapping a mapped code again changes nothing.
 */
import { ErrorCode } from '../protocol/errors.js';

export function appendErrorToResponseError(appendError: number): number {
  switch (appendError) {
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return appendError;
  }
}
