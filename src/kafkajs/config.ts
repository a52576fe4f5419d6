/**
 * KafkaJS's client configuration (`new Kafka({ clientId, brokers, ssl, sasl, ... })`) turned
 * into Brook's common client options. `brokers` may be a function (sync or async) KafkaJS
 * calls when it connects; it is called here each time a client connects.
 */
import type { CommonClientOptions } from '../client/options.js';
import type { SaslMechanism } from '../client/sasl.js';
import type { SslOptions } from '../client/ssl.js';
import { KafkaJSNonRetriableError } from './errors.js';
import type { logCreator } from './logger.js';

export interface RetryOptions {
  /** The first pause before a retry (KafkaJS: 300 ms); Brook's retryBackoffMs. */
  maxRetryTime?: number;
  initialRetryTime?: number;
  factor?: number;
  multiplier?: number;
  retries?: number;
  restartOnFailure?: (e: Error) => Promise<boolean>;
}

export interface SASLOptions {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512' | string;
  username: string;
  password: string;
}

export type BrokersFunction = () => string[] | Promise<string[]>;

export interface KafkaConfig {
  brokers: string[] | BrokersFunction;
  clientId?: string;
  ssl?: boolean | (SslOptions & Record<string, unknown>);
  sasl?: SASLOptions;
  connectionTimeout?: number;
  authenticationTimeout?: number;
  reauthenticationThreshold?: number;
  requestTimeout?: number;
  enforceRequestTimeout?: boolean;
  retry?: RetryOptions;
  logLevel?: number;
  logCreator?: logCreator;
}

const MECHANISMS: Record<string, SaslMechanism> = { plain: 'PLAIN', 'scram-sha-256': 'SCRAM-SHA-256', 'scram-sha-512': 'SCRAM-SHA-512' };

/** KafkaJS's mechanisms brook/kafkajs cannot speak, and why. */
const UNSUPPORTED_MECHANISMS: Record<string, string> = {
  oauthbearer: 'SASL OAUTHBEARER mechanism is not supported by brook/kafkajs: Brook\'s client and broker do not implement it (use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)',
  aws: 'SASL AWS mechanism is not supported by brook/kafkajs: it is Amazon MSK\'s IAM authentication, not a Kafka mechanism (use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)',
};

/** KafkaJS's defaults (connectionTimeout 1000 ms, requestTimeout 30000 ms, first retry after 300 ms). */
export const KAFKAJS_DEFAULTS = { clientId: 'kafkajs', connectionTimeout: 1_000, requestTimeout: 30_000, initialRetryTime: 300, maxRetryTime: 30_000, retries: 5 } as const;

/** Brook's common options for this configuration, with the broker list resolved now. */
export async function commonOptions(config: KafkaConfig): Promise<CommonClientOptions> {
  const brokers = typeof config.brokers === 'function' ? await config.brokers() : config.brokers;
  if (!Array.isArray(brokers) || brokers.length === 0) throw new KafkaJSNonRetriableError('Failed to connect: brokers array is empty or invalid');
  const sasl = config.sasl;
  const mechanism = sasl ? MECHANISMS[String(sasl.mechanism).toLowerCase()] : undefined;
  if (sasl && mechanism === undefined) throw new KafkaJSNonRetriableError(UNSUPPORTED_MECHANISMS[String(sasl.mechanism).toLowerCase()] ?? `SASL ${String(sasl.mechanism)} mechanism is not supported`);
  const tls = config.ssl !== undefined && config.ssl !== false;
  const securityProtocol = sasl ? (tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : tls ? 'SSL' : 'PLAINTEXT';
  const ssl = typeof config.ssl === 'object' ? pickSsl(config.ssl) : undefined;
  return {
    bootstrapServers: brokers.join(','),
    clientId: config.clientId ?? KAFKAJS_DEFAULTS.clientId,
    securityProtocol,
    ...(ssl ? { ssl } : {}),
    ...(sasl && mechanism ? { sasl: { mechanism, username: sasl.username, password: sasl.password } } : {}),
    connectTimeoutMs: config.connectionTimeout ?? KAFKAJS_DEFAULTS.connectionTimeout,
    requestTimeoutMs: config.requestTimeout ?? KAFKAJS_DEFAULTS.requestTimeout,
    retryBackoffMs: config.retry?.initialRetryTime ?? KAFKAJS_DEFAULTS.initialRetryTime,
  };
}

/** Node's tls options that Brook's SslOptions has (KafkaJS passes its `ssl` object to tls.connect). */
function pickSsl(o: SslOptions & Record<string, unknown>): SslOptions {
  const out: Record<string, unknown> = {};
  for (const k of ['ca', 'cert', 'key', 'passphrase', 'servername', 'rejectUnauthorized'] as const) if (o[k] !== undefined) out[k] = o[k];
  // KafkaJS (through tls.connect) checks the host name unless checkServerIdentity says otherwise.
  if (typeof o['checkServerIdentity'] === 'function') out['endpointIdentificationAlgorithm'] = '';
  return out as SslOptions;
}
