/**
 * KafkaJS's consumer (`consumer.run({ eachMessage | eachBatch })`) over Brook's poll()
 * consumer. Brook's consumer does the group work (joins, heartbeats in the background,
 * fetching) and never commits by itself here: the run loop commits what handlers resolved,
 * as KafkaJS does (after each batch when autoCommit is on; within a batch when
 * autoCommitInterval or autoCommitThreshold says so), so an offset is committed only once
 * its eachMessage resolved or eachBatch resolved it (at least once).
 *
 * poll() moves the fetch position past every record it returns; a batch that is not
 * handled to its end (a handler threw, the partition was paused, the consumer stopped, a
 * seek) puts the position back to the first record not handled, so the records come again.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CLIENT_CHANNELS, type RequestMessage } from '../client/diagnostics.js';
import { Consumer as BrookConsumer, type ConsumerOptions, type ConsumerRecord, type OffsetToCommit } from '../client/consumer/index.js';
import type { CommonClientOptions } from '../client/options.js';
import type { TopicPartition } from '../assignors/types.js';
import { KafkaJsRoundRobinAssignor, KAFKAJS_ROUND_ROBIN } from '../assignors/kafkajs-round-robin.js';
import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, kafkajsCall, toKafkaJSError } from './errors.js';
import { checkCommitOffsets, checkSubscribe, checkTopicPartitions } from './consumer-validation.js';
import { Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js';
import type { KafkaJSLogging } from './logger.js';
import { KAFKAJS_DEFAULTS } from './config.js';
import {
  CONSUMER_EVENTS, type ConsumerConfig, type ConsumerRunConfig, type ConsumerSubscribeTopic, type ConsumerSubscribeTopics,
  type PartitionAssigner, type TopicPartitionOffsetAndMetadata,
} from './consumer-types.js';
import type { GroupAdmin } from './group-admin.js';
import { byTopic, sleep, toBatch, tpKey } from './consumer-batch.js';
import { ResolvedOffsets } from './resolved-offsets.js';

/** KafkaJS's RoundRobinAssigner, as brook/kafkajs runs it (src/assignors/kafkajs-round-robin.ts). */
const roundRobin: PartitionAssigner = Object.assign(() => ({ name: KAFKAJS_ROUND_ROBIN, version: 0 }), { brookAssignor: KAFKAJS_ROUND_ROBIN });
export const PartitionAssigners = Object.freeze({ roundRobin });

const key = tpKey;

export class KafkaJSConsumer {
  readonly events = CONSUMER_EVENTS;
  private readonly instrumentation: Instrumentation;
  private common: CommonClientOptions | null = null;
  private consumer: BrookConsumer | null = null;
  private readonly topics: string[] = [];
  /** Topics subscribed with fromBeginning (KafkaJS decides where a new group starts per topic). */
  private readonly fromBeginning = new Set<string>();
  private running = false;
  private loop: Promise<void> | null = null;
  private stopping: AbortController | null = null;
  private runConfig: Required<Omit<ConsumerRunConfig, 'eachBatch' | 'eachMessage'>> & Pick<ConsumerRunConfig, 'eachBatch' | 'eachMessage'> | null = null;
  /** Next offset to commit per partition, as handlers resolved them. */
  private readonly offsets = new ResolvedOffsets();
  /** Partitions whose position changed (seek, revoke) since the records in hand were polled. */
  private readonly stale = new Set<string>();
  /**
   * Seeks by partition, numbered: a poll that began before a seek may return records of the old
   * position or of the new one, so its records of that partition are dropped and the seek is
   * made again; records of a poll that began after it are the seek's.
   */
  private readonly seeks = new Map<string, { seq: number; apply: () => void }>();
  private seekSeq = 0;
  private pollSeq = 0;
  private readonly pendingSeeks = new Map<string, { topic: string; partition: number; offset: bigint }>();
  private lastCommitMs = Date.now();
  private rebalanceStartMs: number | null = null;
  private failures = 0;
  private heartbeatSubscriber: ((message: unknown) => void) | null = null;
  private stopped: Promise<void> | null = null;

  constructor(
    private readonly resolveCommon: () => Promise<CommonClientOptions>,
    private readonly config: ConsumerConfig,
    private readonly logging: KafkaJSLogging,
    private readonly admin: GroupAdmin,
  ) {
    if (!config || typeof config.groupId !== 'string' || config.groupId === '') throw new KafkaJSNonRetriableError('Consumer groupId must be a non-empty string.');
    for (const a of config.partitionAssigners ?? []) {
      if (a.brookAssignor === undefined) throw new KafkaJSNonRetriableError('brook/kafkajs runs PartitionAssigners.roundRobin only; custom KafkaJS assigners are not supported (use a Brook PartitionAssignor through Brook\'s Consumer)');
    }
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
      const consumer = this.consumer;
      if (m.api !== 'Heartbeat' || m.errorCode !== 0 || !consumer || m.clientId !== this.common?.clientId) return;
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
    if (this.running) throw new KafkaJSNonRetriableError('Cannot subscribe to topic while consumer is running');
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
        if (subscription.fromBeginning) this.fromBeginning.add(name);
        else this.fromBeginning.delete(name);
      }
    }
  }

  async run(config: ConsumerRunConfig = {}): Promise<void> {
    if (this.running) return;
    if (!this.common) throw new KafkaJSNonRetriableError('Consumer is not connected (call connect() first)');
    if (this.topics.length === 0) throw new KafkaJSNonRetriableError('The consumer has no topics to consume (call subscribe() first)');
    this.runConfig = {
      autoCommit: config.autoCommit ?? true, autoCommitInterval: config.autoCommitInterval ?? null, autoCommitThreshold: config.autoCommitThreshold ?? null,
      eachBatchAutoResolve: config.eachBatchAutoResolve ?? true, partitionsConsumedConcurrently: Math.max(1, config.partitionsConsumedConcurrently ?? 1),
      eachBatch: config.eachBatch, eachMessage: config.eachMessage,
    };
    const c = this.config;
    const options: ConsumerOptions = {
      ...this.common,
      groupId: c.groupId,
      groupProtocol: 'classic',
      assignors: [new KafkaJsRoundRobinAssignor()],
      enableAutoCommit: false,
      // The reset of most topics; partitions of the others without a committed offset are moved when assigned.
      autoOffsetReset: this.resetsFromBeginning() ? 'earliest' : 'latest',
      sessionTimeoutMs: c.sessionTimeout ?? 30_000,
      rebalanceTimeoutMs: c.rebalanceTimeout ?? 60_000,
      heartbeatIntervalMs: c.heartbeatInterval ?? 3_000,
      maxPartitionFetchBytes: c.maxBytesPerPartition ?? 1_048_576,
      fetchMinBytes: c.minBytes ?? 1,
      fetchMaxBytes: c.maxBytes ?? 10_485_760,
      fetchMaxWaitMs: c.maxWaitTimeInMs ?? 5_000,
      isolationLevel: c.readUncommitted ? 'read_uncommitted' : 'read_committed',
      logger: this.logging.brook('Consumer'),
      ...(c.metadataMaxAge !== undefined ? { metadataMaxAgeMs: c.metadataMaxAge } : {}),
      ...(c.rackId !== undefined ? { clientRack: c.rackId } : {}),
    };
    const consumer = this.consumer = new BrookConsumer(options);
    consumer.subscribe(this.topics, {
      onPartitionsRevoked: (partitions) => this.revoked(partitions),
      onPartitionsLost: (partitions) => this.lost(partitions),
      onPartitionsAssigned: (partitions) => this.assigned(partitions),
    });
    this.running = true;
    this.stopped = null;
    this.stopping = new AbortController();
    this.rebalanceStartMs = Date.now();
    this.loop = this.runLoop(consumer, this.stopping.signal);
  }

  private resetsFromBeginning(): boolean {
    return this.fromBeginning.size * 2 >= this.topics.length;
  }

  /** Partitions of topics whose fromBeginning differs from the consumer's reset, with no committed offset: to their start or end. */
  private async startPositions(consumer: BrookConsumer, partitions: readonly TopicPartition[]): Promise<void> {
    const earliest = this.resetsFromBeginning();
    const other = partitions.filter((tp) => this.fromBeginning.has(tp.topic) !== earliest);
    if (other.length === 0) return;
    const committed = await consumer.committed(other);
    const none = other.filter((tp) => committed.get(`${tp.topic}:${tp.partition}`) == null && !this.pendingSeeks.has(key(tp.topic, tp.partition)));
    if (none.length === 0) return;
    if (earliest) consumer.seekToEnd(none);
    else consumer.seekToBeginning(none);
  }

  /** Stops the run loop, commits what was resolved (autoCommit) and leaves the group; the consumer stays connected. */
  stop(): Promise<void> {
    this.stopped ??= this.stopRunning();
    return this.stopped;
  }

  private async stopRunning(): Promise<void> {
    if (!this.running && !this.loop) return;
    this.running = false;
    this.stopping?.abort();
    await this.loop;
    this.loop = null;
    const consumer = this.consumer;
    this.consumer = null;
    if (consumer) {
      try {
        if (this.runConfig?.autoCommit) await this.commitResolved(consumer);
      } catch (err) {
        this.logger().error('commit on stop failed', { error: (err as Error).message });
      }
      await consumer.close();
    }
    this.offsets.clear();
    this.instrumentation.emit(CONSUMER_EVENTS.STOP);
  }

  // ---- the group's events, through Brook's rebalance listener -------------------------

  private async revoked(partitions: TopicPartition[]): Promise<void> {
    this.rebalanceStartMs = Date.now();
    const consumer = this.consumer;
    const meta = consumer?.groupMetadata();
    this.instrumentation.emit(CONSUMER_EVENTS.REBALANCING, { groupId: this.config.groupId, memberId: meta?.memberId ?? '' });
    if (consumer && this.runConfig?.autoCommit) {
      try {
        await this.commitResolved(consumer, partitions);
      } catch (err) {
        this.logger().warn('commit before rebalance failed', { error: (err as Error).message });
      }
    }
    this.forget(partitions);
  }

  private lost(partitions: TopicPartition[]): void {
    this.rebalanceStartMs ??= Date.now();
    this.forget(partitions);
  }

  private forget(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.stale.add(key(tp.topic, tp.partition));
    this.offsets.forget(partitions);
  }

  private async assigned(partitions: TopicPartition[]): Promise<void> {
    const consumer = this.consumer;
    if (!consumer) return;
    // An eager rebalance revokes everything, then assigns: a partition given back starts again
    // from its committed offset, and this poll's records of it are to be handled.
    for (const tp of partitions) this.stale.delete(key(tp.topic, tp.partition));
    await this.startPositions(consumer, partitions);
    for (const [k, s] of this.pendingSeeks) {
      if (partitions.some((tp) => key(tp.topic, tp.partition) === k)) {
        consumer.seek(s, s.offset);
        this.pendingSeeks.delete(k);
      }
    }
    const meta = consumer.groupMetadata();
    const leaderId = consumer.groupLeaderId() ?? '';
    const memberAssignment: Record<string, number[]> = {};
    for (const tp of consumer.assignment()) (memberAssignment[tp.topic] ??= []).push(tp.partition);
    this.instrumentation.emit(CONSUMER_EVENTS.GROUP_JOIN, {
      duration: Date.now() - (this.rebalanceStartMs ?? Date.now()), groupId: this.config.groupId, isLeader: leaderId === meta.memberId,
      leaderId, groupProtocol: meta.protocol ?? '', memberId: meta.memberId, memberAssignment,
    });
    this.rebalanceStartMs = null;
  }

  // ---- the run loop --------------------------------------------------------------------

  private async runLoop(consumer: BrookConsumer, signal: AbortSignal): Promise<void> {
    while (this.running) {
      let records: ConsumerRecord[];
      this.instrumentation.emit(CONSUMER_EVENTS.FETCH_START, {});
      const started = Date.now();
      try {
        this.stale.clear();
        this.pollSeq = this.seekSeq;
        // At least 1 ms: poll(0) returns what is buffered without waiting for the fetch it
        // sends, and a loop of them never lets the response in (maxWaitTimeInMs: 0 is valid).
        records = await consumer.poll({ timeoutMs: Math.max(1, this.config.maxWaitTimeInMs ?? 5_000), signal });
      } catch (err) {
        if (!this.running) return;
        if (await this.crashed(toKafkaJSError(err))) continue;
        return;
      }
      const batches = new Map<string, ConsumerRecord[]>();
      for (const r of records) {
        const k = key(r.topic, r.partition);
        let list = batches.get(k);
        if (!list) batches.set(k, list = []);
        list.push(r);
      }
      this.instrumentation.emit(CONSUMER_EVENTS.FETCH, { numberOfBatches: batches.size, duration: Date.now() - started });
      const queue = [...batches.values()];
      let failure: Error | null = null;
      const worker = async (): Promise<void> => {
        for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
          try {
            await this.processBatch(consumer, batch);
          } catch (err) {
            failure ??= err as Error;
          }
        }
      };
      await Promise.all(Array.from({ length: this.runConfig!.partitionsConsumedConcurrently }, worker));
      if (failure === null) {
        this.failures = 0;
        continue;
      }
      if (!(await this.crashed(failure))) return;
    }
  }

  /**
   * A handler threw (or polling failed): its records come again after a pause that grows as
   * KafkaJS's retries do; after `retry.retries` failures in a row the consumer reports CRASH
   * and restarts unless `retry.restartOnFailure` says otherwise. Returns whether to go on.
   */
  private async crashed(error: Error): Promise<boolean> {
    const retry = this.config.retry ?? {};
    const retries = retry.retries ?? KAFKAJS_DEFAULTS.retries;
    this.failures++;
    this.logger().error(`Error when calling ${this.runConfig?.eachMessage ? 'eachMessage' : 'eachBatch'}`, { error: error.message });
    const initial = retry.initialRetryTime ?? KAFKAJS_DEFAULTS.initialRetryTime;
    const pause = Math.min(retry.maxRetryTime ?? KAFKAJS_DEFAULTS.maxRetryTime, initial * (retry.multiplier ?? 2) ** Math.min(this.failures - 1, 30));
    if (this.failures <= retries) {
      await sleep(pause, this.stopping?.signal);
      return this.running;
    }
    this.failures = 0;
    const crash = new KafkaJSNumberOfRetriesExceeded(error, { retryCount: retries });
    const restart = retry.restartOnFailure ? await retry.restartOnFailure(crash).catch(() => false) : true;
    this.instrumentation.emit(CONSUMER_EVENTS.CRASH, { error: crash, groupId: this.config.groupId, restart });
    if (!restart) {
      void this.stop();
      return false;
    }
    await sleep(pause, this.stopping?.signal);
    return this.running;
  }

  private async processBatch(consumer: BrookConsumer, records: ConsumerRecord[]): Promise<void> {
    const run = this.runConfig!;
    const { topic, partition } = records[0]!;
    const k = key(topic, partition);
    if (this.stale.has(k) || this.soughtSincePoll(k, true)) return;
    const isPaused = (): boolean => consumer.paused().some((tp) => tp.topic === topic && tp.partition === partition);
    if (!this.running || isPaused()) return this.rewind(consumer, topic, partition, records[0]!.offset);
    const lag = consumer.metrics().partitions.find((p) => p.topic === topic && p.partition === partition);
    const batch = toBatch(records, lag?.highWatermark ?? null);
    const payload = {
      topic, partition, highWatermark: batch.highWatermark, offsetLag: batch.offsetLag(), offsetLagLow: batch.offsetLagLow(),
      batchSize: records.length, firstOffset: batch.firstOffset(), lastOffset: batch.lastOffset(),
    };
    const started = Date.now();
    this.instrumentation.emit(CONSUMER_EVENTS.START_BATCH_PROCESS, payload);
    const pause = (): (() => void) => {
      consumer.pause([{ topic, partition }]);
      return () => this.resume([{ topic, partitions: [partition] }]);
    };
    const heartbeat = async (): Promise<void> => undefined;
    if (run.eachMessage) {
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        if (!this.running || this.stale.has(k) || this.soughtSincePoll(k, false) || isPaused()) return this.rewind(consumer, topic, partition, r.offset);
        try {
          await run.eachMessage({ topic, partition, message: batch.messages[i]!, heartbeat, pause });
        } catch (err) {
          this.rewind(consumer, topic, partition, r.offset);
          if (run.autoCommit) await this.commitResolved(consumer);
          throw err;
        }
        this.resolve(topic, partition, r.offset + 1n);
        if (run.autoCommit) await this.commitIfNecessary(consumer);
      }
    } else if (run.eachBatch) {
      try {
        await run.eachBatch({
          batch,
          resolveOffset: (offset) => this.resolve(topic, partition, BigInt(offset) + 1n),
          heartbeat,
          pause,
          commitOffsetsIfNecessary: async (offsets) => {
            if (offsets) await this.commitOffsets(offsets.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: p.offset }))));
            else if (run.autoCommit) await this.commitIfNecessary(consumer);
          },
          uncommittedOffsets: () => this.offsets.uncommitted(),
          isRunning: () => this.running,
          isStale: () => this.stale.has(k) || this.soughtSincePoll(k, false),
        });
        if (run.eachBatchAutoResolve) this.resolve(topic, partition, records[records.length - 1]!.offset + 1n);
      } catch (err) {
        this.rewindToResolved(consumer, records);
        if (run.autoCommit) await this.commitResolved(consumer);
        throw err;
      }
      // A batch left unresolved (in part) comes again, as in KafkaJS.
      this.rewindToResolved(consumer, records);
    }
    this.instrumentation.emit(CONSUMER_EVENTS.END_BATCH_PROCESS, { ...payload, duration: Date.now() - started });
    if (run.autoCommit) await this.commitResolved(consumer);
  }

  /** Puts the fetch position back to `offset` unless the partition moved meanwhile (seek, revoke). */
  private rewind(consumer: BrookConsumer, topic: string, partition: number, offset: bigint): void {
    const k = key(topic, partition);
    if (this.stale.has(k) || this.soughtSincePoll(k, false)) return;
    if (!consumer.assignment().some((tp) => tp.topic === topic && tp.partition === partition)) return;
    consumer.seek({ topic, partition }, offset);
  }

  /** After eachBatch: the position is past the batch; what it left unresolved comes again. */
  private rewindToResolved(consumer: BrookConsumer, records: readonly ConsumerRecord[]): void {
    const { topic, partition, offset: first } = records[0]!;
    const last = records[records.length - 1]!.offset;
    const resolved = this.offsets.resolvedOffset(topic, partition);
    const next = resolved !== undefined && resolved > first ? resolved : first;
    if (next <= last) this.rewind(consumer, topic, partition, next);
  }

  private resolve(topic: string, partition: number, offset: bigint): void {
    const k = key(topic, partition);
    if (!this.stale.has(k) && !this.soughtSincePoll(k, false)) this.offsets.resolve(topic, partition, offset);
  }

  /**
   * Whether the partition was sought since the current poll began (its records in hand are
   * not to be handled). `settle`, at a batch's start: a seek made meanwhile is made again (the
   * poll may have fetched from the old position) and forgotten; an older one is forgotten.
   */
  private soughtSincePoll(k: string, settle: boolean): boolean {
    const seek = this.seeks.get(k);
    if (!seek) return false;
    const since = seek.seq > this.pollSeq;
    if (settle) {
      this.seeks.delete(k);
      if (since) seek.apply();
    }
    return since;
  }

  /** Within a batch: commits when autoCommitInterval has passed or autoCommitThreshold offsets wait. */
  private async commitIfNecessary(consumer: BrookConsumer): Promise<void> {
    const run = this.runConfig!;
    const interval = run.autoCommitInterval !== null && Date.now() >= this.lastCommitMs + run.autoCommitInterval;
    const threshold = run.autoCommitThreshold !== null && this.offsets.pending().length >= run.autoCommitThreshold;
    if (interval || threshold) await this.commitResolved(consumer);
  }

  /** Commits the resolved offsets not committed yet (of `only`, when given). */
  private async commitResolved(consumer: BrookConsumer, only?: readonly TopicPartition[]): Promise<void> {
    const offsets = this.offsets.pending(only);
    this.lastCommitMs = Date.now();
    if (offsets.length > 0) await this.commit(consumer, offsets);
  }

  private async commit(consumer: BrookConsumer, offsets: readonly OffsetToCommit[]): Promise<void> {
    await kafkajsCall(() => consumer.commitSync(offsets));
    this.offsets.committedNow(offsets);
    const meta = consumer.groupMetadata();
    this.instrumentation.emit(CONSUMER_EVENTS.COMMIT_OFFSETS, {
      groupId: this.config.groupId, memberId: meta.memberId, groupGenerationId: meta.generationId,
      topics: byTopic(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) }))).topics,
    });
  }

  // ---- the application's calls ------------------------------------------------------------

  /** Commits these offsets now (the offset of the next message to read, as KafkaJS). */
  async commitOffsets(offsets: TopicPartitionOffsetAndMetadata[]): Promise<void> {
    checkCommitOffsets(offsets, this.consumer !== null);
    const list = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), ...(o.metadata ? { metadata: o.metadata } : {}) }));
    if (this.consumer) {
      await this.commit(this.consumer, list);
      for (const o of list) this.offsets.resolve(o.topic, o.partition, o.offset);
      return;
    }
    await this.admin.commitOffsets(this.config.groupId, list);
  }

  /** Moves a partition's position; its records in hand are dropped, the offset is committed (autoCommit) with the next commit. */
  seek({ topic, partition, offset }: { topic: string; partition: number; offset: string }): void {
    if (!topic || !Number.isInteger(partition) || !/^-?\d+$/.test(String(offset))) throw new KafkaJSNonRetriableError(`Invalid seek ${JSON.stringify({ topic, partition, offset })}`);
    const k = key(topic, partition);
    const target = BigInt(offset);
    const consumer = this.consumer;
    if (!consumer) throw new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first');
    if (consumer.assignment().some((tp) => tp.topic === topic && tp.partition === partition)) {
      const apply = (): void => {
        if (!consumer.assignment().some((tp) => tp.topic === topic && tp.partition === partition)) return;
        if (target === -2n) consumer.seekToBeginning([{ topic, partition }]);
        else if (target === -1n) consumer.seekToEnd([{ topic, partition }]);
        else consumer.seek({ topic, partition }, target);
      };
      apply();
      if (target >= 0n) this.offsets.set(topic, partition, target);
      this.seeks.set(k, { seq: ++this.seekSeq, apply });
    } else if (target >= 0n) {
      this.pendingSeeks.set(k, { topic, partition, offset: target });
    }
  }

  pause(topics: { topic: string; partitions?: number[] }[]): void {
    checkTopicPartitions(topics, this.consumer !== null, 'pause');
    this.consumer?.pause(this.expand(topics));
  }

  resume(topics: { topic: string; partitions?: number[] }[]): void {
    checkTopicPartitions(topics, this.consumer !== null, 'resume');
    this.consumer?.resume(this.expand(topics));
  }

  paused(): { topic: string; partitions: number[] }[] {
    const out = new Map<string, number[]>();
    for (const tp of this.consumer?.paused() ?? []) {
      let list = out.get(tp.topic);
      if (!list) out.set(tp.topic, list = []);
      list.push(tp.partition);
    }
    return [...out].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }));
  }

  private expand(topics: { topic: string; partitions?: number[] }[]): TopicPartition[] {
    const assigned = this.consumer?.assignment() ?? [];
    return topics.flatMap(({ topic, partitions }) => partitions ? partitions.map((partition) => ({ topic, partition })) : assigned.filter((tp) => tp.topic === topic))
      .filter((tp) => assigned.some((a) => a.topic === tp.topic && a.partition === tp.partition));
  }

  describeGroup(): Promise<unknown> {
    return this.admin.describeGroup(this.config.groupId);
  }
}
