/**
 * The broker's SASL users: per user, a SCRAM credential per mechanism (salt, StoredKey,
 * ServerKey, iterations: what RFC 5802 has a server keep, never the password) and, apart
 * from those, a PLAIN credential (a salted PBKDF2 hash, plain-password.ts). Kafka keeps the
 * SCRAM ones in its metadata log and the PLAIN ones in its JAAS file; Brook keeps both in
 * one file of the data directory, CREDENTIALS_FILE (in memory for a broker without one).
 *
 * Every change is all or nothing and durable before it is visible: the whole file is
 * written to a temporary, fsynced, renamed over the old one and the directory fsynced, so
 * a crash (kill -9, power loss) leaves the old or the new users, never a mix. A change whose
 * write fails throws; the store then holds what a restart would read: the old users when
 * the new file never replaced the old one, the new users when only the directory's fsync
 * failed after the rename (the file a restart reads is then the new one, so keeping the old
 * users in memory would change the users at the next restart, silently).
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { scramMechanism, type ScramCredential, type ScramMechanismName } from '../../protocol/sasl/scram.js';
import type { PlainCredential } from './plain-password.js';

export const CREDENTIALS_FILE = 'sasl-credentials.json';
const FORMAT_VERSION = 1;

export interface UserCredentials {
  readonly scram: ReadonlyMap<ScramMechanismName, ScramCredential>;
  readonly plain: PlainCredential | null;
}

export type CredentialChange =
  | { readonly op: 'upsertScram'; readonly user: string; readonly mechanism: ScramMechanismName; readonly credential: ScramCredential }
  | { readonly op: 'deleteScram'; readonly user: string; readonly mechanism: ScramMechanismName }
  | { readonly op: 'setPlain'; readonly user: string; readonly credential: PlainCredential }
  | { readonly op: 'deletePlain'; readonly user: string };

/** The file calls the store makes (node:fs by default; tests inject failures). */
export type CredentialFileSystem = Pick<typeof nodeFs, 'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'readFileSync' | 'rmSync'>;

interface StoredScram { salt: string; storedKey: string; serverKey: string; iterations: number }
interface StoredPlain { salt: string; hash: string; iterations: number }
type StoredUser = Record<string, StoredScram | StoredPlain>;

const b64 = (b: Buffer): string => b.toString('base64');
const unb64 = (s: unknown, what: string): Buffer => {
  if (typeof s !== 'string') throw new Error(`${what} is not base64 text`);
  return Buffer.from(s, 'base64');
};

function iterationsOf(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new Error(`${what}: bad iteration count`);
  return v;
}

function parse(text: string, path: string): Map<string, UserCredentials> {
  const fail = (message: string): never => {
    throw new Error(`${path}: ${message}`);
  };
  let doc: { version?: unknown; users?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (err) {
    return fail(`not JSON: ${(err as Error).message}`);
  }
  if (doc.version !== FORMAT_VERSION) fail(`unknown format version ${String(doc.version)}`);
  if (typeof doc.users !== 'object' || doc.users === null) fail('no users');
  const users = new Map<string, UserCredentials>();
  for (const [name, entries] of Object.entries(doc.users as Record<string, StoredUser>)) {
    const scram = new Map<ScramMechanismName, ScramCredential>();
    let plain: PlainCredential | null = null;
    try {
      for (const [mechanism, c] of Object.entries(entries)) {
        if (mechanism === 'PLAIN') {
          const p = c as StoredPlain;
          plain = { salt: unb64(p.salt, 'salt'), hash: unb64(p.hash, 'hash'), iterations: iterationsOf(p.iterations, mechanism) };
        } else if (scramMechanism(mechanism) !== undefined) {
          const s = c as StoredScram;
          scram.set(mechanism as ScramMechanismName, {
            salt: unb64(s.salt, 'salt'), storedKey: unb64(s.storedKey, 'storedKey'), serverKey: unb64(s.serverKey, 'serverKey'),
            iterations: iterationsOf(s.iterations, mechanism),
          });
        } else {
          fail(`user ${name}: unknown mechanism ${mechanism}`);
        }
      }
    } catch (err) {
      fail(`user ${name}: ${(err as Error).message}`);
    }
    users.set(name, { scram, plain });
  }
  return users;
}

function serialize(users: ReadonlyMap<string, UserCredentials>): string {
  const out: Record<string, StoredUser> = {};
  for (const [name, u] of [...users].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const entry: StoredUser = {};
    for (const [m, c] of u.scram) entry[m] = { salt: b64(c.salt), storedKey: b64(c.storedKey), serverKey: b64(c.serverKey), iterations: c.iterations };
    if (u.plain !== null) entry['PLAIN'] = { salt: b64(u.plain.salt), hash: b64(u.plain.hash), iterations: u.plain.iterations };
    out[name] = entry;
  }
  return `${JSON.stringify({ version: FORMAT_VERSION, users: out }, null, 2)}\n`;
}

/** A failed write; `renamed` when the new file had already replaced the old one. */
type WriteError = Error & { readonly renamed: boolean };

export class CredentialStore {
  private constructor(
    private users: ReadonlyMap<string, UserCredentials>,
    private readonly path: string | null,
    private readonly fs: CredentialFileSystem,
  ) {}

  /** A store that lives as long as the broker (a broker without a data directory). */
  static inMemory(): CredentialStore {
    return new CredentialStore(new Map(), null, nodeFs);
  }

  /** The store of `dataDir` (empty when it has no credentials file yet); throws on a damaged file. */
  static open(dataDir: string, fs: CredentialFileSystem = nodeFs): CredentialStore {
    const path = join(dataDir, CREDENTIALS_FILE);
    let text: string;
    try {
      text = fs.readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new CredentialStore(new Map(), path, fs);
      throw err;
    }
    return new CredentialStore(parse(text, path), path, fs);
  }

  scram(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    return this.users.get(user)?.scram.get(mechanism);
  }

  plain(user: string): PlainCredential | undefined {
    return this.users.get(user)?.plain ?? undefined;
  }

  /** Every user with their credentials, sorted by name. */
  list(): [string, UserCredentials][] {
    return [...this.users].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * Applies the changes together: written durably first, then visible. Throws when the
   * write fails: the store unchanged, unless the new file was already in place (see above).
   * Deleting what does not exist is a no-op here: callers that must refuse it
   * (AlterUserScramCredentials) check first.
   */
  apply(changes: readonly CredentialChange[]): void {
    const next = new Map(this.users);
    for (const c of changes) {
      const current = next.get(c.user) ?? { scram: new Map(), plain: null };
      const scram = new Map(current.scram);
      let plain = current.plain;
      if (c.op === 'upsertScram') scram.set(c.mechanism, c.credential);
      else if (c.op === 'deleteScram') scram.delete(c.mechanism);
      else if (c.op === 'setPlain') plain = c.credential;
      else plain = null;
      if (scram.size === 0 && plain === null) next.delete(c.user);
      else next.set(c.user, { scram, plain });
    }
    if (this.path !== null) {
      try {
        this.write(serialize(next));
      } catch (err) {
        if ((err as WriteError).renamed) this.users = next;
        throw err;
      }
    }
    this.users = next;
  }

  private write(text: string): void {
    const path = this.path!;
    const tmp = `${path}.tmp`;
    const fs = this.fs;
    let renamed = false;
    try {
      // 0600: the keys let whoever reads them impersonate the server to SCRAM clients.
      const fd = fs.openSync(tmp, 'w', 0o600);
      try {
        const data = Buffer.from(text, 'utf8');
        let done = 0;
        while (done < data.length) done += fs.writeSync(fd, data, done, data.length - done);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, path);
      renamed = true;
      const dir = fs.openSync(join(path, '..'), 'r');
      try {
        fs.fsyncSync(dir);
      } finally {
        fs.closeSync(dir);
      }
    } catch (err) {
      if (!renamed) {
        try {
          fs.rmSync(tmp, { force: true });
        } catch {
          // The temporary is overwritten by the next write anyway.
        }
      }
      const failure: WriteError = Object.assign(new Error(`cannot write ${path}: ${(err as Error).message}`, { cause: err }), { renamed });
      throw failure;
    }
  }
}
