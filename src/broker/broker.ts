/**
 * The broker: a TCP listener, the handler table, storage, and the periodic work
 * (retention, the log cleaner). `Broker.start` returns once it accepts connections; `stop` closes the
 * listener and connections, then flushes and closes storage.
 */
import { createServer, type Server } from 'node:net';
import { brokerConfig, advertisedHost, validateGroupConfig, type BrokerConfig } from './config.js';
import { systemClock, type BrokerContext, type Clock } from './broker-context.js';
import { createAppendNotifier } from './append-notifier.js';
import { Connection, type ConnectionInfo } from './connection.js';
import { ConnectionMonitor, type ConnectionStats } from './connection-stats.js';
import { CoordinatorRuntime } from './coordinator-runtime.js';
import { ALL_HANDLERS } from './handlers/index.js';
import { BrokerMetrics } from './metrics/broker-metrics.js';
import { MetricsServer } from './metrics/metrics-server.js';
import type { ApiHandler } from './handler.js';
import type { LogCleanerStats, Storage, TopicMetadata } from '../storage/types.js';
import { openFileStorage, openMemoryStorage, ReadBufferPool, type FileSystem } from '../storage/index.js';
import { createLogger, type Logger } from '../util/log.js';

export interface BrokerOptions extends Partial<BrokerConfig> {
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Use this storage instead of opening one from `dataDir`. */
  readonly storage?: Storage;
  /** The file system the storage works through (default node:fs); tests inject disk faults here. */
  readonly fileSystem?: FileSystem;
}

/** What an operator reads about the broker (the metrics endpoint exports these counters too). */
export interface BrokerStats {
  readonly connections: Readonly<ConnectionStats>;
}

export class Broker {
  private readonly connections = new Set<Connection>();
  private retentionTimer: NodeJS.Timeout | null = null;
  private cleanerTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly config: BrokerConfig,
    private readonly server: Server,
    readonly context: BrokerContext,
    private readonly monitor: ConnectionMonitor,
    private readonly metricsServer: MetricsServer | null,
  ) {}

  /** The port of the metrics endpoint (GET /metrics, /health); null when it serves none. */
  get metricsPort(): number | null {
    return this.metricsServer?.port ?? null;
  }

  /** Counters since start-up (a copy: it does not change as the broker goes on). */
  get stats(): BrokerStats {
    return { connections: { ...this.monitor.stats } };
  }

  /** Each open connection's levels and peaks (in flight, unwritten, buffered, throttling). */
  connectionInfo(): ConnectionInfo[] {
    return [...this.connections].map((c) => c.info());
  }

  get host(): string {
    return this.context.advertisedHost;
  }

  get port(): number {
    return this.context.advertisedPort;
  }

  get storage(): Storage {
    return this.context.storage;
  }

  /** Creates a topic directly in storage (tests: e.g. with a given topic id) and tells the coordinator. */
  createTopic(name: string, partitions: number, options: { topicId?: string; configs?: Record<string, string> } = {}): void {
    this.context.storage.createTopic(name, partitions, options.configs ?? {}, { topicId: options.topicId });
    this.context.groups.topicsChanged();
  }

  static async start(options: BrokerOptions = {}): Promise<Broker> {
    const { log: givenLog, clock: givenClock, storage: givenStorage, fileSystem, ...overrides } = options;
    const config = brokerConfig(overrides);
    validateGroupConfig(config);
    const log = givenLog ?? createLogger('broker');
    const clock = givenClock ?? systemClock;
    const storageOptions = { flush: config.flush, topicDefaults: config.topicDefaults, log: log.child('storage'), clock: () => clock.nowMs(), fileSystem };
    const storage = givenStorage
      ?? (config.dataDir === null ? openMemoryStorage(storageOptions) : await openFileStorage(config.dataDir, storageOptions));

    let groups: CoordinatorRuntime;
    try {
      groups = CoordinatorRuntime.start({
        storage, clock, log: log.child('coordinator'), offsetsTopicSegmentBytes: config.offsetsTopicSegmentBytes,
        coordinator: {
          initialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
          minSessionTimeoutMs: config.groupMinSessionTimeoutMs,
          maxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
          maxGroupSize: config.groupMaxSize,
          offsetsRetentionMs: config.offsetsRetentionMs,
          offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
          consumerGroupSessionTimeoutMs: config.groupConsumerSessionTimeoutMs,
          consumerGroupHeartbeatIntervalMs: config.groupConsumerHeartbeatIntervalMs,
          consumerGroupMaxSize: config.groupConsumerMaxSize,
          consumerGroupAssignors: config.groupConsumerAssignors,
          consumerGroupAssignmentIntervalMs: config.groupConsumerAssignmentIntervalMs,
          consumerGroupMigrationPolicy: config.groupConsumerMigrationPolicy,
        },
      });
    } catch (err) {
      if (givenStorage === undefined) await storage.close();
      throw err;
    }

    const server = createServer({ noDelay: true });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: config.port, host: config.host, backlog: config.listenBacklog }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      // The port is taken (or the host is not ours): undo the start, so that the data
      // directory's lock is released and an embedding program can start again in this process.
      log.error('cannot listen', { host: config.host, port: config.port, err });
      await groups.stop();
      if (givenStorage === undefined) await storage.close();
      throw err;
    }
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    let metricsServer: MetricsServer | null = null;
    if (config.metricsPort !== null) {
      try {
        metricsServer = await MetricsServer.listen(config.host, config.metricsPort, log.child('metrics'));
      } catch (err) {
        log.error('cannot listen for metrics', { host: config.host, port: config.metricsPort, err });
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await groups.stop();
        if (givenStorage === undefined) await storage.close();
        throw err;
      }
    }

    const handlers = new Map<number, ApiHandler>(ALL_HANDLERS.map((h) => [h.api.apiKey, h as ApiHandler]));
    const context: BrokerContext = {
      config,
      storage,
      log,
      clock,
      advertisedHost: advertisedHost(config),
      advertisedPort: port,
      handlers,
      appends: createAppendNotifier(),
      readBuffers: new ReadBufferPool(),
      groups,
      metrics: new BrokerMetrics(ALL_HANDLERS.map((h) => h.api)),
      topicForProduceOrMetadata: (name, allowAutoCreate) => autoCreate(context, name, allowAutoCreate),
    };
    const monitor = new ConnectionMonitor(log, config.maxConnections);
    const broker = new Broker(config, server, context, monitor, metricsServer);
    server.on('connection', (socket) => {
      // max.connections open: the new connection is closed at once. (Kafka's acceptor instead
      // stops accepting until one closes, leaving clients waiting in the listen backlog until
      // their connection timeout; a closed connection tells them at once.) Checked here rather
      // than with Node's server.maxConnections, which takes 0 to mean no limit.
      if (broker.connections.size >= config.maxConnections) {
        socket.on('error', () => undefined);
        socket.destroy();
        monitor.rejected(`/${socket.remoteAddress ?? 'unknown'}`);
        return;
      }
      monitor.accepted();
      const connection = new Connection(socket, context, monitor, (c) => {
        monitor.closed();
        broker.connections.delete(c);
      });
      broker.connections.add(connection);
    });

    server.on('error', (err) => log.error('listener error', { err }));
    broker.retentionTimer = setInterval(() => {
      try {
        storage.enforceRetention(clock.nowMs());
      } catch (err) {
        log.error('retention failed', { err });
      }
    }, config.retentionCheckIntervalMs);
    broker.retentionTimer.unref();
    if (config.logCleanerEnable) broker.scheduleCleaner();
    metricsServer?.serve(context.metrics, { connections: monitor.stats, storage, groups });
    log.info('started', {
      host: config.host, port, dataDir: config.dataDir ?? '(memory)', clusterId: storage.clusterId,
      ...(metricsServer !== null ? { metricsPort: metricsServer.port } : {}),
    });
    return broker;
  }

  /**
   * Kafka's log cleaner thread, as a timer: a pass over the compacted partitions (including
   * `__consumer_offsets`), then log.cleaner.backoff.ms of rest. The pass yields to the event
   * loop between segments; swaps are synchronous, so appends and fetches never see half of one.
   */
  private scheduleCleaner(): void {
    this.cleanerTimer = setTimeout(() => {
      this.cleanerTimer = null;
      void this.runCleaner().then(() => {
        if (!this.stopping) this.scheduleCleaner();
      });
    }, this.config.logCleanerBackoffMs);
    this.cleanerTimer.unref();
  }

  /** One pass of the log cleaner now (also what the timer runs). */
  async runCleaner(): Promise<LogCleanerStats> {
    const startedAt = performance.now();
    const seconds = (): number => (performance.now() - startedAt) / 1000;
    try {
      const stats = await this.context.storage.cleanLogs(this.context.clock.nowMs());
      this.context.metrics.cleanerPass(stats, seconds(), this.context.clock.nowMs());
      return stats;
    } catch (err) {
      this.context.log.error('log cleaner failed', { err });
      this.context.metrics.cleanerPass(null, seconds(), this.context.clock.nowMs());
      return { partitionsCleaned: 0, recordsRemoved: 0, bytesBefore: 0, bytesAfter: 0 };
    }
  }

  /** Stops accepting, closes connections, makes everything durable and closes files. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.metricsServer?.markStopping();
      if (this.retentionTimer) clearInterval(this.retentionTimer);
      if (this.cleanerTimer) clearTimeout(this.cleanerTimer);
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      // Parked group requests get NOT_COORDINATOR; pending coordinator appends settle.
      await this.context.groups.stop();
      for (const c of this.connections) c.close('broker shutting down');
      await closed;
      await this.metricsServer?.close();
      // A failed flush (a failing disk) must not keep the files open: close says what failed.
      await this.context.storage.flush().catch((err: unknown) => this.context.log.error('final flush failed', { err }));
      await this.context.storage.close();
      this.context.log.info('stopped');
    })();
    return this.stopping;
  }
}

/** Topic names Kafka keeps for itself: never auto-created by a client's request. */
const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state']);

function autoCreate(ctx: BrokerContext, name: string, allowAutoCreate: boolean): TopicMetadata | undefined {
  const existing = ctx.storage.topic(name);
  if (existing || !allowAutoCreate || !ctx.config.autoCreateTopics || INTERNAL_TOPICS.has(name)) return existing;
  const topic = ctx.storage.createTopic(name, ctx.config.numPartitions);
  ctx.log.info('auto-created topic', { topic: name, partitions: topic.partitions });
  ctx.groups.topicsChanged();
  return topic;
}
