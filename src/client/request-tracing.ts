/**
 * Publishes every request of a client to the `brook:client:request` diagnostics channel:
 * Cluster wraps each connection it opens (real or injected) in a TracedConnection, and hands
 * traceRequest to KafkaConnection.connect for the requests of the handshake (ApiVersions,
 * SASL), which go before there is a connection to wrap. With no subscriber a request costs
 * one `hasSubscribers` check more.
 */
import type { ApiCodecs } from '../protocol/messages/index.js';
import type { Clock } from '../util/clock.js';
import type { BrokerConnection, RequestExchange, RequestOf, RequestOptions, ResponseOf } from './connection.js';
import { requestChannel, type RequestMessage } from './diagnostics.js';

export class TracedConnection implements BrokerConnection {
  constructor(private readonly inner: BrokerConnection, private readonly clientId: string, private readonly clock: Clock) {}

  get host(): string {
    return this.inner.host;
  }

  get port(): number {
    return this.inner.port;
  }

  get closed(): boolean {
    return this.inner.closed;
  }

  supportedVersion(api: ApiCodecs, options?: { topicIds?: boolean }): number | undefined {
    return this.inner.supportedVersion(api, options);
  }

  request<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: RequestOptions): Promise<ResponseOf<A>> {
    if (!requestChannel.hasSubscribers) return this.inner.request(api, body, options);
    const version = options?.version ?? this.inner.supportedVersion(api) ?? -1;
    return traceRequest(this.clientId, this.inner, this.clock, api, version, (exchange) => this.inner.request(api, body, { ...options, exchange }));
  }

  sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: { version?: number; exchange?: RequestExchange }): Promise<void> {
    if (!requestChannel.hasSubscribers) return this.inner.sendWithoutResponse(api, body, options);
    const version = options?.version ?? this.inner.supportedVersion(api) ?? -1;
    return traceRequest(this.clientId, this.inner, this.clock, api, version, (exchange) => this.inner.sendWithoutResponse(api, body, { ...options, exchange }));
  }

  close(): void {
    this.inner.close();
  }
}

/**
 * Runs one request and publishes its outcome (with no subscriber it only runs it): the
 * response's top-level error code (none for a request without a response), or the error it
 * failed with.
 */
export function traceRequest<T>(clientId: string, broker: { readonly host: string; readonly port: number }, clock: Clock, api: ApiCodecs, apiVersion: number, run: (exchange: RequestExchange) => Promise<T>): Promise<T> {
  const exchange: RequestExchange = { correlationId: null, responseBytes: null };
  if (!requestChannel.hasSubscribers) return run(exchange);
  const started = clock.nowMs();
  const at = { host: broker.host, port: broker.port };
  return run(exchange).then((response) => {
    const code = (response as { errorCode?: unknown } | undefined)?.errorCode;
    publish(clientId, at, clock, api, apiVersion, started, exchange, typeof code === 'number' ? code : null, null);
    return response;
  }, (err: unknown) => {
    publish(clientId, at, clock, api, apiVersion, started, exchange, null, err as Error);
    throw err;
  });
}

function publish(clientId: string, broker: { host: string; port: number }, clock: Clock, api: ApiCodecs, apiVersion: number, started: number, exchange: RequestExchange, errorCode: number | null, error: Error | null): void {
  if (!requestChannel.hasSubscribers) return;
  const message: RequestMessage = {
    clientId, broker, apiKey: api.apiKey, api: api.name, apiVersion, correlationId: exchange.correlationId, responseBytes: exchange.responseBytes,
    durationMs: clock.nowMs() - started, errorCode, error,
  };
  requestChannel.publish(message);
}
