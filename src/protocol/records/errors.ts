import { ProtocolDecodeError } from '../primitives/decode-error.js';

/**
 * Why a record batch was refused. The broker maps these onto Kafka error codes
 * (CORRUPT_MESSAGE, UNSUPPORTED_COMPRESSION_TYPE, ...) without parsing messages.
 */
export type CorruptRecordReason =
  | 'truncated'
  | 'invalid-length'
  | 'unsupported-magic'
  | 'crc-mismatch'
  | 'invalid-record-count'
  | 'unknown-compression'
  | 'decompression-failed'
  | 'decompressed-too-large'
  | 'invalid-control-record';

/**
 * A batch-level problem. It extends ProtocolDecodeError so a request loop that catches
 * decode errors also catches these; `reason` says which Kafka error code fits.
 * Malformed bytes inside a record body are reported as plain ProtocolDecodeError by
 * the Reader.
 */
export class CorruptRecordError extends ProtocolDecodeError {
  readonly reason: CorruptRecordReason;

  constructor(reason: CorruptRecordReason, message: string, offset = 0) {
    super(message, offset);
    this.name = 'CorruptRecordError';
    this.reason = reason;
  }
}
