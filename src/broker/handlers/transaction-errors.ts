/**
 * What KafkaApis does to transaction coordinator errors for older clients: PRODUCER_FENCED
 * (KIP-588) is sent as INVALID_PRODUCER_EPOCH below the version that introduced it.
 */
import { ErrorCode } from '../../protocol/errors.js';

export function clientError(errorCode: number, apiVersion: number, producerFencedFrom: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && apiVersion < producerFencedFrom ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}
