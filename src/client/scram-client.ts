/**
 * The client side of a SCRAM exchange (RFC 5802, with Kafka's SCRAM-SHA-256/512): client-first,
 * then client-final from the server-first, then the server-final checked. It refuses what
 * Kafka's ScramSaslClient refuses: a server nonce that does not extend the client's, fewer
 * iterations than the mechanism's minimum (4096), an `e=` error, and a server signature that
 * does not prove the server knows the password's ServerKey. Sans-I/O: the caller carries the
 * messages; Hi() runs on libuv's thread pool.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  clientKey, escapeSaslName, hash, hmac, nonce as randomNonce, parseAttributes, saltedPasswordAsync, sameBytes, serverKey, xor,
  type ScramMechanism,
} from '../protocol/sasl/scram.js';
import { AuthenticationError } from './errors.js';

/** The GS2 header of a client without channel binding or authzid, and its base64 (the `c=` of client-final). */
const GS2_HEADER = 'n,,';
const CHANNEL_BINDING = Buffer.from(GS2_HEADER).toString('base64');

function refuse(mechanism: ScramMechanism, reason: string): AuthenticationError {
  return new AuthenticationError(ErrorCode.SASL_AUTHENTICATION_FAILED, `${mechanism.name}: ${reason}`);
}

export class ScramClient {
  private readonly clientFirstBare: string;
  private expectedServerSignature: Buffer | null = null;

  constructor(
    private readonly mechanism: ScramMechanism,
    username: string,
    private readonly password: string,
    /** The client nonce; tests pass RFC examples' nonces. */
    private readonly clientNonce: string = randomNonce(),
  ) {
    this.clientFirstBare = `n=${escapeSaslName(username)},r=${clientNonce}`;
  }

  clientFirst(): Buffer {
    return Buffer.from(GS2_HEADER + this.clientFirstBare, 'utf8');
  }

  /** client-final for the server-first message, or AuthenticationError when the server-first is refused. */
  async clientFinal(serverFirstBytes: Buffer): Promise<Buffer> {
    const m = this.mechanism;
    const serverFirst = serverFirstBytes.toString('utf8');
    const attributes = parseAttributes(serverFirst);
    if (attributes?.has('e')) throw refuse(m, `the server refused the exchange: ${attributes.get('e')!}`);
    // m= (a mandatory extension) is reserved: a client that does not know it must refuse it.
    if (attributes === null || attributes.has('m')) throw refuse(m, `invalid server-first message '${serverFirst}'`);
    const serverNonce = attributes.get('r');
    const salt = attributes.get('s');
    const iterationsText = attributes.get('i');
    if (serverNonce === undefined || salt === undefined || iterationsText === undefined || !/^[1-9][0-9]{0,9}$/.test(iterationsText)) {
      throw refuse(m, `invalid server-first message '${serverFirst}'`);
    }
    if (!serverNonce.startsWith(this.clientNonce)) {
      throw refuse(m, 'invalid server nonce: it does not start with the client nonce');
    }
    const iterations = Number(iterationsText);
    if (iterations < m.minIterations) {
      throw refuse(m, `requested iterations ${iterations} is less than minimum ${m.minIterations}`);
    }
    const saltBytes = Buffer.from(salt, 'base64');
    const salted = await saltedPasswordAsync(m, this.password, saltBytes, iterations);
    const clientFinalWithoutProof = `c=${CHANNEL_BINDING},r=${serverNonce}`;
    const authMessage = `${this.clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;
    const ck = clientKey(m, salted);
    const proof = xor(ck, hmac(m, hash(m, ck), authMessage));
    this.expectedServerSignature = hmac(m, serverKey(m, salted), authMessage);
    return Buffer.from(`${clientFinalWithoutProof},p=${proof.toString('base64')}`, 'utf8');
  }

  /** Checks the server-final message: the server's signature, or its `e=` error. */
  verifyServerFinal(serverFinalBytes: Buffer): void {
    const m = this.mechanism;
    if (this.expectedServerSignature === null) throw refuse(m, 'server-final before client-final');
    const serverFinal = serverFinalBytes.toString('utf8');
    const attributes = parseAttributes(serverFinal);
    if (attributes?.has('e')) throw refuse(m, `authentication failed with error: ${attributes.get('e')!}`);
    const signature = attributes?.get('v');
    if (signature === undefined) throw refuse(m, `invalid server-final message '${serverFinal}'`);
    if (!sameBytes(Buffer.from(signature, 'base64'), this.expectedServerSignature)) {
      throw refuse(m, 'invalid server signature in the server-final message: the server does not know the credential');
    }
  }
}
