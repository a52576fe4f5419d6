/**
 * The client's view of a Kafka cluster, shared by the consumer, producer and admin client:
 * bootstrap, cached metadata (brokers, partition leaders, topic ids), one connection per
 * broker opened on demand and reopened after a failure, and coordinator lookup.
 * It works against any Kafka-compatible cluster: leaders and coordinators may live on
 * different brokers, and every answer is taken from the cluster, never assumed.
 */
import { Api } from '../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../protocol/errors.js';
import { AuthenticationError, NoBrokerReachableError } from './errors.js';
import { KafkaConnection, parseBootstrap, type BrokerConnection, type ConnectionOptions } from './connection.js';
import type { ClientTls } from './ssl.js';
import type { ClientSasl } from './sasl.js';
import { TracedConnection, traceRequest } from './request-tracing.js';
import { CappedConnection } from './version-caps.js';
import { systemScheduler, type Scheduler } from '../util/clock.js';
import { silentLogger, type Logger } from '../util/log.js';

export { NoBrokerReachableError };

export interface ClusterOptions {
  /** Kafka's `bootstrap.servers`: "host:port[,host:port...]". */
  readonly bootstrapServers: string;
  readonly clientId?: string;
  /** Kafka's `request.timeout.ms` (default 30000). */
  readonly requestTimeoutMs?: number;
  /** Kafka's `socket.connection.setup.timeout.ms` (default 10000). */
  readonly connectTimeoutMs?: number;
  /** Kafka's `retry.backoff.ms` (default 100). */
  readonly retryBackoffMs?: number;
  /** TLS options of every connection (security.protocol=SSL); absent or null for PLAINTEXT. */
  readonly tls?: ClientTls;
  /** The SASL login of every connection (SASL_PLAINTEXT, SASL_SSL); absent or null without SASL. */
  readonly sasl?: ClientSasl;
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  /** Opens connections (default KafkaConnection.connect); tests inject scripted brokers. */
  readonly connectionFactory?: (options: ConnectionOptions) => Promise<BrokerConnection>;
}

export interface BrokerAddress {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

export interface PartitionMetadata {
  readonly partition: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly errorCode: number;
}

export interface TopicMetadata {
  readonly name: string;
  readonly topicId: string;
  readonly errorCode: number;
  readonly internal: boolean;
  /** Indexed by partition number. */
  readonly partitions: readonly PartitionMetadata[];
}

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** FindCoordinator key types. */
export const CoordinatorType = Object.freeze({ GROUP: 0, TRANSACTION: 1 } as const);

export class Cluster {
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  private readonly bootstrap: { host: string; port: number }[];
  private readonly connectTimeoutMs: number;
  private readonly tls: ClientTls;
  private readonly sasl: ClientSasl;
  private authenticationErrorValue: AuthenticationError | null = null;
  private readonly connectionFactory: (options: ConnectionOptions) => Promise<BrokerConnection>;
  private readonly connections = new Map<string, Promise<BrokerConnection>>();
  private readonly brokers = new Map<number, BrokerAddress>();
  private readonly topics = new Map<string, TopicMetadata>();
  private clusterIdValue: string | null = null;
  private controllerIdValue = -1;
  private closed = false;
  /** Aborts connection attempts still in progress when the client closes (they would keep the process alive). */
  private readonly closeController = new AbortController();

  constructor(options: ClusterOptions) {
    this.bootstrap = parseBootstrap(options.bootstrapServers);
    if (this.bootstrap.length === 0) throw new NoBrokerReachableError('bootstrap.servers is empty');
    this.clientId = options.clientId ?? 'brook';
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.tls = options.tls ?? null;
    this.sasl = options.sasl ?? null;
    this.retryBackoffMs = options.retryBackoffMs ?? 100;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.logger = options.logger ?? silentLogger;
    this.connectionFactory = options.connectionFactory ?? ((o) => KafkaConnection.connect(o));
  }

  get clusterId(): string | null {
    return this.clusterIdValue;
  }

  get controllerId(): number {
    return this.controllerIdValue;
  }

  /**
   * The last connection's authentication failure, until a connection authenticates again: as
   * in Java's clients, calls waiting on the cluster (poll, send) fail with it rather than
   * wait for metadata that will not come.
   */
  get authenticationError(): AuthenticationError | null {
    return this.authenticationErrorValue;
  }

  /** Brokers known from the last metadata response. */
  knownBrokers(): BrokerAddress[] {
    return [...this.brokers.values()];
  }

  broker(nodeId: number): BrokerAddress | undefined {
    return this.brokers.get(nodeId);
  }

  /** Cached metadata of a topic (undefined until a refresh included it). */
  topic(name: string): TopicMetadata | undefined {
    return this.topics.get(name);
  }

  cachedTopics(): TopicMetadata[] {
    return [...this.topics.values()];
  }

  /**
   * A connection to `host:port`, opened on first use and reopened after it closed.
   * `channel` 'coordinator' is a connection of its own, as Java's consumer keeps one for the
   * group coordinator: brokers answer a connection's requests in order, so a Heartbeat or
   * JoinGroup queued behind a long-polling Fetch on the same socket would wait up to
   * fetch.max.wait.ms, and every rebalance would be that much slower.
   */
  async connectionTo(address: { host: string; port: number }, signal?: AbortSignal, channel: 'data' | 'coordinator' = 'data'): Promise<BrokerConnection> {
    const key = `${channel === 'data' ? '' : `${channel}@`}${address.host}:${address.port}`;
    for (let tries = 0; ; tries++) {
      if (this.closed) throw new NoBrokerReachableError('the client is closed');
      signal?.throwIfAborted();
      const attempt = this.connections.get(key) ?? this.open(key, address);
      const connection = await untilAborted(attempt.catch(() => null), signal);
      if (connection && !connection.closed) return connection;
      // Failed or closed: forget it (unless someone already replaced it) and try once more
      // with a fresh attempt; a second failure is the caller's to handle.
      if (this.connections.get(key) === attempt) this.connections.delete(key);
      if (!connection) return attempt;
      if (tries >= 1) throw new NoBrokerReachableError(`connection to ${key} closed right after it opened`);
    }
  }

  /**
   * Opens a connection that callers share: no caller's signal aborts it (it is bounded by
   * socket.connection.setup.timeout.ms and the ApiVersions request's timeout, and ends
   * when the client closes); each caller stops waiting on its own signal.
   */
  private open(key: string, address: { host: string; port: number }): Promise<BrokerConnection> {
    const attempt = this.connectionFactory({
      host: address.host, port: address.port, clientId: this.clientId,
      requestTimeoutMs: this.requestTimeoutMs, connectTimeoutMs: this.connectTimeoutMs, signal: this.closeController.signal, tls: this.tls, sasl: this.sasl,
      traceHandshake: (api, version, run) => traceRequest(this.clientId, address, this.scheduler, api, version, run),
    }).then((connection): BrokerConnection => {
      this.authenticationErrorValue = null;
      return new TracedConnection(new CappedConnection(connection), this.clientId, this.scheduler);
    }, (err: unknown) => {
      if (err instanceof AuthenticationError) this.authenticationErrorValue = err;
      throw err;
    });
    this.connections.set(key, attempt);
    attempt.then((connection) => { if (this.closed) connection.close(); }, () => undefined);
    return attempt;
  }

  /** A connection to the broker with this node id (metadata must know it). */
  async connectionToNode(nodeId: number, signal?: AbortSignal): Promise<BrokerConnection> {
    let address = this.brokers.get(nodeId);
    if (!address) {
      await this.refreshMetadata([], signal);
      address = this.brokers.get(nodeId);
    }
    if (!address) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `broker ${nodeId} is not in the cluster metadata`);
    return this.connectionTo(address, signal);
  }

  /** Any reachable broker: known brokers first, then the bootstrap list. */
  async anyConnection(signal?: AbortSignal): Promise<BrokerConnection> {
    const errors: string[] = [];
    const candidates = [...this.brokers.values(), ...this.bootstrap];
    for (const address of candidates) {
      try {
        return await this.connectionTo(address, signal);
      } catch (err) {
        // Another broker of the same cluster would refuse the same login: fail now, not after all of them.
        if (signal?.aborted || err instanceof AuthenticationError) throw err;
        errors.push((err as Error).message);
      }
    }
    const servers = this.bootstrap.map((b) => `${b.host}:${b.port}`).join(',');
    throw new NoBrokerReachableError(`no broker reachable at ${servers}: ${errors.join('; ')}`);
  }

  /**
   * Refreshes brokers and the given topics' metadata (`null`: every topic; `[]`: brokers
   * only), asking `via` or else any broker. Returns the topics from this response.
   */
  async refreshMetadata(topicNames: readonly string[] | null, signal?: AbortSignal, allowAutoTopicCreation = false, via?: BrokerConnection): Promise<TopicMetadata[]> {
    const connection = via !== undefined && !via.closed ? via : await this.anyConnection(signal);
    // Before v4 the field does not exist and brokers decide for themselves (librdkafka's
    // mock cluster only speaks v0-2), so the request simply leaves it out there.
    const version = connection.supportedVersion(Api.Metadata) ?? 0;
    const response = await connection.request(Api.Metadata, {
      // v0 has no null ("all topics") and reads an empty list as all topics.
      topics: topicNames === null ? (version >= 1 ? null : []) : topicNames.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: version >= 4 ? allowAutoTopicCreation : true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    }, { signal });
    // v13's top-level error (KIP-1102): nothing in the response is usable then. Java's client
    // rebootstraps on REBOOTSTRAP_REQUIRED: the brokers learned so far are forgotten, so the
    // next connection goes back to the bootstrap servers.
    const topLevelError = response.errorCode ?? ErrorCode.NONE;
    if (topLevelError !== ErrorCode.NONE) {
      if (topLevelError === ErrorCode.REBOOTSTRAP_REQUIRED) this.brokers.clear();
      throw new KafkaProtocolError(topLevelError, 'Metadata');
    }
    if (response.brokers.length > 0) {
      this.brokers.clear();
      for (const b of response.brokers) this.brokers.set(b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port });
    }
    this.clusterIdValue = response.clusterId ?? this.clusterIdValue;
    this.controllerIdValue = response.controllerId ?? this.controllerIdValue;
    const result: TopicMetadata[] = [];
    for (const t of response.topics) {
      if (t.name === null) continue;
      const partitions: PartitionMetadata[] = [];
      for (const p of t.partitions) {
        partitions[p.partitionIndex] = { partition: p.partitionIndex, leaderId: p.leaderId, leaderEpoch: p.leaderEpoch ?? -1, errorCode: p.errorCode };
      }
      const topic: TopicMetadata = {
        name: t.name, topicId: t.topicId ?? ZERO_UUID, errorCode: t.errorCode, internal: t.isInternal ?? false,
        partitions: Array.from(partitions, (p, i) => p ?? { partition: i, leaderId: -1, leaderEpoch: -1, errorCode: ErrorCode.LEADER_NOT_AVAILABLE }),
      };
      if (t.errorCode === ErrorCode.NONE) this.topics.set(t.name, topic);
      else this.topics.delete(t.name);
      result.push(topic);
    }
    return result;
  }

  /** Forgets a topic's cached leaders so the next lookup refreshes them. */
  invalidateTopic(name: string): void {
    this.topics.delete(name);
  }

  /** Leader broker id of a partition from the cache, refreshing once when unknown. */
  async leaderFor(topic: string, partition: number, signal?: AbortSignal): Promise<number> {
    let meta = this.topics.get(topic);
    if (!meta || !(meta.partitions[partition]?.leaderId >= 0)) {
      await this.refreshMetadata([topic], signal);
      meta = this.topics.get(topic);
    }
    const leader = meta?.partitions[partition]?.leaderId ?? -1;
    if (!meta) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, topic);
    if (partition >= meta.partitions.length) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic}-${partition}`);
    if (leader < 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `${topic}-${partition}`);
    return leader;
  }

  /** FindCoordinator for a group (or transactional id); throws the broker's error when it has one. */
  async findCoordinator(key: string, keyType: number = CoordinatorType.GROUP, signal?: AbortSignal): Promise<BrokerAddress> {
    const connection = await this.anyConnection(signal);
    const version = connection.supportedVersion(Api.FindCoordinator);
    if (version === undefined) throw new KafkaProtocolError(ErrorCode.UNSUPPORTED_VERSION, 'FindCoordinator');
    const response = await connection.request(Api.FindCoordinator, version >= 4
      ? { keyType, coordinatorKeys: [key] }
      : { key, keyType }, { signal });
    const c = version >= 4
      ? response.coordinators?.[0]
      : { nodeId: response.nodeId ?? -1, host: response.host ?? '', port: response.port ?? -1, errorCode: response.errorCode ?? 0, errorMessage: response.errorMessage ?? null };
    if (!c) throw new KafkaProtocolError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `empty FindCoordinator response for ${key}`);
    if (c.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(c.errorCode, c.errorMessage ?? key);
    return { nodeId: c.nodeId, host: c.host, port: c.port };
  }

  /** Waits `retry.backoff.ms` (or `ms`), honouring the signal. */
  backoff(signal?: AbortSignal, ms = this.retryBackoffMs): Promise<void> {
    return this.scheduler.sleep(ms, signal);
  }

  /** Closes every connection; later calls fail. */
  close(): void {
    this.closed = true;
    this.closeController.abort(new NoBrokerReachableError('the client is closed'));
    for (const attempt of this.connections.values()) {
      attempt.then((c) => c.close(), () => undefined);
    }
    this.connections.clear();
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
