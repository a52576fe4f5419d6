/** The producer's own errors; broker error codes arrive as KafkaProtocolError. */
import { BrookError, KafkaProtocolError } from '../../protocol/errors.js';

/** Kafka's BufferExhaustedException: no room in `bufferMemory` within `maxBlockMs`. */
export class BufferExhaustedError extends BrookError {
  readonly code = 'ERR_BUFFER_EXHAUSTED' as const;
}

/** Kafka's TimeoutException from waitOnMetadata: the topic (or partition) did not appear within `maxBlockMs`. */
export class MetadataTimeoutError extends BrookError {
  readonly code = 'ERR_METADATA_TIMEOUT' as const;
}

/** A record stayed unacknowledged past `deliveryTimeoutMs` (Kafka's "Expiring N record(s)" TimeoutException). */
export class DeliveryTimeoutError extends BrookError {
  readonly code = 'ERR_DELIVERY_TIMEOUT' as const;
}

/** Kafka's RecordTooLargeException, raised before sending. */
export class RecordTooLargeError extends BrookError {
  readonly code = 'ERR_RECORD_TOO_LARGE' as const;
}

/** The record names a partition the topic does not have, or the partitioner returned one. */
export class InvalidPartitionError extends BrookError {
  readonly code = 'ERR_INVALID_PARTITION' as const;
}

/** send() after close(), or records still pending when close() gave up. */
export class ProducerClosedError extends BrookError {
  readonly code = 'ERR_PRODUCER_CLOSED' as const;
}

/**
 * A serializer threw (Java's SerializationException): the send is rejected and nothing of
 * the record is sent. The serializer's error is the `cause`.
 */
export class SerializationError extends BrookError {
  readonly code = 'ERR_SERIALIZATION' as const;

  constructor(readonly topic: string, readonly origin: 'key' | 'value' | 'headerValue', cause: unknown) {
    super(`Error serializing the ${origin === 'headerValue' ? 'header value' : origin} of a record for topic ${topic}`, { cause });
  }
}

/**
 * Kafka's ProducerFencedException: a newer producer with the same transactional id ran
 * initTransactions (the broker's PRODUCER_FENCED, or INVALID_PRODUCER_EPOCH for a stale
 * epoch). Fatal: the producer can only be closed.
 */
export class ProducerFencedError extends KafkaProtocolError {
  constructor(errorCode: number, detail?: string) {
    super(errorCode, detail);
    this.name = 'ProducerFencedError';
  }
}

/**
 * The transaction hit an error it cannot commit past (a record failed, an offset commit
 * was refused, the broker's TRANSACTION_ABORTABLE): abortTransaction() and the producer
 * can be used again. The error that caused it is the `cause`.
 */
export class TransactionAbortableError extends BrookError {
  readonly code = 'ERR_TRANSACTION_ABORTABLE' as const;
}

/** Kafka's TransactionAbortedException: a record that had not been sent when its transaction was aborted. */
export class TransactionAbortedError extends BrookError {
  readonly code = 'ERR_TRANSACTION_ABORTED' as const;
}

/**
 * A transactional method called in a state that does not allow it (Kafka's
 * IllegalStateException): send or commitTransaction outside a transaction,
 * beginTransaction twice, any of them before initTransactions, or transactional methods
 * on a producer without a transactionalId.
 */
export class IllegalStateError extends BrookError {
  readonly code = 'ERR_ILLEGAL_STATE' as const;
}
