/**
 * The clients' `securityProtocol` and `ssl` options (Kafka's `security.protocol` and
 * `ssl.*`), turned into node:tls connect options. As in Kafka, the broker's certificate is
 * verified (against `ca`, else Node's bundled CAs) and so is its host name
 * (`ssl.endpoint.identification.algorithm=https`, Kafka's default since 2.0):
 * `endpointIdentificationAlgorithm: ''` turns only the host name check off,
 * `rejectUnauthorized: false` every check.
 */
import { isIP } from 'node:net';
import type { ConnectionOptions as TlsConnectOptions } from 'node:tls';
import { ConfigError } from './errors.js';

/** Kafka's security.protocol values the clients speak (SASL's settings are in sasl.ts). */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

/** The security protocol option, checked (default PLAINTEXT). */
export function resolveSecurityProtocol(securityProtocol: unknown): SecurityProtocol {
  const protocol = securityProtocol ?? 'PLAINTEXT';
  if (typeof protocol !== 'string' || !SECURITY_PROTOCOLS.includes(protocol as SecurityProtocol)) {
    throw new ConfigError(`securityProtocol must be one of ${SECURITY_PROTOCOLS.join(', ')}, not ${String(protocol)}`);
  }
  return protocol as SecurityProtocol;
}

type Pem = string | Buffer | readonly (string | Buffer)[];

export interface SslOptions {
  /** CA certificates (PEM) the broker's certificate must chain to (Kafka's truststore); default Node's bundled CAs. */
  readonly ca?: Pem;
  /** The client's certificate chain (PEM), for brokers with ssl.client.auth. */
  readonly cert?: Pem;
  /** The client's private key (PEM). */
  readonly key?: Pem;
  /** The password of an encrypted `key` (Kafka's ssl.key.password). */
  readonly passphrase?: string;
  /** The name sent in SNI and checked against the certificate (default: the broker's host). */
  readonly servername?: string;
  /** Verify the broker's certificate at all (default true). */
  readonly rejectUnauthorized?: boolean;
  /** Kafka's ssl.endpoint.identification.algorithm: `https` (default) checks the host name, `''` does not. */
  readonly endpointIdentificationAlgorithm?: 'https' | '';
}

/** How a client connects: null for PLAINTEXT, else the TLS options of every connection (the host is added per broker). */
export type ClientTls = Readonly<TlsConnectOptions> | null;

export function resolveSecurity(securityProtocol: SecurityProtocol, ssl: SslOptions | undefined): ClientTls {
  if (securityProtocol === 'PLAINTEXT' || securityProtocol === 'SASL_PLAINTEXT') {
    // Kafka ignores ssl.* without TLS; a client given TLS settings that would then talk
    // in the clear is more likely a mistake than a wish.
    if (ssl !== undefined) throw new ConfigError(`ssl is given but securityProtocol is ${securityProtocol} (set securityProtocol: 'SSL' or 'SASL_SSL')`);
    return null;
  }
  const o = ssl ?? {};
  if (typeof o !== 'object' || o === null) throw new ConfigError('ssl must be an object');
  const eia = o.endpointIdentificationAlgorithm ?? 'https';
  if (eia !== 'https' && eia !== '') throw new ConfigError(`ssl.endpointIdentificationAlgorithm must be 'https' or '', not ${String(eia)}`);
  if ((o.cert === undefined) !== (o.key === undefined)) throw new ConfigError('ssl.cert and ssl.key go together');
  const tls: TlsConnectOptions = {
    ...(o.ca !== undefined ? { ca: o.ca as string | Buffer | (string | Buffer)[] } : {}),
    ...(o.cert !== undefined ? { cert: o.cert as string | Buffer | (string | Buffer)[] } : {}),
    ...(o.key !== undefined ? { key: o.key as string | Buffer | (string | Buffer)[] } : {}),
    ...(o.passphrase !== undefined ? { passphrase: o.passphrase } : {}),
    ...(o.servername !== undefined ? { servername: o.servername } : {}),
    rejectUnauthorized: o.rejectUnauthorized ?? true,
    minVersion: 'TLSv1.2',
    ...(eia === '' ? { checkServerIdentity: () => undefined } : {}),
  };
  return tls;
}

/** The options of one TLS connection to `host`: SNI names a host, never an IP address (RFC 6066). */
export function tlsConnectOptions(tls: Readonly<TlsConnectOptions>, host: string): TlsConnectOptions {
  return tls.servername !== undefined || isIP(host) !== 0 ? { ...tls } : { ...tls, servername: host };
}
