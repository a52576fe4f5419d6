/**
 * The broker: its listeners, the handler table, storage, and the periodic work
 * (retention, the log cleaner). `Broker.start` returns once it accepts connections; `stop` closes the
 * listeners and connections, then flushes and closes storage. Brokers share no state: a
 * program may run several at once (tests of an application, each with its own broker).
 */
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import { brokerConfig, groupCoordinatorSettings, transactionCoordinatorSettings, type BrokerConfig } from './config.js';
import { planListeners } from './listener-config.js';
import { sslListeners, type SslListener } from './ssl-config.js';
import { ANONYMOUS, sslPrincipal } from './principal.js';
import { saslListeners } from './sasl/sasl-config.js';
import { SaslAuthenticator, type SaslListenerAuth } from './sasl/sasl-authenticator.js';
import { plainCredentials } from './sasl/plain-password.js';
import { CredentialStore } from './sasl/credential-store.js';
import { PasswordCheckQueue } from './sasl/password-checks.js';
import { bindListeners, closeServers, type BoundListener, type ListenerInfo } from './listeners.js';
import { SocketThread } from './socket-thread.js';
import type { ConnectionSocket } from './connection-socket.js';
import { brokerClock, type BrokerContext, type Clock } from './broker-context.js';
import type { TimerHandle } from '../util/clock.js';
import { createAppendNotifier } from './append-notifier.js';
import { Connection } from './connection.js';
import { ConnectionMonitor, type ConnectionInfo, type ConnectionStats } from './connection-stats.js';
import { GroupCoordinatorService } from './group-coordinator-service.js';
import { TransactionCoordinatorService } from './transaction-coordinator-service.js';
import { ShareCoordinatorService } from './share-coordinator-service.js';
import { ALL_HANDLERS } from './handlers/index.js';
import { BrokerMetrics } from './metrics/broker-metrics.js';
import { MetricsServer } from './metrics/metrics-server.js';
import { ConsoleServer } from './console/console-server.js';
import { ConsoleAuth } from './console/console-auth.js';
import { LagHistory } from './console/lag-history.js';
import type { ApiHandler } from './handler.js';
import type { LogCleanerStats, Storage, TopicMetadata } from '../storage/types.js';
import { nodeFileSystem, openFileStorage, openMemoryStorage, ReadBufferPool, type FileSystem } from '../storage/index.js';
import { FetchSessionCache } from './fetch-sessions.js';
import { SharePartitionManager, shareGroupSettings } from './share/share-partition-manager.js';
import { ShareGroupDlq } from './share/share-group-dlq.js';
import { ShareDeliveryCounters } from './share/delivery-counters.js';
import { dlqGroupConfig } from './group-configs/group-settings.js';
import { authorizerSettings, openAclStore } from './authorization.js';
import type { AclStore } from './authorizer/acl-store.js';
import { GroupConfigStore } from './group-configs/group-config-store.js';
import { coordinatorOverrides } from './group-configs/group-settings.js';
import { createLogger, type Logger } from '../util/log.js';
import { ManualScheduler } from '../util/clock.js';
import { RequestControls, type BrokerRequest, type BrokerResponse, type FaultHandle, type FaultSpec } from './test-controls/request-controls.js';
import { restoreGroupConfigs, restoreStorage, takeSnapshot, type BrokerSnapshot } from './test-controls/snapshot.js';
import { moveCoordinator, type CoordinatorKey, type CoordinatorMove, type MoveCoordinatorOptions } from './test-controls/coordinator-move.js';
import { committedOffsets, topicRecords, waitForGroupState, type BrokerRecord, type CommittedOffsets } from './test-controls/inspection.js';
import { advanceTime, expireMember, triggerRebalance } from './test-controls/group-controls.js';

/** The broker's settings (Kafka's names in camelCase, broker-configs.ts) and what it runs with. */
export interface BrokerOptions extends Partial<BrokerConfig> {
  readonly log?: Logger;
  /**
   * The broker's clock: a Scheduler (e.g. a test's ManualScheduler) runs every broker-side
   * timer; a Clock that only reads the time gets Node's timers. 'manual': a clock of its own
   * that starts at the current time and moves only by `advanceTime` (timers due at the
   * current time, a delay of 0, fire on their own). Default: the system clock.
   */
  readonly clock?: Clock | 'manual';
  /** Use this storage instead of opening one from `dataDir`. */
  readonly storage?: Storage;
  /** The file system the storage works through (default node:fs); tests inject disk faults here. */
  readonly fileSystem?: FileSystem;
  /**
   * Starts from a `broker.snapshot()`: its topics, records, committed offsets, groups and
   * transactions (replayed from the internal topics, as after a restart) and group configs.
   * The storage must be empty (in memory, or a new data directory).
   */
  readonly restore?: BrokerSnapshot;
}

/** What an operator reads about the broker (the metrics endpoint exports these counters too). */
export interface BrokerStats {
  readonly connections: Readonly<ConnectionStats>;
}

export class Broker {
  private readonly connections = new Set<Connection>();
  private retentionTimer: TimerHandle | null = null;
  private cleanerTimer: TimerHandle | null = null;
  private stopping: Promise<void> | null = null;
  private resolveFailed!: (err: Error) => void;
  /**
   * Resolves with the error when the broker stopped on its own, after a failure it cannot
   * serve through (its socket thread died, taking the plaintext listeners with it): stopped
   * rather than left running deaf, so that whatever supervises it starts it again. Never
   * rejects; pending while the broker runs or after a requested stop.
   */
  readonly failed: Promise<Error> = new Promise((resolve) => {
    this.resolveFailed = resolve;
  });

  private constructor(
    readonly config: BrokerConfig,
    private readonly bound: readonly BoundListener[],
    readonly context: BrokerContext,
    private readonly monitor: ConnectionMonitor,
    private readonly metricsServer: MetricsServer | null,
    private readonly socketThread: SocketThread | null,
    private readonly consoleServer: ConsoleServer | null,
    private readonly lagHistory: LagHistory | null,
  ) {}

  /** The port of the web console (console.port); null when it serves none. */
  get consolePort(): number | null {
    return this.consoleServer?.port ?? null;
  }

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

  /** The first listener's advertised host. */
  get host(): string {
    return this.context.advertisedHost;
  }

  /** The first listener's advertised port (the bound one, when it was configured as 0). */
  get port(): number {
    return this.context.advertisedPort;
  }

  /** Kafka's `bootstrap.servers` for a client of this broker: the first listener's advertised `HOST:PORT`. */
  get bootstrapServers(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `${host}:${this.port}`;
  }

  /** Every listener: where it is bound and what it advertises. */
  get listeners(): readonly ListenerInfo[] {
    return this.context.listeners;
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
    const { log: givenLog, clock: givenClock, storage: givenStorage, fileSystem, restore, ...overrides } = options;
    // Every setting is checked before anything is opened.
    const config = brokerConfig(overrides);
    const authorization = authorizerSettings(config);
    const listenerPlan = planListeners(config);
    const listenerTls = sslListeners(listenerPlan, config);
    const listenerSasl = new Map<string, SaslListenerAuth>();
    for (const [name, l] of saslListeners(listenerPlan, config)) listenerSasl.set(name, { mechanisms: l.mechanisms, jaasPlain: await plainCredentials(l.jaasPlainUsers) });
    const log = givenLog ?? createLogger('broker');
    const clock = givenClock === 'manual' ? new ManualScheduler(Date.now(), { runDueTimers: true }) : brokerClock(givenClock);
    const storageOptions = { flush: config.flush, topicDefaults: config.topicDefaults, nodeId: config.nodeId, log: log.child('storage'), clock: () => clock.nowMs(), fileSystem };
    const storage = givenStorage
      ?? (config.dataDir === null ? openMemoryStorage(storageOptions) : await openFileStorage(config.dataDir, storageOptions));
    let acls: AclStore | null;
    let groupConfigs: GroupConfigStore;
    try {
      // After the storage, which holds the data directory's lock.
      acls = openAclStore(authorization, config.dataDir, fileSystem ?? nodeFileSystem);
      groupConfigs = GroupConfigStore.open(config.dataDir, fileSystem ?? nodeFileSystem);
      if (restore !== undefined) {
        // Before the coordinators start: they load the restored internal topics as after a restart.
        restoreStorage(storage, restore, clock.nowMs());
        await restoreGroupConfigs(groupConfigs, restore);
      }
    } catch (err) {
      if (givenStorage === undefined) await storage.close();
      throw err;
    }

    let credentials: CredentialStore;
    try {
      // Read whether or not a listener is SASL: AlterUserScramCredentials manages users on any.
      credentials = config.dataDir === null ? CredentialStore.inMemory() : CredentialStore.open(config.dataDir);
    } catch (err) {
      if (givenStorage === undefined) await storage.close();
      throw err;
    }

    let groups: GroupCoordinatorService;
    try {
      groups = GroupCoordinatorService.start({
        storage, clock, log: log.child('coordinator'), offsetsTopicSegmentBytes: config.offsetsTopicSegmentBytes,
        timeline: { enable: config.groupTimelineEnable, retentionMs: config.groupTimelineRetentionMs, retentionBytes: config.groupTimelineRetentionBytes },
        coordinator: { ...groupCoordinatorSettings(config), groupOverrides: (groupId) => coordinatorOverrides(groupConfigs.get(groupId)) },
      });
    } catch (err) {
      if (givenStorage === undefined) await storage.close();
      throw err;
    }

    const appends = createAppendNotifier();
    groups.connectAppends(appends);
    let transactions: TransactionCoordinatorService;
    try {
      transactions = TransactionCoordinatorService.start({
        storage, clock, log: log.child('transactions'), appends, groups,
        numPartitions: config.transactionStateLogNumPartitions,
        segmentBytes: config.transactionStateLogSegmentBytes,
        coordinator: transactionCoordinatorSettings(config),
      });
    } catch (err) {
      await groups.stop();
      if (givenStorage === undefined) await storage.close();
      throw err;
    }

    let shareState: ShareCoordinatorService;
    try {
      shareState = ShareCoordinatorService.start({
        storage, clock, log: log.child('share-coordinator'),
        numPartitions: config.shareCoordinatorStateTopicNumPartitions,
        segmentBytes: config.shareCoordinatorStateTopicSegmentBytes,
        pruneIntervalMs: config.shareCoordinatorStateTopicPruneIntervalMs,
        coordinator: {
          snapshotUpdateRecordsPerSnapshot: config.shareCoordinatorSnapshotUpdateRecordsPerSnapshot,
          coldPartitionSnapshotIntervalMs: config.shareCoordinatorColdPartitionSnapshotIntervalMs,
        },
      });
    } catch (err) {
      await transactions.stop();
      await groups.stop();
      if (givenStorage === undefined) await storage.close();
      throw err;
    }

    let bound: BoundListener[];
    // num.network.threads: the plaintext listeners' sockets on a thread of their own (socket-thread.ts).
    // Its failure stops the broker, which exists only once the listeners are bound.
    let socketThreadFailed = (err: Error): void => void log.error('socket thread failed during start-up', { err });
    const socketThread = config.numNetworkThreads > 0 && listenerPlan.listeners.some((l) => !listenerTls.has(l.name))
      ? new SocketThread(log.child('sockets'), (err) => socketThreadFailed(err))
      : null;
    try {
      bound = await bindListeners(listenerPlan, config.listenBacklog, listenerTls, log, socketThread);
    } catch (err) {
      // A port is taken (or a host is not ours): undo the start, so that the data
      // directory's lock is released and an embedding program can start again in this process.
      await socketThread?.stop();
      await shareState.stop();
      await transactions.stop();
      await groups.stop();
      if (givenStorage === undefined) await storage.close();
      throw err;
    }
    // A later step failing (an HTTP port taken) undoes what the start opened, as above.
    const undoBound = async (): Promise<void> => {
      await closeServers(bound.map((l) => l.server));
      await socketThread?.stop();
      await shareState.stop();
      await transactions.stop();
      await groups.stop();
      if (givenStorage === undefined) await storage.close();
    };
    const listeners: ListenerInfo[] = bound.map(({ server: _server, ...info }) => info);
    const first = listeners[0]!;
    let metricsServer: MetricsServer | null = null;
    if (config.metricsPort !== null) {
      // On the first listener's interface (every interface for a wildcard listener).
      const metricsHost = first.host ?? undefined;
      try {
        metricsServer = await MetricsServer.listen(metricsHost, config.metricsPort, log.child('metrics'));
      } catch (err) {
        log.error('cannot listen for metrics', { host: metricsHost ?? '(all)', port: config.metricsPort, err });
        await undoBound();
        throw err;
      }
    }

    const handlers = new Map<number, ApiHandler>(ALL_HANDLERS.map((h) => [h.api.apiKey, h as ApiHandler]));
    const shareCounters = new ShareDeliveryCounters();
    const context: BrokerContext = {
      config,
      storage,
      log,
      clock,
      advertisedHost: first.advertisedHost,
      advertisedPort: first.advertisedPort,
      listeners,
      handlers,
      appends,
      readBuffers: new ReadBufferPool(),
      fetchSessions: new FetchSessionCache({ slots: config.maxIncrementalFetchSessionCacheSlots }),
      groups,
      transactions,
      shareState,
      shares: new SharePartitionManager({
        storage, clock, log: log.child('share-partitions'), persister: shareState, appends,
        maxShareSessions: config.groupShareMaxShareSessions,
        settings: (groupId) => shareGroupSettings(config, groupConfigs.get(groupId)),
        dlq: new ShareGroupDlq({
          storage, clock, appends, counters: shareCounters,
          topicNamePrefix: config.errorsDeadLetterQueueTopicNamePrefix,
          autoCreateTopics: config.errorsDeadLetterQueueAutoCreateTopicsEnable,
          numPartitions: config.numPartitions,
          groupConfig: (groupId) => dlqGroupConfig(groupConfigs.get(groupId)),
          topicCreated: () => groups.topicsChanged(),
        }),
        counters: shareCounters,
      }),
      metrics: new BrokerMetrics(ALL_HANDLERS.map((h) => h.api)),
      credentials,
      passwordChecks: new PasswordCheckQueue(),
      topicForProduceOrMetadata: (name, allowAutoCreate) => autoCreate(context, name, allowAutoCreate),
      acls,
      groupConfigs,
      timeline: groups.recorder,
      controls: new RequestControls(storage, log.child('test-controls')),
    };
    let consoleServer: ConsoleServer | null = null;
    let lagHistory: LagHistory | null = null;
    if (config.consolePort !== null) {
      lagHistory = new LagHistory({ clock, groups, storage, log: log.child('console') });
      const jaasPlain = new Map([...listenerSasl.values()].flatMap((l) => [...l.jaasPlain]));
      const auth = new ConsoleAuth({ required: listenerSasl.size > 0 || acls !== null, credentials, jaasPlain, passwordChecks: context.passwordChecks });
      try {
        consoleServer = await ConsoleServer.listen(config.consoleHost, config.consolePort, {
          broker: context, auth, lagHistory, writesEnabled: config.consoleWritesEnable, log: log.child('console'),
        });
      } catch (err) {
        log.error('cannot listen for the console', { host: config.consoleHost, port: config.consolePort, err });
        await metricsServer?.close();
        await undoBound();
        throw err;
      }
      lagHistory.start();
    }
    groups.connectShares({
      persister: shareState,
      memberLeft: (groupId, memberId) => context.shares.memberLeft(groupId, memberId),
      groupDeleted: (groupId) => context.shares.dropGroup(groupId),
    });
    const monitor = new ConnectionMonitor(log, config.maxConnections);
    const broker = new Broker(config, bound, context, monitor, metricsServer, socketThread, consoleServer, lagHistory);
    socketThreadFailed = (err) => broker.failStop(err);
    for (const l of bound) {
      // A connection's requests see the address of the listener it came in on (Kafka answers
      // Metadata with the endpoints of the request's listener).
      const listenerContext: BrokerContext = { ...context, advertisedHost: l.advertisedHost, advertisedPort: l.advertisedPort };
      const ssl = listenerTls.get(l.name);
      const sasl = listenerSasl.get(l.name) ?? null;
      if (ssl === undefined) {
        l.server.on('connection', (socket: ConnectionSocket) => broker.accept(socket, listenerContext, l.name, ANONYMOUS, sasl));
      } else {
        // A tls.Server: 'connection' brings the raw socket; the broker takes it once its handshake is done.
        const server = l.server as TlsServer;
        server.on('secureConnection', (socket: TLSSocket) => broker.acceptTls(socket, listenerContext, l.name, ssl, sasl));
        server.on('tlsClientError', (err: Error, socket: TLSSocket) => {
          monitor.authenticationFailed({ client: `/${socket.remoteAddress ?? 'unknown'}`, listener: l.name, reason: `TLS handshake failed: ${err.message}` });
          socket.destroy();
        });
      }
      l.server.on('error', (err) => log.error('listener error', { listener: l.name, err }));
    }
    broker.scheduleRetention();
    if (config.logCleanerEnable) broker.scheduleCleaner();
    metricsServer?.serve(context.metrics, { connections: monitor.stats, storage, groups, shares: context.shares });
    log.info('started', {
      listeners: bound.map((l) => `${l.name}://${l.host ?? ''}:${l.port}`).join(','),
      advertised: bound.map((l) => `${l.name}://${l.advertisedHost}:${l.advertisedPort}`).join(','),
      dataDir: config.dataDir ?? '(memory)', clusterId: storage.clusterId,
      ...(metricsServer !== null ? { metricsPort: metricsServer.port } : {}),
      ...(consoleServer !== null ? { consolePort: consoleServer.port } : {}),
    });
    return broker;
  }

  /**
   * A connection whose TLS handshake completed. With ssl.client.auth=required a client
   * certificate that verifies is needed; with requested, a client without one is let in as
   * ANONYMOUS but one whose certificate does not verify is refused (as Java's SSLEngine with
   * wantClientAuth does).
   */
  private acceptTls(socket: TLSSocket, context: BrokerContext, listener: string, ssl: SslListener, sasl: SaslListenerAuth | null): void {
    if (ssl.clientAuth !== 'none' && !socket.authorized) {
      const presented = socket.getPeerX509Certificate() !== undefined;
      if (ssl.clientAuth === 'required' || presented) {
        const reason = presented ? `client certificate not trusted: ${String(socket.authorizationError)}` : 'no client certificate (ssl.client.auth=required)';
        this.monitor.authenticationFailed({ client: `/${socket.remoteAddress ?? 'unknown'}`, listener, reason });
        socket.on('error', () => undefined);
        socket.destroy();
        return;
      }
    }
    // On SASL_SSL the principal is SASL's, as Kafka's (the certificate only secures the channel).
    this.accept(socket, context, listener, sasl === null ? sslPrincipal(socket) : ANONYMOUS, sasl);
  }

  /** `sasl`: what a SASL listener's clients, who must authenticate first, authenticate against. */
  private accept(socket: ConnectionSocket, context: BrokerContext, listener: string, principal: string, sasl: SaslListenerAuth | null): void {
    // max.connections open (across listeners): the new connection is closed at once. (Kafka's
    // acceptor instead stops accepting until one closes, leaving clients waiting in the listen
    // backlog until their connection timeout; a closed connection tells them at once.) Checked
    // here rather than with Node's server.maxConnections, which takes 0 to mean no limit.
    if (this.connections.size >= this.config.maxConnections) {
      socket.on('error', () => undefined);
      socket.destroy();
      this.monitor.rejected(`/${socket.remoteAddress ?? 'unknown'}`);
      return;
    }
    this.monitor.accepted();
    if (principal !== ANONYMOUS) context.log.debug('authenticated', { client: `/${socket.remoteAddress ?? 'unknown'}`, listener, principal });
    const authenticator = sasl === null ? null : new SaslAuthenticator(sasl, context.credentials, context.passwordChecks);
    const connection = new Connection(socket, context, this.monitor, { listener, principal, sasl: authenticator }, (c) => {
      this.monitor.closed();
      this.connections.delete(c);
    });
    this.connections.add(connection);
  }

  /**
   * Kafka's log cleaner thread, as a timer: a pass over the compacted partitions (including
   * `__consumer_offsets`), then log.cleaner.backoff.ms of rest. The pass yields to the event
   * loop between segments; swaps are synchronous, so appends and fetches never see half of one.
   */
  private scheduleCleaner(): void {
    this.cleanerTimer = this.context.clock.schedule(this.config.logCleanerBackoffMs, () => {
      this.cleanerTimer = null;
      void this.runCleaner().then(() => {
        if (!this.stopping) this.scheduleCleaner();
      });
    });
  }

  /** Kafka's log retention check, every log.retention.check.interval.ms on the broker's clock. */
  private scheduleRetention(): void {
    const { clock, storage, log } = this.context;
    this.retentionTimer = clock.schedule(this.config.retentionCheckIntervalMs, () => {
      if (this.stopping) return;
      try {
        storage.enforceRetention(clock.nowMs());
      } catch (err) {
        log.error('retention failed', { err });
      }
      this.scheduleRetention();
    });
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

  /** A failure the broker cannot serve through: logged, then a stop, then `failed` resolves. */
  private failStop(err: Error): void {
    if (this.stopping !== null) return;
    this.context.log.error('broker stopping after a failure', { err });
    void this.stop().catch((stopErr: unknown) => this.context.log.error('stop after a failure failed', { err: stopErr })).finally(() => this.resolveFailed(err));
  }

  /** Stops accepting, closes connections, makes everything durable and closes files. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.metricsServer?.markStopping();
      // The console first: it takes no request once the broker is stopping.
      this.lagHistory?.stop();
      const consoleClosed = this.consoleServer?.close();
      this.retentionTimer?.cancel();
      this.cleanerTimer?.cancel();
      const closed = closeServers(this.bound.map((l) => l.server));
      // Parked group requests get NOT_COORDINATOR; pending coordinator appends settle.
      this.context.shares.close();
      await this.context.shareState.stop();
      await this.context.transactions.stop();
      await this.context.groups.stop();
      for (const c of this.connections) c.close('broker shutting down');
      await closed;
      await consoleClosed;
      await this.socketThread?.stop();
      await this.metricsServer?.close();
      // A failed flush (a failing disk) must not keep the files open: close says what failed.
      await this.context.storage.flush().catch((err: unknown) => this.context.log.error('final flush failed', { err }));
      await this.context.storage.close();
      this.context.log.info('stopped');
    })();
    return this.stopping;
  }

  /**
   * Calls `hook` with every request the broker takes, decoded, before it is handled (also
   * published on the `brook:request` diagnostics channel). Returns the unsubscribe function.
   */
  onRequest(hook: (request: BrokerRequest) => void): () => void {
    return this.context.controls.onRequest(hook);
  }

  /**
   * Calls `hook` with every response, decoded, as it is about to be sent (also published on
   * the `brook:response` diagnostics channel). Requests that get no answer (acks=0 Produce)
   * have none. Returns the unsubscribe function.
   */
  onResponse(hook: (response: BrokerResponse) => void): () => void {
    return this.context.controls.onResponse(hook);
  }

  /** Fails, delays or drops the matching requests (docs/TESTING.md); throws TypeError for a fault it cannot inject. */
  injectFault(fault: FaultSpec): FaultHandle {
    return this.context.controls.injectFault(fault);
  }

  /**
   * Moves the coordinator of a group (`{ groupId }`) or a transactional id (`{ transactionalId }`)
   * away: until `restore()` (or for `forMs`, or `count` requests) the coordinator APIs answer
   * that key's requests with NOT_COORDINATOR (`error` chooses another coordinator error) and
   * change nothing, while FindCoordinator still names this broker, so clients look their
   * coordinator up again and carry on once it is back. `clearFaults()` moves it back too.
   */
  moveCoordinator(key: CoordinatorKey, options: MoveCoordinatorOptions = {}): CoordinatorMove {
    return moveCoordinator(this.context.controls, key, options);
  }

  /**
   * Takes a partition offline, as if its only replica's broker were gone: Metadata and
   * DescribeTopicPartitions describe it with leader -1 and LEADER_NOT_AVAILABLE, Produce,
   * Fetch and ListOffsets answer NOT_LEADER_OR_FOLLOWER for it (other partitions are served
   * as usual), until `setPartitionOnline`. Its records stay. Throws for an unknown partition.
   */
  setPartitionOffline(topic: string, partition: number): void {
    this.context.controls.offlinePartitions.setOffline(topic, partition);
  }

  /** Brings a partition `setPartitionOffline` took offline back (nothing for one that is online). */
  setPartitionOnline(topic: string, partition: number): void {
    this.context.controls.offlinePartitions.setOnline(topic, partition);
  }

  /**
   * Pauses the broker as a stalled process would look to its clients: connections stay open
   * and requests are taken (the request hooks see them), but none is handled or answered
   * until `resume()`; clients time out on their own. Its timers keep running (sessions may
   * expire meanwhile; a manual clock holds them). Nothing when already paused.
   */
  pause(): void {
    this.context.controls.pause();
  }

  /** Handles the requests taken while paused, in the order they came (each connection's answers in order), and the later ones as usual. */
  resume(): void {
    this.context.controls.resume();
  }

  /** Whether the broker is paused. */
  get paused(): boolean {
    return this.context.controls.paused;
  }

  /**
   * The broker's data as a value: every topic (internal ones too) with its id, configs and
   * stored record batches, the groups' configs, and where producer ids go on; start another
   * broker from it with `Broker.start({ restore })` or `Broker.restore`. Committed offsets,
   * groups and transactions are in the internal topics, so they come back as after a
   * restart (members must heartbeat again within their session timeout). Not included:
   * ACLs, SCRAM credentials, dynamic broker configs, the test controls (faults, hooks).
   */
  snapshot(): Promise<BrokerSnapshot> {
    return takeSnapshot(this.context.storage, this.context.groupConfigs);
  }

  /** `Broker.start({ ...options, restore: snapshot })`. */
  static restore(snapshot: BrokerSnapshot, options: Omit<BrokerOptions, 'restore'> = {}): Promise<Broker> {
    return Broker.start({ ...options, restore: snapshot });
  }

  /** Removes every injected fault (and moves every moved coordinator back). */
  clearFaults(): void {
    this.context.controls.clearFaults();
  }

  /**
   * Moves a manual clock (`clock: 'manual'` or a ManualScheduler) forward by `ms`: the broker's
   * timers that fall due run in order (session and rebalance timeouts, transaction timeouts,
   * retention), and the work they start (appends, replies) settles before the promise resolves.
   */
  advanceTime(ms: number): Promise<void> {
    return advanceTime(this.context, ms);
  }

  /**
   * Ends a group member's session now, as if its session timeout had passed (a member that
   * died): it is removed and its group rebalances, as Kafka's coordinator does. A classic
   * member whose JoinGroup or SyncGroup awaits its answer is not expired (Kafka's rule).
   * Rejects when the group has no such member with a session.
   */
  expireMember(groupId: string, memberId: string): Promise<void> {
    return expireMember(this.context, groupId, memberId);
  }

  /**
   * Starts a rebalance. A classic group (Stable or CompletingRebalance) prepares one, as a new
   * member would: its members learn it from their next Heartbeat (REBALANCE_IN_PROGRESS) and
   * rejoin. A consumer (KIP-848), share or streams group with members has its group epoch
   * bumped, as a change of its topics' metadata would: a member's next heartbeat computes a
   * new target assignment (once the group's assignment interval, 1 s by default, has passed
   * since the last one) and the members reconcile to the new epoch. Rejects for any
   * other group (unknown, empty, or classic and already rebalancing).
   */
  triggerRebalance(groupId: string): Promise<void> {
    return triggerRebalance(this.context, groupId);
  }

  /**
   * Resolves once the group is in `state` (Kafka's state names: 'Stable', 'Empty',
   * 'PreparingRebalance', ... for classic groups; 'Stable', 'Assigning', 'Reconciling', ...
   * for consumer groups). Rejects with GroupStateTimeoutError after `timeoutMs` (default
   * 10000) of real time.
   */
  waitForGroupState(groupId: string, state: string, options: { timeoutMs?: number } = {}): Promise<void> {
    return waitForGroupState(this.context, groupId, state, options.timeoutMs ?? 10_000);
  }

  /** Every record of the topic, decoded, partition by partition in offset order (markers left out). */
  records(topic: string): BrokerRecord[] {
    return topicRecords(this.context, topic);
  }

  /** The group's committed offsets: `{ [topic]: { [partition]: offset } }`. */
  committed(groupId: string): CommittedOffsets {
    return committedOffsets(this.context, groupId);
  }

  /** `await using broker = await Broker.start(...)`: stopped when the scope ends. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

// Node before 20.4 has no Symbol.asyncDispose (nor `await using`): the method above then got
// the key "undefined", which is removed rather than left as a stray method.
if (typeof Symbol.asyncDispose !== 'symbol') Reflect.deleteProperty(Broker.prototype, 'undefined');

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
