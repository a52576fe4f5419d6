/**
 * What KafkaApis does to transaction coordinator errors for older clients: PRODUCER_FENCED
 * (KIP-588) is sent as INVALID_PRODUCER_EPOCH below the version that introduced it.
 */
import { ErrorCode } from '../../protocol/errors.js';

export function clientError(errorCode: number, apiVersion: number, producerFencedFrom: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && apiVersion < producerFencedFrom ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}

/**
 * What Kafka's AddPartitionsToTxnManager and ReplicaManager make of the transaction
 * coordinator's answer to an implicit add (transaction version 2's Produce and
 * TxnOffsetCommit): PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH, and the coordinator's
 * retriable errors NOT_ENOUGH_REPLICAS, which a producer retries without a metadata refresh.
 */
export function implicitAddError(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.PRODUCER_FENCED:
      return ErrorCode.INVALID_PRODUCER_EPOCH;
    case ErrorCode.CONCURRENT_TRANSACTIONS:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.NOT_COORDINATOR:
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    default:
      return errorCode;
  }
}
