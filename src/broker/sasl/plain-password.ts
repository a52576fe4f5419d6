/**
 * How Brook keeps a SASL/PLAIN user's password: never the password itself, but a salted
 * PBKDF2-HMAC-SHA-256 hash of it (16 random bytes of salt, PLAIN_ITERATIONS rounds, 32
 * bytes). Kafka's PLAIN reads passwords in clear from its JAAS setting; Brook keeps PLAIN
 * users in its credential store (credential-store.ts), apart from the SCRAM ones, and takes
 * the JAAS setting's users too, hashed the same way when the broker starts (so both kinds
 * are checked alike, in the same time). The check runs in libuv's thread pool, so a client
 * trying passwords does not stall the broker.
 */
import { pbkdf2, randomBytes } from 'node:crypto';
import { sameBytes } from '../../protocol/sasl/scram.js';

export const PLAIN_ITERATIONS = 8192;
const KEY_BYTES = 32;

export interface PlainCredential {
  readonly salt: Buffer;
  readonly hash: Buffer;
  readonly iterations: number;
}

function derive(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, KEY_BYTES, 'sha256', (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function plainCredential(password: string, iterations = PLAIN_ITERATIONS): Promise<PlainCredential> {
  const salt = randomBytes(16);
  return { salt, hash: await derive(password, salt, iterations), iterations };
}

/** A throwaway credential to check against for unknown users, so they take as long as known ones. */
const NOBODY: PlainCredential = { salt: randomBytes(16), hash: randomBytes(KEY_BYTES), iterations: PLAIN_ITERATIONS };

/** True when `password` is the one `credential` was made from; an unknown user (undefined) never matches. */
export async function verifyPlain(credential: PlainCredential | undefined, password: string): Promise<boolean> {
  const c = credential ?? NOBODY;
  const hash = await derive(password, c.salt, c.iterations);
  return credential !== undefined && sameBytes(hash, c.hash);
}

/** The credentials of a JAAS setting's PLAIN users (name to password), by name. */
export async function plainCredentials(users: ReadonlyMap<string, string>): Promise<Map<string, PlainCredential>> {
  const entries = await Promise.all([...users].map(async ([name, password]) => [name, await plainCredential(password)] as const));
  return new Map(entries);
}
