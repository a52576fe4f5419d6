/**
 * The consumer's typed errors. Each has a literal `code`; errors raised by background work
 * (heartbeats, fetches, auto-commits) are kept and thrown from the next poll(), never left
 * as unhandled rejections.
 */
import { BrookError } from '../../protocol/errors.js';
import type { ConsumerRecord, ConsumerRecordHeader } from './record-decoding.js';

/** A commit failed for good: the group rebalanced, the member was removed, or the generation moved on (Java's CommitFailedException). */
export class CommitFailedError extends BrookError {
  readonly code = 'ERR_COMMIT_FAILED' as const;
}

/**
 * A commit reached the group while it was rebalancing (Java's RebalanceInProgressException):
 * nothing was committed; poll() to finish the rebalance, then commit again.
 */
export class RebalanceInProgressError extends BrookError {
  readonly code = 'ERR_REBALANCE_IN_PROGRESS' as const;
}

/** Another consumer with the same group.instance.id joined (Java's FencedInstanceIdException); fatal. */
export class FencedInstanceIdError extends BrookError {
  readonly code = 'ERR_FENCED_INSTANCE_ID' as const;
}

/** auto.offset.reset=none and a partition has no committed offset, or its position fell out of range. */
export class NoOffsetForPartitionError extends BrookError {
  readonly code = 'ERR_NO_OFFSET_FOR_PARTITION' as const;
}

/** An assignor name that no registry entry answers to. */
export class UnknownAssignorError extends BrookError {
  readonly code = 'ERR_UNKNOWN_ASSIGNOR' as const;
}

/** The consumer was used in a way its state does not allow (poll after close, seek on an unassigned partition, ...). */
export class IllegalConsumerStateError extends BrookError {
  readonly code = 'ERR_ILLEGAL_STATE' as const;
}

/** The group coordinator answered with an error the consumer cannot recover from. */
export class GroupError extends BrookError {
  readonly code = 'ERR_GROUP' as const;
}

/** A poll or commit was aborted by its AbortSignal or by close(). */
export class ConsumerAbortedError extends BrookError {
  readonly code = 'ERR_ABORTED' as const;
}

/** Which part of a record a deserializer failed on. */
export type DeserializationOrigin = 'key' | 'value' | 'headerValue';

/**
 * A deserializer threw for the record at `offset` of `topic`-`partition` (Java's
 * RecordDeserializationException; the deserializer's error is the `cause`). poll() gives
 * out the records before it first; the consumer's position stays at this record, so it
 * is neither skipped nor committed: every poll() throws again until the application
 * seeks past it (`consumer.seek(error, error.offset + 1n)`), e.g. after sending the raw
 * `key` and `value` to a dead-letter topic.
 */
export class RecordDeserializationError extends BrookError {
  readonly code = 'ERR_RECORD_DESERIALIZATION' as const;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly origin: DeserializationOrigin;
  /** The record's raw bytes: views of the fetched data. */
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly ConsumerRecordHeader<Buffer>[];
  readonly timestamp: number;
  readonly timestampType: 'CreateTime' | 'LogAppendTime';

  /** `next`: what happens now (the consumer's advice by default; the share consumer released the record). */
  constructor(record: ConsumerRecord, origin: DeserializationOrigin, cause: unknown, next = 'seek past the record to go on consuming') {
    super(
      `Error deserializing the ${origin === 'headerValue' ? 'header value' : origin} of the record at offset ${record.offset} of ${record.topic}-${record.partition}; ${next}`,
      { cause },
    );
    this.topic = record.topic;
    this.partition = record.partition;
    this.offset = record.offset;
    this.origin = origin;
    this.key = record.key;
    this.value = record.value;
    this.headers = record.headers;
    this.timestamp = record.timestamp;
    this.timestampType = record.timestampType;
  }
}
