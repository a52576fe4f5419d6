/**
 * A failed coordinator append as the error its replies carry: a storage error through the
 * coordinators' one map (src/coordinator/append-errors.ts); anything else is a bug,
 * UNKNOWN_SERVER_ERROR.
 */
import { appendErrorToResponseError } from '../../coordinator/append-errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/index.js';

export function appendErrorCode(err: unknown): number {
  return err instanceof StorageError ? appendErrorToResponseError(err.errorCode) : ErrorCode.UNKNOWN_SERVER_ERROR;
}
