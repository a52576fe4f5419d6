/**
 * The TLS side of an SSL listener, from Kafka's `ssl.*` broker settings: PEM keystores and
 * truststores only (Kafka's `ssl.keystore.type=PEM`; JKS and PKCS12 need a JVM's KeyStore).
 * The keystore is either one file (`ssl.keystore.location`: the certificate chain, then the
 * private key) or inline PEM (`ssl.keystore.certificate.chain` + `ssl.keystore.key`), with
 * `ssl.key.password` for an encrypted key; the truststore (`ssl.truststore.location` or
 * inline `ssl.truststore.certificates`) holds the CAs client certificates are checked
 * against. `listener.name.<name>.ssl.*` overrides a setting for one listener, as in Kafka.
 * Everything is read and checked when the broker starts: a bad file fails the start, not a
 * client's handshake.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, type TlsOptions } from 'node:tls';
import type { BrokerConfig } from './config.js';
import type { ListenerPlan } from './listener-config.js';
import { splitPemKeystore } from '../util/pem.js';

export type SslClientAuth = 'required' | 'requested' | 'none';

/** Kafka's `ssl.*` broker settings, camelCased. */
export interface BrokerSslConfig {
  /** `ssl.keystore.type`: only PEM. */
  readonly keystoreType?: string;
  /** `ssl.keystore.location`: a PEM file with the certificate chain followed by the private key. */
  readonly keystoreLocation?: string;
  /** `ssl.keystore.certificate.chain`: the certificate chain as inline PEM. */
  readonly keystoreCertificateChain?: string;
  /** `ssl.keystore.key`: the private key as inline PEM. */
  readonly keystoreKey?: string;
  /** `ssl.key.password`: the password of an encrypted private key. */
  readonly keyPassword?: string;
  /** `ssl.truststore.type`: only PEM. */
  readonly truststoreType?: string;
  /** `ssl.truststore.location`: a PEM file of the CA certificates client certificates must chain to. */
  readonly truststoreLocation?: string;
  /** `ssl.truststore.certificates`: those certificates as inline PEM. */
  readonly truststoreCertificates?: string;
  /** `ssl.client.auth` (default none). */
  readonly clientAuth?: SslClientAuth;
}

/** The broker property names, as Kafka spells them, of each setting. */
export const SSL_PROPERTIES: Readonly<Record<keyof BrokerSslConfig, string>> = {
  keystoreType: 'ssl.keystore.type',
  keystoreLocation: 'ssl.keystore.location',
  keystoreCertificateChain: 'ssl.keystore.certificate.chain',
  keystoreKey: 'ssl.keystore.key',
  keyPassword: 'ssl.key.password',
  truststoreType: 'ssl.truststore.type',
  truststoreLocation: 'ssl.truststore.location',
  truststoreCertificates: 'ssl.truststore.certificates',
  clientAuth: 'ssl.client.auth',
};

const BY_PROPERTY = new Map(Object.entries(SSL_PROPERTIES).map(([k, v]) => [v, k as keyof BrokerSslConfig]));

/** The BrokerSslConfig key of an `ssl.*` property, or undefined when Brook does not know it. */
export function sslSettingOf(property: string): keyof BrokerSslConfig | undefined {
  return BY_PROPERTY.get(property);
}

export function parseClientAuth(value: string): SslClientAuth {
  const v = value.toLowerCase();
  if (v === 'required' || v === 'requested' || v === 'none') return v;
  throw new Error(`Invalid value ${value} for configuration ssl.client.auth: String must be one of: required, requested, none`);
}

function read(path: string, property: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${property}: cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
}

function checkPemType(type: string | undefined, property: string): void {
  if (type !== undefined && type.toUpperCase() !== 'PEM') {
    throw new Error(`${property}=${type} is not supported: Brook reads PEM key and trust stores only (${property}=PEM)`);
  }
}

/** An SSL listener's node:tls server options and how it treats client certificates. */
export interface SslListener {
  readonly options: TlsOptions;
  readonly clientAuth: SslClientAuth;
}

/**
 * How long a client may take to complete its TLS handshake: connections.max.idle.ms (Kafka
 * closes a connection stuck in its handshake as an idle one), but at most 10 s, so clients
 * that connect and say nothing cannot hold sockets for Kafka's 10 minutes. A real client's
 * handshake takes milliseconds.
 */
const MAX_HANDSHAKE_MS = 10_000;

export function handshakeTimeoutMs(connectionsMaxIdleMs: number): number {
  return connectionsMaxIdleMs < 0 ? MAX_HANDSHAKE_MS : Math.max(1, Math.min(connectionsMaxIdleMs, MAX_HANDSHAKE_MS));
}

/** The TLS settings of every SSL and SASL_SSL listener of the plan, by listener name; throws on a bad setting. */
export function sslListeners(plan: ListenerPlan, config: BrokerConfig): Map<string, SslListener> {
  const perListener = new Map(Object.entries(config.listenerSsl ?? {}).map(([name, c]) => [name.toUpperCase(), c]));
  const result = new Map<string, SslListener>();
  for (const l of plan.listeners) {
    if (l.securityProtocol !== 'SSL' && l.securityProtocol !== 'SASL_SSL') continue;
    // As in Kafka, ssl.client.auth applies to a SASL_SSL listener only when set for that
    // listener (listener.name.<name>.ssl.client.auth): SASL is its client authentication.
    const common = l.securityProtocol === 'SASL_SSL' && config.ssl?.clientAuth !== undefined ? { ...config.ssl, clientAuth: undefined } : config.ssl;
    const ssl = tlsServerOptions(l.name, common, perListener.get(l.name));
    result.set(l.name, { ...ssl, options: { ...ssl.options, handshakeTimeout: handshakeTimeoutMs(config.connectionsMaxIdleMs) } });
  }
  return result;
}

/**
 * node:tls server options for listener `listener` (its `listener.name.<name>.ssl.*` settings
 * over the broker-wide ones). Throws, naming the property, when a setting is missing or bad.
 */
export function tlsServerOptions(listener: string, common: BrokerSslConfig | undefined, perListener: BrokerSslConfig | undefined): SslListener {
  const c: BrokerSslConfig = { ...common, ...perListener };
  const prefix = perListener !== undefined ? `listener.name.${listener.toLowerCase()}.` : '';
  checkPemType(c.keystoreType, `${prefix}ssl.keystore.type`);
  checkPemType(c.truststoreType, `${prefix}ssl.truststore.type`);
  let identity: { cert: string; key: string };
  if (c.keystoreLocation !== undefined) {
    identity = splitPemKeystore(read(c.keystoreLocation, 'ssl.keystore.location'), `ssl.keystore.location ${c.keystoreLocation}`);
  } else if (c.keystoreCertificateChain !== undefined && c.keystoreKey !== undefined) {
    identity = { cert: c.keystoreCertificateChain, key: c.keystoreKey };
  } else {
    throw new Error(`listener ${listener} is SSL but has no keystore: set ssl.keystore.location (PEM: certificate chain, then private key) `
      + 'or ssl.keystore.certificate.chain and ssl.keystore.key');
  }
  const ca = c.truststoreLocation !== undefined ? read(c.truststoreLocation, 'ssl.truststore.location') : c.truststoreCertificates;
  const clientAuth = parseClientAuth(c.clientAuth ?? 'none');
  if (clientAuth !== 'none' && ca === undefined) {
    throw new Error(`listener ${listener}: ssl.client.auth=${clientAuth} needs a truststore (ssl.truststore.location) to check client certificates against`);
  }
  const options: TlsOptions = {
    cert: identity.cert,
    key: identity.key,
    ...(c.keyPassword !== undefined ? { passphrase: c.keyPassword } : {}),
    ...(ca !== undefined ? { ca } : {}),
    // Kafka's default ssl.enabled.protocols: TLSv1.2 and TLSv1.3.
    minVersion: 'TLSv1.2',
    requestCert: clientAuth !== 'none',
    // The broker checks the client's certificate itself once the handshake is done (see
    // Broker's acceptTls): Node would otherwise drop a connection whose certificate does not
    // verify without telling the server, so it could be neither logged nor counted.
    rejectUnauthorized: false,
  };
  try {
    // Loads the key and certificates now, so a wrong password or a mismatched key fails the start.
    createSecureContext(options);
  } catch (err) {
    throw new Error(`listener ${listener}: invalid keystore or truststore: ${(err as Error).message}`, { cause: err });
  }
  return { options, clientAuth };
}
