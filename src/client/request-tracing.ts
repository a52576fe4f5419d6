/**
 * Publishes every request of a client to the `brook:client:request` diagnostics channel:
 * Cluster wraps each connection it opens (real or injected) in a TracedConnection. With
 * no subscriber a request costs one `hasSubscribers` check more.
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
    const started = this.clock.nowMs();
    const version = options?.version ?? this.inner.supportedVersion(api) ?? -1;
    const exchange: RequestExchange = { correlationId: null, responseBytes: null };
    return this.inner.request(api, body, { ...options, exchange }).then((response) => {
      const code = (response as { errorCode?: unknown }).errorCode;
      this.publish(api, version, started, exchange, typeof code === 'number' ? code : null, null);
      return response;
    }, (err: unknown) => {
      this.publish(api, version, started, exchange, null, err as Error);
      throw err;
    });
  }

  sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: { version?: number; exchange?: RequestExchange }): Promise<void> {
    if (!requestChannel.hasSubscribers) return this.inner.sendWithoutResponse(api, body, options);
    const started = this.clock.nowMs();
    const version = options?.version ?? this.inner.supportedVersion(api) ?? -1;
    const exchange: RequestExchange = { correlationId: null, responseBytes: null };
    return this.inner.sendWithoutResponse(api, body, { ...options, exchange }).then(() => {
      this.publish(api, version, started, exchange, null, null);
    }, (err: unknown) => {
      this.publish(api, version, started, exchange, null, err as Error);
      throw err;
    });
  }

  close(): void {
    this.inner.close();
  }

  private publish(api: ApiCodecs, apiVersion: number, started: number, exchange: RequestExchange, errorCode: number | null, error: Error | null): void {
    if (!requestChannel.hasSubscribers) return;
    const message: RequestMessage = {
      clientId: this.clientId, broker: { host: this.inner.host, port: this.inner.port }, apiKey: api.apiKey, api: api.name,
      apiVersion, correlationId: exchange.correlationId, responseBytes: exchange.responseBytes,
      durationMs: this.clock.nowMs() - started, errorCode, error,
    };
    requestChannel.publish(message);
  }
}
