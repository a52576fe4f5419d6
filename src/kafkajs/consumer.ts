/**
 * KafkaJS's consumer over Brook's poll() consumer: the public API (connect, subscribe, run,
 * stop, seek, pause, commitOffsets, events). Brook's consumer does the group work (joins,
 * heartbeats in the background, fetching); each `run()` is a ConsumerRun (consumer-run.ts),
 * which hands records to the handlers and commits what they resolved.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CLIENT_CHANNELS, type RequestMessage } from '../client/diagnostics.js';
import { Consumer as BrookConsumer, type ConsumerOptions } from '../client/consumer/index.js';
import { INT32_MAX, type CommonClientOptions } from '../client/options.js';
import { KafkaJsRoundRobinAssignor, KAFKAJS_ROUND_ROBIN } from '../assignors/kafkajs-round-robin.js';
import { assignorByName } from '../assignors/registry.js';
import { KafkaJSNonRetriableError, kafkajsCall } from './errors.js';
import { checkCommitOffsets, checkSubscribe, checkTopicPartitions } from './consumer-validation.js';
import { Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js';
import type { KafkaJSLogging } from './logger.js';
import {
  CONSUMER_EVENTS, type ConsumerConfig, type ConsumerRunConfig, type ConsumerSubscribeTopic, type ConsumerSubscribeTopics,
  type TopicPartitionOffsetAndMetadata,
} from './consumer-types.js';
import type { GroupAdmin } from './group-admin.js';
import { AssignerCluster, KafkaJSAssignorAdapter, PartitionAssigners } from './assigners.js';
import { ConsumerRun, type RunOwner } from './consumer-run.js';

/** The shortest heartbeat interval Brook's background heartbeat is given (KafkaJS allows 0). */
const MIN_HEARTBEAT_INTERVAL_MS = 100;

export class KafkaJSConsumer implements RunOwner {
  readonly events = CONSUMER_EVENTS;
  readonly instrumentation: Instrumentation;
  private common: CommonClientOptions | null = null;
  private readonly topics: string[] = [];
  /** Topics subscribed with fromBeginning (KafkaJS decides where a new group starts per topic). */
  private readonly fromBeginningTopics = new Set<string>();
  private current: ConsumerRun | null = null;
  private heartbeatSubscriber: ((message: unknown) => void) | null = null;
  private stopped: Promise<void> | null = null;
  /** The configured assigners in order; a name stands for one Brook runs (PartitionAssigners' own). */
  private readonly assigners: (KafkaJSAssignorAdapter | string)[];

  constructor(
    private readonly resolveCommon: () => Promise<CommonClientOptions>,
    readonly config: ConsumerConfig,
    private readonly logging: KafkaJSLogging,
    private readonly admin: GroupAdmin,
  ) {
    if (!config || typeof config.groupId !== 'string' || config.groupId === '') throw new KafkaJSNonRetriableError('Consumer groupId must be a non-empty string.');
    if (config.groupProtocol !== undefined && config.groupProtocol !== 'classic' && config.groupProtocol !== 'consumer') {
      throw new KafkaJSNonRetriableError(`groupProtocol must be 'classic' or 'consumer', not ${JSON.stringify(config.groupProtocol)}`);
    }
    const consumerProtocol = config.groupProtocol === 'consumer';
    if (consumerProtocol && config.partitionAssigners !== undefined) {
      throw new KafkaJSNonRetriableError("partitionAssigners cannot be set with groupProtocol 'consumer': the broker assigns (groupRemoteAssignor names its assignor)");
    }
    if (!consumerProtocol && config.groupRemoteAssignor !== undefined) throw new KafkaJSNonRetriableError("groupRemoteAssignor needs groupProtocol 'consumer'");
    const heartbeatInterval = config.heartbeatInterval ?? 3_000;
    const sessionTimeout = config.sessionTimeout ?? 30_000;
    if (heartbeatInterval >= sessionTimeout) {
      throw new KafkaJSNonRetriableError(`Consumer heartbeatInterval (${heartbeatInterval}) must be lower than sessionTimeout (${sessionTimeout}). It is recommended to set heartbeatInterval to approximately a third of the sessionTimeout.`);
    }
    const factories = config.partitionAssigners ?? [PartitionAssigners.roundRobin];
    if (!Array.isArray(factories) || factories.length === 0 || factories.some((f) => typeof f !== 'function')) {
      throw new KafkaJSNonRetriableError('partitionAssigners must be a non-empty array of assigner factories');
    }
    const cluster = new AssignerCluster((topics) => admin.fetchTopicMetadata({ topics }));
    const logger = logging.logger('Consumer');
    // As KafkaJS, the factories are called once, when the consumer is made.
    this.assigners = factories.map((f) => f.brookAssignor ?? new KafkaJSAssignorAdapter(f({ cluster, groupId: config.groupId, logger }), cluster));
    this.instrumentation = new Instrumentation(CONSUMER_EVENTS, CONSUMER_EVENTS.REQUEST, () => this.common?.clientId ?? '');
  }

  on(eventName: string, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener { // eslint-disable-line @typescript-eslint/no-explicit-any
    const remove = this.instrumentation.on(eventName, listener);
    if (eventName === CONSUMER_EVENTS.HEARTBEAT) this.watchHeartbeats();
    return remove;
  }

  /**
   * HEARTBEAT events: Brook's consumer heartbeats on its own timer; each Heartbeat request the
   * broker answered without error (seen on the request diagnostics channel, for this client id)
   * is one event.
   */
  private watchHeartbeats(): void {
    if (this.heartbeatSubscriber) return;
    this.heartbeatSubscriber = (message) => {
      const m = message as RequestMessage;
      const consumer = this.current?.consumer;
      if ((m.api !== 'Heartbeat' && m.api !== 'ConsumerGroupHeartbeat') || m.errorCode !== 0 || !consumer || m.clientId !== this.common?.clientId) return;
      const meta = consumer.groupMetadata();
      this.instrumentation.emit(CONSUMER_EVENTS.HEARTBEAT, { groupId: this.config.groupId, memberId: meta.memberId, groupGenerationId: meta.generationId });
    };
    subscribe(CLIENT_CHANNELS.request, this.heartbeatSubscriber);
  }

  logger(): ReturnType<KafkaJSLogging['logger']> {
    return this.logging.logger('Consumer');
  }

  async connect(): Promise<void> {
    await kafkajsCall(async () => {
      this.common ??= await this.resolveCommon();
      await this.admin.connect();
    });
    this.instrumentation.emit(CONSUMER_EVENTS.CONNECT);
  }

  async disconnect(): Promise<void> {
    await this.stop();
    await this.admin.disconnect();
    this.instrumentation.unwatchRequests();
    if (this.heartbeatSubscriber) unsubscribe(CLIENT_CHANNELS.request, this.heartbeatSubscriber);
    this.heartbeatSubscriber = null;
    this.instrumentation.emit(CONSUMER_EVENTS.DISCONNECT);
  }

  /** Topics by name, or by RegExp matched against the topics that exist now (as KafkaJS). */
  async subscribe(subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void> {
    if (this.current?.running) throw new KafkaJSNonRetriableError('Cannot subscribe to topic while consumer is running');
    checkSubscribe(subscription);
    const list = 'topics' in subscription ? subscription.topics : [subscription.topic];
    if (!Array.isArray(list) || list.some((t) => !(typeof t === 'string' || t instanceof RegExp))) {
      throw new KafkaJSNonRetriableError(`Invalid topics array ${JSON.stringify(list)}`);
    }
    const existing = list.some((t) => t instanceof RegExp) ? await this.admin.listTopics() : [];
    for (const t of list) {
      const names = typeof t === 'string' ? [t] : existing.filter((name) => t.test(name));
      for (const name of names) {
        if (!this.topics.includes(name)) this.topics.push(name);
        if (subscription.fromBeginning) this.fromBeginningTopics.add(name);
        else this.fromBeginningTopics.delete(name);
      }
    }
  }

  async run(config: ConsumerRunConfig = {}): Promise<void> {
    if (this.current?.running) return;
    if (!this.common) throw new KafkaJSNonRetriableError('Consumer is not connected (call connect() first)');
    const c = this.config;
    const options: ConsumerOptions = {
      ...this.common,
      groupId: c.groupId,
      ...(c.groupProtocol === 'consumer'
        ? { groupProtocol: 'consumer' as const, ...(c.groupRemoteAssignor !== undefined ? { groupRemoteAssignor: c.groupRemoteAssignor } : {}) }
        : {
          groupProtocol: 'classic' as const,
          assignors: this.assigners.map((a) => typeof a !== 'string' ? a : a === KAFKAJS_ROUND_ROBIN ? new KafkaJsRoundRobinAssignor() : assignorByName(a)),
          sessionTimeoutMs: c.sessionTimeout ?? 30_000,
          // KafkaJS takes 0 (a heartbeat at every chance between batches); Brook's timer heartbeats at least 100 ms apart.
          heartbeatIntervalMs: Math.max(MIN_HEARTBEAT_INTERVAL_MS, c.heartbeatInterval ?? 3_000),
        }),
      enableAutoCommit: false,
      // The reset of most topics; partitions of the others without a committed offset are moved when assigned.
      autoOffsetReset: this.resetsFromBeginning() ? 'earliest' : 'latest',
      rebalanceTimeoutMs: c.rebalanceTimeout ?? 60_000,
      maxPartitionFetchBytes: c.maxBytesPerPartition ?? 1_048_576,
      fetchMinBytes: c.minBytes ?? 1,
      fetchMaxBytes: c.maxBytes ?? 10_485_760,
      fetchMaxWaitMs: c.maxWaitTimeInMs ?? 5_000,
      // KafkaJS hands a partition's whole fetched data to one eachBatch (and commits once after
      // it): each poll takes all that is buffered, not 500 records (a batch and a commit each).
      maxPollRecords: INT32_MAX,
      isolationLevel: c.readUncommitted ? 'read_uncommitted' : 'read_committed',
      logger: this.logging.brook('Consumer'),
      ...(c.metadataMaxAge !== undefined ? { metadataMaxAgeMs: c.metadataMaxAge } : {}),
      ...(c.rackId !== undefined ? { clientRack: c.rackId } : {}),
    };
    const run = this.current = new ConsumerRun(new BrookConsumer(options), this, {
      autoCommit: config.autoCommit ?? true, autoCommitInterval: config.autoCommitInterval ?? null, autoCommitThreshold: config.autoCommitThreshold ?? null,
      eachBatchAutoResolve: config.eachBatchAutoResolve ?? true, partitionsConsumedConcurrently: Math.max(1, config.partitionsConsumedConcurrently ?? 1),
      eachBatch: config.eachBatch, eachMessage: config.eachMessage,
    });
    run.consumer.subscribe(this.topics, run.listener());
    this.stopped = null;
    run.start();
    // As KafkaJS's, run() resolves once the member joined its group (or the run crashed or stopped first).
    await run.joined;
  }

  clientId(): string {
    return this.common?.clientId ?? '';
  }

  subscribedTopics(): readonly string[] {
    return this.topics;
  }

  fromBeginning(topic: string): boolean {
    return this.fromBeginningTopics.has(topic);
  }

  resetsFromBeginning(): boolean {
    return this.fromBeginningTopics.size * 2 >= this.topics.length;
  }

  /** Stops the run loop, commits what was resolved (autoCommit) and leaves the group; the consumer stays connected. */
  stop(): Promise<void> {
    this.stopped ??= this.stopRunning();
    return this.stopped;
  }

  private async stopRunning(): Promise<void> {
    const run = this.current;
    if (!run) return;
    await run.stop();
    if (this.current === run) this.current = null;
    this.instrumentation.emit(CONSUMER_EVENTS.STOP);
  }

  /** Commits these offsets now (the offset of the next message to read, as KafkaJS). */
  async commitOffsets(offsets: TopicPartitionOffsetAndMetadata[]): Promise<void> {
    checkCommitOffsets(offsets, this.current !== null);
    const list = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), ...(o.metadata ? { metadata: o.metadata } : {}) }));
    if (this.current) return this.current.commitOffsets(list);
    await this.admin.commitOffsets(this.config.groupId, list);
  }

  /** Moves a partition's position; its records in hand are dropped, the offset is committed (autoCommit) with the next commit. */
  seek({ topic, partition, offset }: { topic: string; partition: number; offset: string }): void {
    if (!topic || !Number.isInteger(partition) || !/^-?\d+$/.test(String(offset))) throw new KafkaJSNonRetriableError(`Invalid seek ${JSON.stringify({ topic, partition, offset })}`);
    if (!this.current) throw new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first');
    this.current.seek(topic, partition, BigInt(offset));
  }

  pause(topics: { topic: string; partitions?: number[] }[]): void {
    checkTopicPartitions(topics, this.current !== null, 'pause');
    this.current?.pause(topics);
  }

  resume(topics: { topic: string; partitions?: number[] }[]): void {
    checkTopicPartitions(topics, this.current !== null, 'resume');
    this.current?.resume(topics);
  }

  paused(): { topic: string; partitions: number[] }[] {
    const out = new Map<string, number[]>();
    for (const tp of this.current?.paused() ?? []) {
      let list = out.get(tp.topic);
      if (!list) out.set(tp.topic, list = []);
      list.push(tp.partition);
    }
    return [...out].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }));
  }

  describeGroup(): Promise<unknown> {
    return this.admin.describeGroup(this.config.groupId);
  }
}
