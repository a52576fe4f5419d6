/**
 * A connection factory for a client's `connectionFactory` option that opens real
 * connections and records every Fetch exchange on them (session metadata, the partitions
 * sent and forgotten, the answer's session id, error and partitions): what the fetch
 * session tests look at.
 */
import { Api, type ApiCodecs } from '../../src/protocol/messages/index.js';
import { KafkaConnection, type BrokerConnection, type ConnectionOptions, type RequestOf, type RequestOptions, type ResponseOf } from '../../src/client/connection.js';
import type { FetchRequestData, FetchResponseData } from '../../src/protocol/messages/fetch.js';

export interface FetchExchange {
  readonly sessionId: number;
  readonly epoch: number;
  /** Partitions on the wire, as `p<partition>@<offset>`. */
  readonly sent: string[];
  readonly forgotten: number[];
  /** Undefined until answered; null when the request failed. */
  answer?: { sessionId: number; errorCode: number; partitions: number[]; records: number } | null;
}

export function recordingFactory(exchanges: FetchExchange[]): (options: ConnectionOptions) => Promise<BrokerConnection> {
  return async (options) => {
    const inner = await KafkaConnection.connect(options);
    const wrapped: BrokerConnection = {
      get host() { return inner.host; },
      get port() { return inner.port; },
      get closed() { return inner.closed; },
      supportedVersion: (api, o) => inner.supportedVersion(api, o),
      sendWithoutResponse: (api, body, o) => inner.sendWithoutResponse(api, body, o),
      close: () => inner.close(),
      request<A extends ApiCodecs>(api: A, body: RequestOf<A>, o?: RequestOptions): Promise<ResponseOf<A>> {
        if (api !== (Api.Fetch as ApiCodecs)) return inner.request(api, body, o);
        const req = body as unknown as FetchRequestData;
        const exchange: FetchExchange = {
          sessionId: req.sessionId ?? 0, epoch: req.sessionEpoch ?? -1,
          sent: req.topics.flatMap((t) => t.partitions.map((p) => `p${p.partition}@${p.fetchOffset}`)),
          forgotten: (req.forgottenTopicsData ?? []).flatMap((t) => t.partitions),
        };
        exchanges.push(exchange);
        return inner.request(api, body, o).then((response) => {
          const res = response as unknown as FetchResponseData;
          let records = 0;
          for (const t of res.responses) for (const p of t.partitions) records += p.records?.length ?? 0;
          exchange.answer = {
            sessionId: res.sessionId ?? 0, errorCode: res.errorCode ?? 0,
            partitions: res.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex)), records,
          };
          return response;
        }, (err: unknown) => {
          exchange.answer = null;
          throw err;
        });
      },
    };
    return wrapped;
  };
}
