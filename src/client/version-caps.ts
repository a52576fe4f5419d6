/**
 * The APIs Brook's client sends below the newest version its codecs have, and why: every
 * other API goes out at the highest version both the broker and the codecs support.
 * KafkaConnection applies this table, and Cluster wraps every connection it opens in a
 * CappedConnection, so that injected ones (the unit tests' scripted brokers) follow it too.
 */
import type { ApiCodecs, ApiName } from '../protocol/messages/index.js';
import type { BrokerConnection, RequestExchange, RequestOf, RequestOptions, ResponseOf } from './connection.js';

export interface VersionCap {
  /** The highest version the client sends. */
  readonly max: number;
  /**
   * The cap is for requests that name topics: a request naming every topic by id (the
   * caller knows all their ids) may go up to the negotiated version.
   */
  readonly byName?: true;
  readonly why: string;
}

export const CLIENT_VERSION_CAPS: Readonly<Partial<Record<ApiName, VersionCap>>> = {
  // Brook's producer speaks transaction version 1, as Java's client with TV2 off: it stays
  // below the versions that mean TV2 to a broker.
  Produce: { max: 11, why: 'transaction version 1: v12 adds a transactional batch\'s partition to its transaction (KIP-890), v13 names topics by id' },
  EndTxn: { max: 4, why: 'transaction version 1: v5 bumps the producer epoch at every end (KIP-890)' },
  TxnOffsetCommit: { max: 4, why: 'transaction version 1: v5 adds the group to the transaction (KIP-890), v6 names topics by id' },
  AddPartitionsToTxn: { max: 3, why: 'v4+ is the brokers\' batched verification request (KIP-890), not a client\'s' },
  // As Java's: its classic consumer and admin client name topics (OffsetCommit and
  // OffsetFetch up to v9); its consumer-protocol consumer names them by id when it knows
  // every id (CommitRequestManager), and so does Brook's.
  OffsetCommit: { max: 9, byName: true, why: 'v10 names topics by id: sent only when every topic\'s id is known' },
  OffsetFetch: { max: 9, byName: true, why: 'v10 names topics by id: sent only when every topic\'s id is known' },
};

/** `version` (the negotiated one) within the client's cap for `api`. */
export function capVersion(api: ApiCodecs, version: number, options: { topicIds?: boolean } = {}): number {
  const cap = CLIENT_VERSION_CAPS[api.name as ApiName];
  if (cap === undefined || (cap.byName === true && options.topicIds === true)) return version;
  return Math.min(version, cap.max);
}

/** A connection whose versions stay within the client's caps; requests without a version get the capped one. */
export class CappedConnection implements BrokerConnection {
  constructor(private readonly inner: BrokerConnection) {}

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
    const version = this.inner.supportedVersion(api);
    return version === undefined ? undefined : capVersion(api, version, options);
  }

  request<A extends ApiCodecs>(api: A, body: RequestOf<A>, options: RequestOptions = {}): Promise<ResponseOf<A>> {
    return this.inner.request(api, body, this.withVersion(api, options));
  }

  sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>, options: { version?: number; exchange?: RequestExchange } = {}): Promise<void> {
    return this.inner.sendWithoutResponse(api, body, this.withVersion(api, options));
  }

  close(): void {
    this.inner.close();
  }

  private withVersion<O extends { version?: number }>(api: ApiCodecs, options: O): O {
    if (options.version !== undefined) return options;
    const version = this.supportedVersion(api);
    return version === undefined ? options : { ...options, version };
  }
}
