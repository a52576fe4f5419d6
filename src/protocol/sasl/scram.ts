/**
 * SCRAM (RFC 5802) with SHA-256 and SHA-512 (RFC 7677) as Kafka uses it: the key derivation
 * and the message attribute syntax, shared by the broker's server side and the clients'
 * client side. Sans-I/O: `node:crypto` only.
 */
import { createHash, createHmac, pbkdf2, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface ScramMechanism {
  readonly name: ScramMechanismName;
  /** The `mechanism` byte of Alter/DescribeUserScramCredentials (Kafka's ScramMechanism.type). */
  readonly type: 1 | 2;
  readonly hash: 'sha256' | 'sha512';
  readonly keyLength: 32 | 64;
  /** Kafka's ScramMechanism.minIterations: fewer is refused, as Kafka does. */
  readonly minIterations: number;
  /** The most AlterUserScramCredentials accepts (Kafka's ScramFormatter limit). */
  readonly maxIterations: number;
}

export const SCRAM_SHA_256: ScramMechanism = {
  name: 'SCRAM-SHA-256', type: 1, hash: 'sha256', keyLength: 32, minIterations: 4096, maxIterations: 16384,
};
export const SCRAM_SHA_512: ScramMechanism = {
  name: 'SCRAM-SHA-512', type: 2, hash: 'sha512', keyLength: 64, minIterations: 4096, maxIterations: 16384,
};
export const SCRAM_MECHANISMS: readonly ScramMechanism[] = [SCRAM_SHA_256, SCRAM_SHA_512];

export function scramMechanism(name: string): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

export function scramMechanismOfType(type: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type);
}

/** What a server keeps per user and mechanism: never the password. */
export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

export const hash = (m: ScramMechanism, data: Buffer): Buffer => createHash(m.hash).update(data).digest();
export const hmac = (m: ScramMechanism, key: Buffer, data: Buffer | string): Buffer =>
  createHmac(m.hash, key).update(data).digest();

/** Hi(password, salt, i) of RFC 5802: PBKDF2 with HMAC-H. */
export function saltedPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash);
}

/** Hi off the event loop (libuv's thread pool), for callers that must not block. */
export function saltedPasswordAsync(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export const clientKey = (m: ScramMechanism, salted: Buffer): Buffer => hmac(m, salted, 'Client Key');
export const serverKey = (m: ScramMechanism, salted: Buffer): Buffer => hmac(m, salted, 'Server Key');

export function credentialFromSaltedPassword(m: ScramMechanism, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  return { salt, storedKey: hash(m, clientKey(m, salted)), serverKey: serverKey(m, salted), iterations };
}

export function xor(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new Error(`SCRAM: xor of ${a.length} and ${b.length} bytes`);
  const out = Buffer.allocUnsafe(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** Constant-time comparison of two keys or signatures. */
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A printable nonce without ',' (RFC 5802 `printable`), as base64 of random bytes. */
export function nonce(bytes = 24): string {
  return randomBytes(bytes).toString('base64');
}

/**
 * The `a=value` attributes of one SCRAM message, in order. Null when the message does not
 * have the attribute syntax (a one-letter name, '=', then the value), so callers can refuse it.
 */
export function parseAttributes(message: string): Map<string, string> | null {
  const attributes = new Map<string, string>();
  for (const part of message.split(',')) {
    if (part.length < 2 || part[1] !== '=' || !/^[A-Za-z]$/.test(part[0]!)) return null;
    if (attributes.has(part[0]!)) return null;
    attributes.set(part[0]!, part.slice(2));
  }
  return attributes;
}

/** RFC 5802's saslname: ',' and '=' in a user name are written =2C and =3D. */
export const escapeSaslName = (name: string): string => name.replace(/=/g, '=3D').replace(/,/g, '=2C');

/** The user name a saslname stands for, or null when it has a '=' not followed by 2C or 3D. */
export function unescapeSaslName(saslName: string): string | null {
  if (/=(?!2C|3D)/.test(saslName)) return null;
  return saslName.replace(/=2C/g, ',').replace(/=3D/g, '=');
}
