/**
 * One connection to one Kafka broker (Brook's, Apache Kafka, Redpanda, ...): TCP or TLS, the
 * ApiVersions handshake, SASL authentication (sasl.ts), version negotiation per API, pipelined requests matched to
 * responses by correlation id, timeouts, and cancellation by AbortSignal.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsConnectOptions } from 'node:tls';
import { Api, type ApiCodecs } from '../protocol/messages/index.js';
import type { MessageCodec } from '../protocol/messages/runtime.js';
import { decodeResponse, encodeRequest, responseCorrelationId } from '../protocol/frame.js';
import { FrameReader } from '../protocol/frame-reader.js';
import { capVersion } from './version-caps.js';
import { ErrorCode } from '../protocol/errors.js';
import { AuthenticationError, ConnectionError, RequestTimeoutError, UnsupportedApiVersionError } from './errors.js';
import { tlsConnectOptions, type ClientTls } from './ssl.js';
import { authenticate, type ClientSasl } from './sasl.js';

export { ConnectionError, RequestTimeoutError, UnsupportedApiVersionError };

export type RequestOf<A> = A extends { request: MessageCodec<infer R> } ? R : never;
export type ResponseOf<A> = A extends { response: MessageCodec<infer R> } ? R : never;

export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly clientId?: string;
  readonly connectTimeoutMs?: number;
  /** Kafka's `request.timeout.ms` default. */
  readonly requestTimeoutMs?: number;
  readonly signal?: AbortSignal;
  /** TLS options for security.protocol=SSL or SASL_SSL; absent or null without TLS. */
  readonly tls?: ClientTls;
  /** The SASL login for SASL_PLAINTEXT or SASL_SSL; absent or null without SASL. */
  readonly sasl?: ClientSasl;
  /** Traces the requests of the connection's own handshake (ApiVersions, SASL), as request-tracing.ts traces the rest. */
  readonly traceHandshake?: HandshakeTracer;
}

/** Runs one request under a tracer, which gives it the exchange record to fill in. */
export type HandshakeTracer = <T>(api: ApiCodecs, version: number, run: (exchange: RequestExchange) => Promise<T>) => Promise<T>;

/**
 * The share of a SASL session's lifetime (KIP-368) after which the connection stops being
 * handed out; Java's client re-authenticates at 85-95% of it. A broker with
 * connections.max.reauth.ms closes a connection whose session expired at its next request.
 */
const SESSION_RETIRE_FRACTION = 0.85;

interface Pending {
  readonly api: ApiCodecs;
  readonly version: number;
  readonly resolve: (body: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
  readonly exchange: RequestExchange | undefined;
}

/**
 * What a connection tells a tracer about one request (request-tracing.ts), filled in as it
 * happens: the correlation id once the request is written, the response's size once it is in.
 * A connection that cannot tell (a test's fake) leaves them null.
 */
export interface RequestExchange {
  correlationId: number | null;
  /** The response frame's size in bytes, after its 4-byte length (Kafka's "message size"). */
  responseBytes: number | null;
}

export interface RequestOptions {
  /** Use this version instead of the highest both sides support. */
  readonly version?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Filled in for a tracer; without one the connection records nothing. */
  readonly exchange?: RequestExchange;
}

/**
 * What the client layers need from a broker connection. KafkaConnection implements it; unit
 * tests inject fakes through ClusterOptions.connectionFactory to script a broker's answers.
 */
export interface BrokerConnection {
  readonly host: string;
  readonly port: number;
  readonly closed: boolean;
  /**
   * The version of `api` to send: the highest both sides support, within the client's caps
   * (version-caps.ts; `topicIds`: the request names every topic by id); undefined when none.
   */
  supportedVersion(api: ApiCodecs, options?: { topicIds?: boolean }): number | undefined;
  request<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: RequestOptions): Promise<ResponseOf<A>>;
  /** Writes a request the broker will not answer (Produce with acks=0). */
  sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: { version?: number; exchange?: RequestExchange }): Promise<void>;
  close(): void;
}

const CLIENT_SOFTWARE_NAME = 'brook';
const CLIENT_SOFTWARE_VERSION = '0.1.0';

export class KafkaConnection implements BrokerConnection {
  private readonly pending = new Map<number, Pending>();
  private nextCorrelationId = 1;
  private closedError: Error | null = null;
  /** While connect() runs (ApiVersions, SASL): the client's tracer for those requests. */
  private handshakeTracer: HandshakeTracer | null = null;
  /** Broker's version range per API key, from ApiVersions. */
  private brokerVersions = new Map<number, { min: number; max: number }>();
  /** Set once the SASL session nears its end: no new users; the socket closes when idle. */
  private retired = false;
  private retireTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly frames: FrameReader,
    readonly host: string,
    readonly port: number,
    private readonly clientId: string,
    private readonly requestTimeoutMs: number,
  ) {
    socket.setNoDelay(true);
    socket.on('error', (err) => this.fail(new ConnectionError(`connection to ${host}:${port} failed: ${err.message}`, { cause: err })));
    socket.on('close', () => this.fail(new ConnectionError(`connection to ${host}:${port} closed`)));
  }

  static async connect(options: ConnectionOptions): Promise<KafkaConnection> {
    const { host, port } = options;
    // Reads go into memory the FrameReader chooses (no 'data' events): a large response is
    // read straight into its own buffer. Nothing arrives before the first request, which
    // the constructed connection sends, so `received` is set by then.
    const frames = new FrameReader();
    let received = (_n: number): void => {};
    const socket = await new Promise<Socket>((resolve, reject) => {
      const onread = { buffer: () => frames.readBuffer(), callback: (n: number): boolean => { received(n); return true; } };
      const tls = options.tls ?? null;
      // (node:tls takes `onread` as node:net does; its type declarations leave it out.)
      const s = tls === null ? netConnect({ host, port, onread }) : tlsConnect({ ...tlsConnectOptions(tls, host), host, port, onread } as TlsConnectOptions);
      // Every way out removes the abort listener: the signal may be the client's, shared by many attempts.
      const settle = (err: Error | null): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (err === null) {
          resolve(s);
          return;
        }
        s.destroy();
        reject(err);
      };
      const timer = setTimeout(() => settle(new ConnectionError(`connection to ${host}:${port} timed out`)), options.connectTimeoutMs ?? 10_000);
      const onAbort = (): void => settle(new ConnectionError('connect aborted', { cause: options.signal?.reason }));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      // TLS: connected once the handshake is done and the broker's certificate checked.
      s.once(tls === null ? 'connect' : 'secureConnect', () => settle(null));
      s.once('error', (err) => settle(new ConnectionError(`cannot connect to ${host}:${port}: ${err.message}`, { cause: err })));
    });
    const connection = new KafkaConnection(socket, frames, host, port, options.clientId ?? 'brook', options.requestTimeoutMs ?? 30_000);
    connection.handshakeTracer = options.traceHandshake ?? null;
    received = (n) => connection.onReceived(n);
    // The signal also ends the handshake: a broker that accepts but never answers would
    // otherwise hold the attempt (and the process) for request.timeout.ms.
    const onAbort = (): void => connection.close();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      options.signal?.throwIfAborted();
      await connection.negotiate();
      if (options.sasl) connection.retireAfter(await authenticate(connection, options.sasl));
    } catch (err) {
      connection.close();
      if (err instanceof AuthenticationError && options.sasl) err.mechanism ??= options.sasl.mechanism;
      throw err;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      // From here on whoever holds the connection traces its requests (TracedConnection).
      connection.handshakeTracer = null;
    }
    return connection;
  }

  /** ApiVersions at our newest version; a broker that does not know it answers v0 with its ranges. */
  private async negotiate(): Promise<void> {
    const api = Api.ApiVersions;
    const body = { clientSoftwareName: CLIENT_SOFTWARE_NAME, clientSoftwareVersion: CLIENT_SOFTWARE_VERSION };
    let response = await this.send(api, api.request.highestVersion, body);
    if (response.errorCode === ErrorCode.UNSUPPORTED_VERSION) {
      const theirs = response.apiKeys.find((k) => k.apiKey === api.apiKey);
      const version = Math.min(theirs?.maxVersion ?? 0, api.request.highestVersion);
      response = await this.send(api, version, body);
    }
    if (response.errorCode !== ErrorCode.NONE) {
      throw new ConnectionError(`ApiVersions failed with error ${response.errorCode}`);
    }
    this.brokerVersions = new Map(response.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
  }

  /**
   * Brook's clients do not re-authenticate a live connection (KIP-368's client side): before
   * the session ends the connection is retired instead (closed reads true, so the cluster
   * opens and authenticates a new one), and its socket closes once its last response is in.
   */
  private retireAfter(sessionLifetimeMs: number): void {
    if (sessionLifetimeMs <= 0) return;
    this.retireTimer = setTimeout(() => {
      this.retired = true;
      if (this.pending.size === 0) this.close();
    }, Math.min(Math.floor(sessionLifetimeMs * SESSION_RETIRE_FRACTION), 2_147_483_647));
    this.retireTimer.unref();
  }

  supportedVersion(api: ApiCodecs, options: { topicIds?: boolean } = {}): number | undefined {
    const theirs = this.brokerVersions.get(api.apiKey);
    if (!theirs) return undefined;
    const high = capVersion(api, Math.min(theirs.max, api.request.highestVersion), options);
    const low = Math.max(theirs.min, api.request.lowestVersion);
    return high >= low ? high : undefined;
  }

  async request<A extends ApiCodecs>(api: A, body: RequestOf<A>, options: RequestOptions = {}): Promise<ResponseOf<A>> {
    const version = options.version ?? this.supportedVersion(api);
    if (version === undefined) {
      throw new UnsupportedApiVersionError(`the broker at ${this.host}:${this.port} does not support ${api.name}`);
    }
    return this.send(api, version, body, options) as Promise<ResponseOf<A>>;
  }

  /**
   * Writes a request the broker never answers (Produce with acks=0: Kafka sends no
   * response). Resolves once the bytes are handed to the socket.
   */
  sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>, options: { version?: number; exchange?: RequestExchange } = {}): Promise<void> {
    if (this.closedError) return Promise.reject(this.closedError);
    const version = options.version ?? this.supportedVersion(api);
    if (version === undefined) {
      return Promise.reject(new UnsupportedApiVersionError(`the broker at ${this.host}:${this.port} does not support ${api.name}`));
    }
    const correlationId = this.nextCorrelationId++ & 0x7fffffff;
    const chunks = encodeRequest({ api, apiVersion: version, correlationId, clientId: this.clientId, body });
    if (options.exchange !== undefined) options.exchange.correlationId = correlationId;
    return new Promise<void>((resolve, reject) => {
      this.socket.cork();
      for (let i = 0; i < chunks.length; i++) {
        if (i < chunks.length - 1) this.socket.write(chunks[i]!);
        else this.socket.write(chunks[i]!, (err) => (err ? reject(new ConnectionError(`${api.name} write failed: ${err.message}`, { cause: err })) : resolve()));
      }
      this.socket.uncork();
    });
  }

  private send<A extends ApiCodecs>(api: A, version: number, body: RequestOf<A>, options: RequestOptions = {}): Promise<ResponseOf<A>> {
    const tracer = this.handshakeTracer;
    if (tracer !== null && options.exchange === undefined) return tracer(api, version, (exchange) => this.write(api, version, body, { ...options, exchange }));
    return this.write(api, version, body, options);
  }

  private write<A extends ApiCodecs>(api: A, version: number, body: RequestOf<A>, options: RequestOptions): Promise<ResponseOf<A>> {
    if (this.closedError) return Promise.reject(this.closedError);
    const correlationId = this.nextCorrelationId++ & 0x7fffffff;
    const chunks = encodeRequest({ api, apiVersion: version, correlationId, clientId: this.clientId, body });
    return new Promise<ResponseOf<A>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
      const signal = options.signal;
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        signal?.removeEventListener('abort', onAbort);
        reject(new RequestTimeoutError(`${api.name} to ${this.host}:${this.port} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = (): void => {
        clearTimeout(timer);
        this.pending.delete(correlationId);
        reject(new ConnectionError(`${api.name} aborted`, { cause: signal?.reason }));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const exchange = options.exchange;
      if (exchange !== undefined) exchange.correlationId = correlationId;
      this.pending.set(correlationId, {
        api, version, timer, exchange,
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v as ResponseOf<A>);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      this.socket.cork();
      for (const chunk of chunks) this.socket.write(chunk);
      this.socket.uncork();
    });
  }

  private onReceived(bytes: number): void {
    let frames: Buffer[];
    try {
      frames = this.frames.received(bytes);
    } catch (err) {
      this.fail(new ConnectionError(`bad frame from ${this.host}:${this.port}: ${(err as Error).message}`));
      this.socket.destroy();
      return;
    }
    for (const frame of frames) {
      let correlationId: number;
      try {
        correlationId = responseCorrelationId(frame);
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      const p = this.pending.get(correlationId);
      if (!p) continue; // timed out or aborted: its response is dropped
      this.pending.delete(correlationId);
      clearTimeout(p.timer);
      if (p.exchange !== undefined) p.exchange.responseBytes = frame.length;
      try {
        p.resolve(decodeResponse(frame, p.api, p.version).body);
      } catch (err) {
        p.reject(err as Error);
      }
    }
    if (this.retired && this.pending.size === 0) this.close();
  }

  private fail(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    if (this.retireTimer !== null) clearTimeout(this.retireTimer);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }

  get closed(): boolean {
    return this.closedError !== null || this.retired;
  }

  close(): void {
    this.fail(new ConnectionError(`connection to ${this.host}:${this.port} closed by the client`));
    this.socket.destroy();
  }
}

/** `host:port[,host:port...]` as Kafka's bootstrap.servers. */
export function parseBootstrap(servers: string): { host: string; port: number }[] {
  return servers.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    const colon = s.lastIndexOf(':');
    const host = colon > 0 ? s.slice(0, colon).replace(/^\[|\]$/g, '') : s;
    const port = colon > 0 ? Number(s.slice(colon + 1)) : 9092;
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`bad bootstrap server '${s}'`);
    return { host, port };
  });
}
