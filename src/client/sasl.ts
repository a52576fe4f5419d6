/**
 * The clients' `sasl` option (Kafka's sasl.mechanism and the JAAS login module's username
 * and password) and the SASL exchange every new connection to a SASL_PLAINTEXT or SASL_SSL
 * listener goes through after ApiVersions, as Kafka's SaslClientAuthenticator does it:
 * SaslHandshake v1 naming the mechanism, then SaslAuthenticate requests carrying the
 * mechanism's messages (one for PLAIN; client-first and client-final for SCRAM).
 */
import { Api } from '../protocol/messages/index.js';
import { ErrorCode, errorInfo } from '../protocol/errors.js';
import { encodePlain } from '../protocol/sasl/plain.js';
import { scramMechanism } from '../protocol/sasl/scram.js';
import type { BrokerConnection } from './connection.js';
import type { SecurityProtocol } from './ssl.js';
import { AuthenticationError, ConfigError } from './errors.js';
import { ScramClient } from './scram-client.js';

/** The SASL mechanisms Brook's clients speak (Kafka's GSSAPI and OAUTHBEARER are not among them). */
export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SASL_MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

export interface SaslOptions {
  /** Kafka's sasl.mechanism. */
  readonly mechanism: SaslMechanism;
  readonly username: string;
  readonly password: string;
}

/** The SASL settings of every connection; null when the security protocol has no SASL. */
export type ClientSasl = Readonly<SaslOptions> | null;

export function resolveSasl(securityProtocol: SecurityProtocol, sasl: SaslOptions | undefined): ClientSasl {
  const usesSasl = securityProtocol === 'SASL_PLAINTEXT' || securityProtocol === 'SASL_SSL';
  if (!usesSasl) {
    if (sasl !== undefined) throw new ConfigError(`sasl is given but securityProtocol is ${securityProtocol} (set securityProtocol: 'SASL_SSL' or 'SASL_PLAINTEXT')`);
    return null;
  }
  if (typeof sasl !== 'object' || sasl === null) throw new ConfigError(`securityProtocol ${securityProtocol} needs sasl: { mechanism, username, password }`);
  const { mechanism, username, password } = sasl;
  if (typeof mechanism !== 'string' || !SASL_MECHANISMS.includes(mechanism)) {
    throw new ConfigError(`sasl.mechanism ${String(mechanism)} is not supported by Brook's clients (${SASL_MECHANISMS.join(', ')})`);
  }
  if (typeof username !== 'string' || username === '') throw new ConfigError('sasl.username must be a non-empty string');
  if (typeof password !== 'string' || password === '') throw new ConfigError('sasl.password must be a non-empty string');
  // PLAIN separates its fields with NUL: a name or password holding one cannot be sent.
  if (mechanism === 'PLAIN' && (username.includes('\u0000') || password.includes('\u0000'))) {
    throw new ConfigError('sasl.username and sasl.password cannot contain NUL with PLAIN');
  }
  return { mechanism, username, password };
}

/** What the exchange needs of a connection whose ApiVersions is done. */
export type SaslTransport = Pick<BrokerConnection, 'host' | 'port' | 'supportedVersion' | 'request'>;

/**
 * Authenticates a new connection. Resolves with the session lifetime the broker granted
 * (KIP-368; 0 when it sets none); rejects with AuthenticationError, carrying the broker's
 * error code and message, when the broker or the client refuses.
 */
export async function authenticate(connection: SaslTransport, sasl: Readonly<SaslOptions>): Promise<number> {
  const where = `${connection.host}:${connection.port}`;
  const handshakeVersion = connection.supportedVersion(Api.SaslHandshake);
  const authenticateVersion = connection.supportedVersion(Api.SaslAuthenticate);
  // SaslHandshake v0 (raw tokens after the handshake) is gone from Kafka 4; v1 and SaslAuthenticate are required.
  if (handshakeVersion === undefined || handshakeVersion < 1 || authenticateVersion === undefined) {
    throw new AuthenticationError(ErrorCode.ILLEGAL_SASL_STATE, `the broker at ${where} does not offer SaslHandshake v1 and SaslAuthenticate: it does not speak SASL`);
  }
  const handshake = await connection.request(Api.SaslHandshake, { mechanism: sasl.mechanism }, { version: handshakeVersion });
  if (handshake.errorCode === ErrorCode.UNSUPPORTED_SASL_MECHANISM) {
    throw new AuthenticationError(handshake.errorCode, `client SASL mechanism '${sasl.mechanism}' is not enabled in the broker at ${where}, enabled mechanisms are [${handshake.mechanisms.join(', ')}]`);
  }
  if (handshake.errorCode === ErrorCode.ILLEGAL_SASL_STATE) {
    throw new AuthenticationError(handshake.errorCode, `the broker at ${where} refused SaslHandshake: the listener is not a SASL listener (check security.protocol and the port)`);
  }
  if (handshake.errorCode !== ErrorCode.NONE) {
    throw new AuthenticationError(handshake.errorCode, `SaslHandshake to ${where} failed: ${errorInfo(handshake.errorCode).name}`);
  }
  const exchange = async (authBytes: Buffer) => {
    const response = await connection.request(Api.SaslAuthenticate, { authBytes }, { version: authenticateVersion });
    if (response.errorCode !== ErrorCode.NONE) {
      throw new AuthenticationError(response.errorCode, response.errorMessage ?? `SaslAuthenticate to ${where} failed`);
    }
    return response;
  };
  let last: Awaited<ReturnType<typeof exchange>>;
  const scram = scramMechanism(sasl.mechanism);
  if (scram === undefined) {
    last = await exchange(encodePlain(sasl.username, sasl.password));
  } else {
    const client = new ScramClient(scram, sasl.username, sasl.password);
    const serverFirst = await exchange(client.clientFirst());
    last = await exchange(await client.clientFinal(serverFirst.authBytes));
    client.verifyServerFinal(last.authBytes);
  }
  return Number(last.sessionLifetimeMs ?? 0n);
}
