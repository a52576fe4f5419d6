/**
 * The credential store of a stopped broker's data directory, for `brook users --data-dir`
 * (as Kafka's `kafka-storage format --add-scram` bootstraps users before the first start).
 * The directory's lock is held meanwhile, so this is refused while a broker runs there: a
 * running broker would not see the change, and its next change would undo it.
 */
import { mkdirSync } from 'node:fs';
import { acquireDirLock } from '../../storage/dir-lock.js';
import { CredentialStore } from './credential-store.js';

export async function withOfflineCredentials<T>(dataDir: string, work: (store: CredentialStore) => T | Promise<T>): Promise<T> {
  mkdirSync(dataDir, { recursive: true });
  const release = await acquireDirLock(dataDir);
  try {
    return await work(CredentialStore.open(dataDir));
  } finally {
    release();
  }
}
