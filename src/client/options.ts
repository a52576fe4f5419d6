/**
 * Client options, declared once: Kafka's config names in camelCase with Kafka's defaults
 * and bounds. The consumer, producer and admin client each add a table of their own to the
 * common one; every value is checked when the client is constructed and a bad one throws
 * ConfigError naming the option. Millisecond and size options are integers within what
 * the wire (an int32 field) and Node's timers can carry, so a value that cannot be sent
 * fails here instead of failing every request (a JoinGroup that can never be encoded would
 * rejoin for ever).
 */
import type { Scheduler } from '../util/clock.js';
import type { Logger } from '../util/log.js';
import type { BrokerConnection, ConnectionOptions } from './connection.js';
import { parseBootstrap } from './connection.js';
import { ConfigError } from './errors.js';
import { resolveSecurity, resolveSecurityProtocol, type ClientTls, type SecurityProtocol, type SslOptions } from './ssl.js';
import { resolveSasl, type ClientSasl, type SaslOptions } from './sasl.js';

/** The largest int32: the wire's limit for timeouts and sizes, and setTimeout's longest delay. */
export const INT32_MAX = 2_147_483_647;

export interface IntSpec {
  readonly kind: 'int';
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
}

export interface BooleanSpec {
  readonly kind: 'boolean';
  readonly fallback: boolean;
}

export interface ChoiceSpec<T extends string> {
  readonly kind: 'choice';
  readonly fallback: T;
  readonly values: readonly T[];
}

type Spec = IntSpec | BooleanSpec | ChoiceSpec<string>;

/** An integer option, `min`..`max` inclusive (default: non-negative, at most INT32_MAX). */
export function int(fallback: number, min = 0, max = INT32_MAX): IntSpec {
  return { kind: 'int', fallback, min, max };
}

export function bool(fallback: boolean): BooleanSpec {
  return { kind: 'boolean', fallback };
}

export function choice<T extends string>(fallback: T, values: readonly T[]): ChoiceSpec<T> {
  return { kind: 'choice', fallback, values };
}

type ValueOf<S> = S extends IntSpec ? number : S extends BooleanSpec ? boolean : S extends ChoiceSpec<infer T> ? T : never;

/** The option object a table accepts: every entry optional. */
export type OptionsOf<T extends Record<string, Spec>> = { readonly [K in keyof T]?: ValueOf<T[K]> };
/** The resolved values: every entry present. */
export type ResolvedOf<T extends Record<string, Spec>> = { readonly [K in keyof T]: ValueOf<T[K]> };

function check(name: string, spec: Spec, value: unknown): unknown {
  if (value === undefined) return spec.fallback;
  switch (spec.kind) {
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < spec.min || value > spec.max) {
        throw new ConfigError(`${name} must be an integer from ${spec.min} to ${spec.max}, not ${String(value)}`);
      }
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw new ConfigError(`${name} must be true or false, not ${String(value)}`);
      return value;
    case 'choice':
      if (typeof value !== 'string' || !spec.values.includes(value)) {
        throw new ConfigError(`${name} must be one of ${spec.values.join(', ')}, not ${String(value)}`);
      }
      return value;
  }
}

/** Checks every option of `table` in `options` and fills in the defaults. */
export function resolveTable<T extends Record<string, Spec>>(table: T, options: Readonly<Record<string, unknown>>): ResolvedOf<T> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) out[name] = check(name, spec, options[name]);
  return out as ResolvedOf<T>;
}

/** Options every client takes. */
export const COMMON_OPTIONS = {
  /** request.timeout.ms: how long one request may wait for its response. */
  requestTimeoutMs: int(30_000, 1),
  /** retry.backoff.ms: the pause before a retriable failure is retried. */
  retryBackoffMs: int(100),
  /** socket.connection.setup.timeout.ms. */
  connectTimeoutMs: int(10_000, 1),
  /** default.api.timeout.ms: the time limit of calls that take no timeout of their own (commitSync, committed, position, admin calls...). */
  defaultApiTimeoutMs: int(60_000, 1),
  /** metadata.max.age.ms: how often metadata is read again to notice new partitions and topics. */
  metadataMaxAgeMs: int(300_000),
} as const;

export interface CommonClientOptions extends OptionsOf<typeof COMMON_OPTIONS> {
  /** bootstrap.servers: "host:port[,host:port...]". */
  readonly bootstrapServers: string;
  /** client.id, sent with every request. */
  readonly clientId?: string;
  /** security.protocol: PLAINTEXT (default), SSL, SASL_PLAINTEXT or SASL_SSL. */
  readonly securityProtocol?: SecurityProtocol;
  /** Kafka's ssl.* settings, for securityProtocol SSL and SASL_SSL (ssl.ts). */
  readonly ssl?: SslOptions;
  /** sasl.mechanism and the login's username and password, for SASL_PLAINTEXT and SASL_SSL (sasl.ts). */
  readonly sasl?: SaslOptions;
  /** The clock and timers (default: the system's); tests pass a ManualScheduler. */
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  /** How connections are opened (default: TCP); tests inject scripted brokers. */
  readonly connectionFactory?: (options: ConnectionOptions) => Promise<BrokerConnection>;
}

export interface ResolvedCommonOptions extends ResolvedOf<typeof COMMON_OPTIONS> {
  readonly bootstrapServers: string;
  readonly clientId: string;
  /** The TLS options of every connection; null without TLS. */
  readonly tls: ClientTls;
  /** The SASL login of every connection; null without SASL. */
  readonly sasl: ClientSasl;
}

/** The longest string a request can carry (an int16 length): group ids, client ids, instance ids, racks. */
export const MAX_WIRE_STRING_BYTES = 32_767;

/** An optional string option that goes on the wire: non-empty, at most MAX_WIRE_STRING_BYTES of UTF-8. */
export function wireString(name: string, value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${name} must be a non-empty string`);
  if (Buffer.byteLength(value, 'utf8') > MAX_WIRE_STRING_BYTES) throw new ConfigError(`${name} must be at most ${MAX_WIRE_STRING_BYTES} bytes of UTF-8`);
  return value;
}

/** Checks the common options; `clientId` falls back to `defaultClientId`. */
export function resolveCommonOptions(o: CommonClientOptions, defaultClientId: string): ResolvedCommonOptions {
  if (typeof o.bootstrapServers !== 'string') throw new ConfigError('bootstrapServers is required ("host:port[,host:port...]")');
  let servers: unknown[];
  try {
    servers = parseBootstrap(o.bootstrapServers);
  } catch (err) {
    throw new ConfigError(`bootstrapServers: ${(err as Error).message}`);
  }
  if (servers.length === 0) throw new ConfigError('bootstrapServers is empty');
  const clientId = wireString('clientId', o.clientId) ?? defaultClientId;
  const protocol = resolveSecurityProtocol(o.securityProtocol);
  const tls = resolveSecurity(protocol, o.ssl);
  const sasl = resolveSasl(protocol, o.sasl);
  return { ...resolveTable(COMMON_OPTIONS, o as unknown as Readonly<Record<string, unknown>>), bootstrapServers: o.bootstrapServers, clientId, tls, sasl };
}

/** A per-call time limit: the call's own `timeoutMs`, else the client's default.api.timeout.ms. */
export function callTimeoutMs(timeoutMs: number | undefined, fallback: number): number {
  if (timeoutMs === undefined) return fallback;
  return check('timeoutMs', int(fallback), timeoutMs) as number;
}
