import { BrookError, ErrorCode, errorInfo } from '../protocol/errors.js';

/**
 * A storage operation refused or failed, with the Kafka error code the broker should put
 * on the wire (e.g. CORRUPT_MESSAGE for a bad CRC, TOPIC_ALREADY_EXISTS, KAFKA_STORAGE_ERROR
 * for a disk failure). The message says what exactly was wrong.
 */
export class StorageError extends BrookError {
  override readonly code = 'ERR_STORAGE' as const;
  readonly errorCode: number;
  /** The message without the error name: what Kafka puts in a response's errorMessage. */
  readonly detail: string;

  constructor(errorCode: number, message: string, options?: ErrorOptions) {
    super(`${errorInfo(errorCode).name}: ${message}`, options);
    this.errorCode = errorCode;
    this.detail = message;
  }
}

/** Wraps an I/O failure (ENOSPC, EIO, ...) as Kafka's KAFKA_STORAGE_ERROR, keeping the cause. */
export function ioError(what: string, cause: unknown): StorageError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `${what}: ${detail}`, { cause });
}
