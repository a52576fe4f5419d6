/**
 * The broker's ACLs: the StandardAuthorizer's in-memory index plus, with a data directory,
 * the file `acls.json` there. Each change writes the whole set to a temporary file, fsyncs
 * it, renames it over the old one and fsyncs the directory, and only then changes what
 * authorize() sees: a client told its ACL was created finds it after a restart (kill -9
 * included), and a failed write changes nothing and is answered with the error. Changes are
 * applied one at a time, in the order they arrive (Kafka's controller orders them too).
 */
import { join } from 'node:path';
import { readIfExists, writeAtomic, type FileSystem } from '../../storage/index.js';
import { aclKey, filterIsUnknown, filterMatches, validateNewAcl, type AclBinding, type AclBindingFilter } from './acl.js';
import { StandardAuthorizer, type AuthorizerSettings } from './standard-authorizer.js';

export const ACL_FILE = 'acls.json';
const FORMAT_VERSION = 1;

/** An error of one creation or one deletion filter, as the response carries it. */
export interface AclError {
  readonly errorCode: number;
  readonly errorMessage: string;
}

export type CreateResult = AclError | null;
export type DeleteResult = { readonly error: AclError } | { readonly deleted: readonly AclBinding[] };

const INVALID_REQUEST = 42;
const KAFKA_STORAGE_ERROR = 56;

export class AclStore {
  readonly authorizer: StandardAuthorizer;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(settings: AuthorizerSettings, private readonly path: string | null, private readonly fs: FileSystem) {
    this.authorizer = new StandardAuthorizer(settings);
  }

  /** Opens the store, reading `acls.json` from `dataDir` (none: in memory only). */
  static open(settings: AuthorizerSettings, dataDir: string | null, fs: FileSystem): AclStore {
    const store = new AclStore(settings, dataDir === null ? null : join(dataDir, ACL_FILE), fs);
    if (store.path !== null) {
      const bytes = readIfExists(fs, store.path);
      if (bytes !== null) for (const acl of parseAclFile(bytes.toString('utf8'), store.path)) store.authorizer.add(acl);
    }
    return store;
  }

  /** Creates the ACLs; one result per binding, null for success (an existing ACL is a success). */
  createAcls(bindings: readonly AclBinding[]): Promise<CreateResult[]> {
    return this.serialized(async () => {
      const results: CreateResult[] = [];
      const added: AclBinding[] = [];
      const keys = new Set<string>();
      for (const b of bindings) {
        const invalid = validateNewAcl(b);
        if (invalid !== null) {
          results.push({ errorCode: INVALID_REQUEST, errorMessage: invalid });
          continue;
        }
        results.push(null);
        const key = aclKey(b);
        if (!keys.has(key) && this.authorizer.acls(exactly(b)).length === 0) added.push(b);
        keys.add(key);
      }
      if (added.length === 0) return results;
      const failure = await this.persist([...this.all(), ...added]);
      if (failure !== null) return results.map((r) => r ?? failure);
      for (const b of added) this.authorizer.add(b);
      return results;
    });
  }

  /** Deletes every ACL each filter matches; one result per filter, with the ACLs it deleted. */
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<DeleteResult[]> {
    return this.serialized(async () => {
      const current = this.all();
      const doomed = new Set<AclBinding>();
      const results: DeleteResult[] = filters.map((f) => {
        const unknown = filterIsUnknown(f);
        if (unknown !== null) return { error: { errorCode: INVALID_REQUEST, errorMessage: unknown } };
        const deleted = current.filter((acl) => filterMatches(f, acl));
        for (const acl of deleted) doomed.add(acl);
        return { deleted };
      });
      if (doomed.size === 0) return results;
      const failure = await this.persist(current.filter((acl) => !doomed.has(acl)));
      if (failure !== null) return results.map((r) => ('error' in r ? r : { error: failure }));
      for (const acl of doomed) this.authorizer.remove(acl);
      return results;
    });
  }

  private all(): AclBinding[] {
    return this.authorizer.acls(ANY_ACL);
  }

  /** Writes the set; the error to answer with when that failed. */
  private async persist(acls: readonly AclBinding[]): Promise<AclError | null> {
    if (this.path === null) return null;
    try {
      await writeAtomic(this.fs, this.path, formatAclFile(acls));
      return null;
    } catch (err) {
      return { errorCode: KAFKA_STORAGE_ERROR, errorMessage: `cannot write ${ACL_FILE}: ${(err as Error).message}` };
    }
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

const ANY_ACL: AclBindingFilter = { resourceType: 1, resourceName: null, patternType: 1, principal: null, host: null, operation: 1, permissionType: 1 };

function exactly(b: AclBinding): AclBindingFilter {
  return { ...b };
}

function formatAclFile(acls: readonly AclBinding[]): string {
  const lines = acls.map((a) => JSON.stringify([a.resourceType, a.resourceName, a.patternType, a.principal, a.host, a.operation, a.permissionType]));
  return `{"version":${FORMAT_VERSION},"acls":[\n${lines.join(',\n')}\n]}\n`;
}

function parseAclFile(text: string, path: string): AclBinding[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const file = parsed as { version?: unknown; acls?: unknown };
  if (file.version !== FORMAT_VERSION || !Array.isArray(file.acls)) throw new Error(`${path}: unknown format (version ${String(file.version)})`);
  return file.acls.map((row: unknown) => {
    const r = row as unknown[];
    const ok = Array.isArray(r) && r.length === 7 && typeof r[1] === 'string' && typeof r[3] === 'string' && typeof r[4] === 'string'
      && [r[0], r[2], r[5], r[6]].every((n) => Number.isInteger(n));
    if (!ok) throw new Error(`${path}: malformed ACL ${JSON.stringify(row)}`);
    return { resourceType: r[0] as number, resourceName: r[1] as string, patternType: r[2] as number, principal: r[3] as string, host: r[4] as string, operation: r[5] as number, permissionType: r[6] as number };
  });
}
