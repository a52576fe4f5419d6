/**
 * Producer ids for idempotent and transactional producers alike: never used before, since the
 * storage reserves them in persisted blocks. When the next block cannot be persisted (a full
 * disk), there is none to give, and the caller answers as Kafka's producer id manager does
 * while it has no block: a retriable "not yet".
 */
import { StorageError } from '../storage/errors.js';
import type { Storage } from '../storage/types.js';
import type { Logger } from '../util/log.js';

export function allocateProducerId(storage: Storage, log: Logger): bigint | null {
  try {
    return storage.allocateProducerId();
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    log.warn('no producer id: the id block could not be persisted', { err });
    return null;
  }
}
