/**
 * An error a consumer-group request is answered with (Kafka's ApiExceptions thrown from the
 * group coordinator): the handler catches it and replies with its code and message. It is
 * thrown before any record is applied, so the state is as the request found it.
 */
import { ErrorCode } from '../../protocol/errors.js';

export class ConsumerGroupError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

export function invalidRequest(message: string): ConsumerGroupError {
  return new ConsumerGroupError(ErrorCode.INVALID_REQUEST, message);
}

export function groupIdNotFound(message: string): ConsumerGroupError {
  return new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, message);
}

export function unknownMemberId(message: string): ConsumerGroupError {
  return new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, message);
}

export function fencedMemberEpoch(message: string): ConsumerGroupError {
  return new ConsumerGroupError(ErrorCode.FENCED_MEMBER_EPOCH, message);
}
