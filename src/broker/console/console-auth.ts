/**
 * Who a console request is. A broker without security (no SASL listener, no authorizer)
 * asks nothing: every request is `User:ANONYMOUS`, as a PLAINTEXT client's. With either, the
 * console asks for HTTP Basic credentials (401 with `WWW-Authenticate: Basic realm="brook"`,
 * so a browser prompts), checked against the broker's SASL users: the PLAIN users of the
 * listeners' JAAS settings, then the credential store's PLAIN and SCRAM users (the password
 * a SCRAM user authenticates with over SASL). The principal is `User:<name>`, which the ACLs
 * then judge as they judge the same user's Kafka requests.
 *
 * Checks run through the broker's password check queue (PBKDF2 off the event loop, bounded
 * broker-wide with the SASL handshakes'). Every request is checked: nothing is cached, so a
 * removed user or changed password takes effect at once.
 */
import type { IncomingMessage } from 'node:http';
import { ANONYMOUS } from '../principal.js';
import type { CredentialStore } from '../sasl/credential-store.js';
import type { PasswordCheckQueue } from '../sasl/password-checks.js';
import { verifyPlain, type PlainCredential } from '../sasl/plain-password.js';
import { clientKey, hash, saltedPasswordAsync, sameBytes, SCRAM_MECHANISMS } from '../../protocol/sasl/scram.js';

export const BASIC_CHALLENGE = 'Basic realm="brook", charset="UTF-8"';

export interface ConsoleAuthOptions {
  /** Whether requests must authenticate: the broker has a SASL listener or an authorizer. */
  readonly required: boolean;
  readonly credentials: CredentialStore;
  /** The PLAIN users of the SASL listeners' JAAS settings, by name. */
  readonly jaasPlain: ReadonlyMap<string, PlainCredential>;
  readonly passwordChecks: PasswordCheckQueue;
}

/** The request's principal, or null when it must (re)authenticate (401). */
export type Authenticated = { readonly principal: string } | null;

/** `Authorization: Basic <base64(user:password)>`, or null when absent or malformed. */
export function parseBasic(header: string | undefined): { user: string; password: string } | null {
  if (header === undefined) return null;
  const m = /^Basic[ ]+([A-Za-z0-9+/=]{1,4096})\s*$/i.exec(header);
  if (m === null) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

async function scramMatches(credentials: CredentialStore, user: string, password: string): Promise<boolean> {
  for (const m of SCRAM_MECHANISMS) {
    const c = credentials.scram(user, m.name);
    if (c === undefined) continue;
    const salted = await saltedPasswordAsync(m, password, c.salt, c.iterations);
    if (sameBytes(hash(m, clientKey(m, salted)), c.storedKey)) return true;
  }
  return false;
}

export class ConsoleAuth {
  constructor(private readonly options: ConsoleAuthOptions) {}

  get required(): boolean {
    return this.options.required;
  }

  async authenticate(req: IncomingMessage): Promise<Authenticated> {
    if (!this.options.required) return { principal: ANONYMOUS };
    const basic = parseBasic(req.headers.authorization);
    if (basic === null) return null;
    const { credentials, jaasPlain, passwordChecks } = this.options;
    const { user, password } = basic;
    try {
      const ok = await passwordChecks.run(async () => {
        const plain = jaasPlain.get(user) ?? credentials.plain(user);
        if (plain !== undefined && await verifyPlain(plain, password)) return true;
        if (await scramMatches(credentials, user, password)) return true;
        // An unknown user takes as long as a known one.
        if (plain === undefined) await verifyPlain(undefined, password);
        return false;
      });
      return ok ? { principal: `User:${user}` } : null;
    } catch {
      // The checks are busy (a flood of handshakes): ask again rather than let it in.
      return null;
    }
  }
}
