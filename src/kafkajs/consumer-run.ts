/**
 * One `consumer.run()`: the loop that polls Brook's consumer and hands each partition's records
 * to the application's handler (consumer-batch-runner.ts), the group's events as Brook's
 * rebalance listener reports them, and the commits. Brook's consumer never commits by itself
 * here: what handlers resolved is committed as KafkaJS does (after each batch when autoCommit
 * is on; within a batch when autoCommitInterval or autoCommitThreshold says so), so an offset is
 * committed only once its eachMessage resolved or eachBatch resolved it (at least once).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CLIENT_CHANNELS, type FetchMessage } from '../client/diagnostics.js';
import type { Consumer as BrookConsumer, ConsumerRecord, OffsetToCommit } from '../client/consumer/index.js';
import type { TopicPartition } from '../assignors/types.js';
import { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, kafkajsCall, toKafkaJSError } from './errors.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Instrumentation } from './events.js';
import type { KafkaJSLogger } from './logger.js';
import { KAFKAJS_DEFAULTS } from './config.js';
import { CONSUMER_EVENTS, type ConsumerConfig, type ConsumerRunConfig } from './consumer-types.js';
import { byTopic, sleep, tpKey } from './consumer-batch.js';
import { ResolvedOffsets } from './resolved-offsets.js';
import { Positions } from './consumer-positions.js';
import { processBatch, processFilteredBatch } from './consumer-batch-runner.js';
import { PauseState, type TopicPartitionsArg } from './consumer-pauses.js';

/** KafkaJS's isRebalancing: the errors after which its runner joins the group again instead of retrying. */
function isRebalancing(e: Error): boolean {
  const type = (e as { type?: unknown }).type;
  return type === 'REBALANCE_IN_PROGRESS' || type === 'NOT_COORDINATOR_FOR_GROUP' || type === 'ILLEGAL_GENERATION';
}

interface PositionsNow {
  readonly generationId: number;
  readonly positions: ReadonlyMap<string, bigint>;
}

export type RunConfig = Required<Omit<ConsumerRunConfig, 'eachBatch' | 'eachMessage'>> & Pick<ConsumerRunConfig, 'eachBatch' | 'eachMessage'>;

/** What a run needs of the KafkaJS consumer that started it. */
export interface RunOwner {
  readonly config: ConsumerConfig;
  /** The client id its requests carry (its fetches are told apart by it). */
  clientId(): string;
  readonly instrumentation: Instrumentation;
  logger(): KafkaJSLogger;
  /** Whether the partitions of this topic start at the beginning when the group has no offset. */
  fromBeginning(topic: string): boolean;
  /** The topics subscribed, in the order subscribe() named them. */
  subscribedTopics(): readonly string[];
  /** The reset Brook's consumer was given: earliest (true) or latest. */
  resetsFromBeginning(): boolean;
  resume(topics: { topic: string; partitions?: number[] }[]): void;
  stop(): Promise<void>;
}

export class ConsumerRun {
  running = true;
  /** Next offset to commit per partition, as handlers resolved them. */
  readonly offsets = new ResolvedOffsets();
  readonly positions: Positions;
  /** What the application paused (pause() may come before the join; KafkaJS keeps it across rebalances). */
  readonly pauses = new PauseState();
  /**
   * Settles once the member joined its group for the first time (its partitions assigned and
   * GROUP_JOIN emitted), or the run failed or stopped first: KafkaJS's run() resolves then.
   */
  readonly joined: Promise<void>;
  private markJoined!: () => void;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;
  private lastCommitMs = Date.now();
  private rebalanceStartMs: number | null = Date.now();
  private failures = 0;
  private closing = false;
  /**
   * Per partition, the offset of the first fetch made during this poll (since its assignment,
   * when that came within the poll): where a poll's filtered data began when the position
   * before the poll was not known yet (the poll joined the group).
   */
  private readonly fetchedFrom = new Map<string, bigint>();
  private readonly fetchWatcher = (message: unknown): void => {
    const m = message as FetchMessage;
    if (m.clientId !== this.owner.clientId()) return;
    const k = tpKey(m.topic, m.partition);
    if (!this.fetchedFrom.has(k)) this.fetchedFrom.set(k, m.fetchOffset);
  };

  constructor(readonly consumer: BrookConsumer, readonly owner: RunOwner, readonly run: RunConfig) {
    this.positions = new Positions(consumer);
    this.joined = new Promise((resolve) => { this.markJoined = resolve; });
  }

  get instrumentation(): Instrumentation {
    return this.owner.instrumentation;
  }

  get groupId(): string {
    return this.owner.config.groupId;
  }

  /** The listener Brook's consumer reports the group's rebalances to. */
  listener(): { onPartitionsRevoked(p: TopicPartition[]): Promise<void>; onPartitionsLost(p: TopicPartition[]): void; onPartitionsAssigned(p: TopicPartition[]): Promise<void> } {
    return {
      onPartitionsRevoked: (partitions) => this.revoked(partitions),
      onPartitionsLost: (partitions) => this.lost(partitions),
      onPartitionsAssigned: (partitions) => this.assigned(partitions),
    };
  }

  start(): void {
    subscribe(CLIENT_CHANNELS.fetch, this.fetchWatcher);
    this.loop = this.runLoop().finally(() => this.markJoined());
  }

  /** Stops the loop, commits what was resolved (autoCommit) and leaves the group. */
  async stop(): Promise<void> {
    this.running = false;
    this.markJoined();
    this.stopping.abort();
    await this.loop;
    unsubscribe(CLIENT_CHANNELS.fetch, this.fetchWatcher);
    try {
      if (this.run.autoCommit) await this.commitResolved();
    } catch (err) {
      this.owner.logger().error('commit on stop failed', { error: (err as Error).message });
    }
    this.closing = true;
    await this.consumer.close();
    this.offsets.clear();
  }

  // ---- the group's events, through Brook's rebalance listener -------------------------

  private async revoked(partitions: TopicPartition[]): Promise<void> {
    // Leaving the group on stop: stop() committed already, and it is no rebalance.
    if (this.closing) return this.forget(partitions);
    this.rebalanceStartMs = Date.now();
    const meta = this.consumer.groupMetadata();
    this.instrumentation.emit(CONSUMER_EVENTS.REBALANCING, { groupId: this.groupId, memberId: meta.memberId });
    if (this.run.autoCommit) {
      try {
        await this.commitResolved(partitions);
      } catch (err) {
        this.owner.logger().warn('commit before rebalance failed', { error: (err as Error).message });
      }
    }
    this.forget(partitions);
  }

  private lost(partitions: TopicPartition[]): void {
    this.rebalanceStartMs ??= Date.now();
    this.forget(partitions);
  }

  private forget(partitions: readonly TopicPartition[]): void {
    this.positions.forget(partitions);
    this.offsets.forget(partitions);
  }

  private async assigned(partitions: TopicPartition[]): Promise<void> {
    if (this.closing) return;
    const consumer = this.consumer;
    this.positions.assigned(partitions);
    for (const tp of partitions) this.fetchedFrom.delete(tpKey(tp.topic, tp.partition));
    await this.startPositions(partitions);
    this.positions.applyPendingSeeks(partitions);
    const meta = consumer.groupMetadata();
    this.setAsideUnsubscribed(meta);
    this.applyPauses();
    const leaderId = consumer.groupLeaderId() ?? '';
    const memberAssignment: Record<string, number[]> = {};
    for (const tp of this.assignment()) (memberAssignment[tp.topic] ??= []).push(tp.partition);
    this.instrumentation.emit(CONSUMER_EVENTS.GROUP_JOIN, {
      duration: Date.now() - (this.rebalanceStartMs ?? Date.now()), groupId: this.groupId, isLeader: leaderId === meta.memberId,
      leaderId, groupProtocol: meta.protocol ?? '', memberId: meta.memberId, memberAssignment,
    });
    this.rebalanceStartMs = null;
    this.markJoined();
  }

  /**
   * A leader may give this member partitions of topics it did not subscribe to (KafkaJS's
   * RoundRobinAssigner deals the leader's topics to everyone). As KafkaJS, the member reports
   * RECEIVED_UNSUBSCRIBED_TOPICS and leaves them alone: they stay paused, out of the
   * assignment the application sees.
   */
  private setAsideUnsubscribed(meta: { memberId: string; generationId: number }): void {
    const subscribed = this.owner.subscribedTopics();
    const assignedTopics = [...new Set(this.consumer.assignment().map((tp) => tp.topic))];
    const topicsNotSubscribed = assignedTopics.filter((t) => !subscribed.includes(t));
    if (topicsNotSubscribed.length === 0) return;
    const payload = { groupId: this.groupId, generationId: meta.generationId, memberId: meta.memberId, assignedTopics, topicsSubscribed: [...subscribed], topicsNotSubscribed };
    this.instrumentation.emit(CONSUMER_EVENTS.RECEIVED_UNSUBSCRIBED_TOPICS, payload);
    this.owner.logger().warn('Consumer group received unsubscribed topics', payload);
    this.consumer.pause(this.consumer.assignment().filter((tp) => !subscribed.includes(tp.topic)));
  }

  /** The member's partitions of the topics it subscribed to. */
  assignment(): TopicPartition[] {
    const subscribed = this.owner.subscribedTopics();
    return this.consumer.assignment().filter((tp) => subscribed.includes(tp.topic));
  }

  /** The paused partitions of the topics it subscribed to. */
  paused(): TopicPartition[] {
    return this.assignment().filter((tp) => this.pauses.isPaused(tp));
  }

  /** KafkaJS's pause: kept for the topic's partitions assigned now and later. */
  pause(list: readonly TopicPartitionsArg[]): void {
    this.pauses.pause(list);
    this.applyPauses();
  }

  resume(list: readonly TopicPartitionsArg[]): void {
    this.pauses.resume(list);
    this.applyPauses();
  }

  /** Brook's consumer fetches exactly the assigned partitions (of subscribed topics) not paused. */
  private applyPauses(): void {
    const assigned = this.assignment();
    this.consumer.pause(assigned.filter((tp) => this.pauses.isPaused(tp)));
    this.consumer.resume(assigned.filter((tp) => !this.pauses.isPaused(tp)));
  }

  /** Partitions of topics whose fromBeginning differs from the consumer's reset, with no committed offset: to their start or end. */
  private async startPositions(partitions: readonly TopicPartition[]): Promise<void> {
    const earliest = this.owner.resetsFromBeginning();
    const other = partitions.filter((tp) => this.owner.fromBeginning(tp.topic) !== earliest);
    if (other.length === 0) return;
    const committed = await this.consumer.committed(other);
    const none = other.filter((tp) => committed.get(`${tp.topic}:${tp.partition}`) == null && !this.positions.hasPendingSeek(tp.topic, tp.partition));
    if (none.length === 0) return;
    if (earliest) this.consumer.seekToEnd(none);
    else this.consumer.seekToBeginning(none);
  }

  // ---- the run loop --------------------------------------------------------------------

  private async runLoop(): Promise<void> {
    while (this.running) {
      let records: ConsumerRecord[];
      let before: PositionsNow = { generationId: -1, positions: new Map() };
      this.instrumentation.emit(CONSUMER_EVENTS.FETCH_START, {});
      const started = Date.now();
      try {
        this.positions.beginPoll();
        before = this.positionsNow();
        this.fetchedFrom.clear();
        // At least 1 ms: poll(0) returns what is buffered without waiting for the fetch it
        // sends, and a loop of them never lets the response in (maxWaitTimeInMs: 0 is valid).
        records = await this.consumer.poll({ timeoutMs: Math.max(1, this.owner.config.maxWaitTimeInMs ?? 5_000), signal: this.stopping.signal });
      } catch (err) {
        if (!this.running) return;
        if (await this.crashed(toKafkaJSError(err))) continue;
        return;
      }
      const batches = new Map<string, ConsumerRecord[]>();
      for (const r of records) {
        const k = tpKey(r.topic, r.partition);
        let list = batches.get(k);
        if (!list) batches.set(k, list = []);
        list.push(r);
      }
      this.instrumentation.emit(CONSUMER_EVENTS.FETCH, { numberOfBatches: batches.size, duration: Date.now() - started });
      const queue: (ConsumerRecord[] | (() => Promise<void>))[] = [...batches.values(), ...this.filteredBatches(before, batches)];
      let failure: Error | null = null;
      const worker = async (): Promise<void> => {
        for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
          try {
            await (typeof batch === 'function' ? batch() : processBatch(this, batch));
          } catch (err) {
            failure ??= err as Error;
          }
        }
      };
      await Promise.all(Array.from({ length: this.run.partitionsConsumedConcurrently }, worker));
      if (failure !== null && isRebalancing(failure)) {
        // A handler stopped for a rebalance (heartbeat() threw): the next poll joins again, as KafkaJS's runner does.
        this.owner.logger().warn('The group is rebalancing, re-joining', { groupId: this.groupId, memberId: this.consumer.groupMetadata().memberId, error: (failure as Error).message });
        continue;
      }
      if (failure === null) {
        this.failures = 0;
        continue;
      }
      if (!(await this.crashed(failure))) return;
    }
  }

  private positionsNow(): PositionsNow {
    const positions = new Map<string, bigint>();
    for (const p of this.consumer.metrics().partitions) if (p.position !== null) positions.set(tpKey(p.topic, p.partition), p.position);
    return { generationId: this.consumer.groupMetadata().generationId, positions };
  }

  /**
   * The partitions whose position this poll moved without giving a record (only transaction
   * markers or aborted records were fetched): each is an empty batch
   * for KafkaJS's events and offsets (processFilteredBatch).
   */
  private filteredBatches(before: PositionsNow, batches: ReadonlyMap<string, unknown>): (() => Promise<void>)[] {
    const sameGeneration = before.generationId === this.consumer.groupMetadata().generationId;
    const subscribed = this.owner.subscribedTopics();
    const out: (() => Promise<void>)[] = [];
    for (const p of this.consumer.metrics().partitions) {
      const k = tpKey(p.topic, p.partition);
      const from = (sameGeneration ? before.positions.get(k) : undefined) ?? this.fetchedFrom.get(k);
      if (from === undefined || p.position === null || p.position <= from || batches.has(k) || !subscribed.includes(p.topic)) continue;
      if (this.positions.isStale(p.topic, p.partition)) continue;
      const to = p.position;
      out.push(() => processFilteredBatch(this, p.topic, p.partition, from, to, p.highWatermark));
    }
    return out;
  }

  /**
   * A handler threw (or polling failed): its records come again after a pause that grows as
   * KafkaJS's retries do; after `retry.retries` failures in a row the consumer reports CRASH
   * and restarts unless `retry.restartOnFailure` says otherwise. Returns whether to go on.
   */
  private async crashed(error: Error): Promise<boolean> {
    const retry = this.owner.config.retry ?? {};
    const retries = retry.retries ?? KAFKAJS_DEFAULTS.retries;
    this.failures++;
    this.owner.logger().error(`Error when calling ${this.run.eachMessage ? 'eachMessage' : 'eachBatch'}`, { error: error.message });
    const initial = retry.initialRetryTime ?? KAFKAJS_DEFAULTS.initialRetryTime;
    const pause = Math.min(retry.maxRetryTime ?? KAFKAJS_DEFAULTS.maxRetryTime, initial * (retry.multiplier ?? 2) ** Math.min(this.failures - 1, 30));
    if (this.failures <= retries) {
      await sleep(pause, this.stopping.signal);
      return this.running;
    }
    this.failures = 0;
    const crash = new KafkaJSNumberOfRetriesExceeded(error, { retryCount: retries });
    this.markJoined();
    const restart = retry.restartOnFailure ? await retry.restartOnFailure(crash).catch(() => false) : true;
    this.instrumentation.emit(CONSUMER_EVENTS.CRASH, { error: crash, groupId: this.groupId, restart });
    if (!restart) {
      void this.owner.stop();
      return false;
    }
    await sleep(pause, this.stopping.signal);
    return this.running;
  }

  /**
   * KafkaJS's heartbeat() in a handler. Brook's consumer heartbeats on its own timer (and emits
   * HEARTBEAT for each), so nothing is sent here; what remains of KafkaJS's is the answer: when
   * the group is rebalancing (a heartbeat was answered REBALANCE_IN_PROGRESS, and every KafkaJS
   * assigner is eager, so every partition is to be revoked), the resolved offsets are committed
   * (autoCommit) and it throws KafkaJS's rebalancing error, so the handler stops and the member
   * joins again without the group waiting for the rest of its batch.
   */
  async heartbeat(): Promise<void> {
    if (!this.consumer.rebalancePending()) return;
    if (this.run.autoCommit) await this.commitResolved();
    throw new KafkaJSProtocolError(ErrorCode.REBALANCE_IN_PROGRESS);
  }

  /** Whether a rebalance waits for this member (a batch stops between records then, as KafkaJS's runner heartbeats between them). */
  rebalancePending(): boolean {
    return this.consumer.rebalancePending();
  }

  // ---- offsets and commits -------------------------------------------------------------

  /** A handler got up to `offset` (exclusive), unless the partition moved meanwhile. */
  resolve(topic: string, partition: number, offset: bigint): void {
    if (!this.positions.isStale(topic, partition)) this.offsets.resolve(topic, partition, offset);
  }

  /** After eachBatch: the position is past the batch; what it left unresolved comes again. */
  rewindToResolved(records: readonly ConsumerRecord[]): void {
    const { topic, partition, offset: first } = records[0]!;
    const last = records[records.length - 1]!.offset;
    const resolved = this.offsets.resolvedOffset(topic, partition);
    const next = resolved !== undefined && resolved > first ? resolved : first;
    if (next <= last) this.positions.rewind(topic, partition, next);
  }

  /** Within a batch: commits when autoCommitInterval has passed or autoCommitThreshold offsets wait. */
  async commitIfNecessary(): Promise<void> {
    const interval = this.run.autoCommitInterval !== null && Date.now() >= this.lastCommitMs + this.run.autoCommitInterval;
    const threshold = this.run.autoCommitThreshold !== null && this.offsets.pending().length >= this.run.autoCommitThreshold;
    if (interval || threshold) await this.commitResolved();
  }

  /** Commits the resolved offsets not committed yet (of `only`, when given). */
  async commitResolved(only?: readonly TopicPartition[]): Promise<void> {
    const offsets = this.offsets.pending(only);
    this.lastCommitMs = Date.now();
    if (offsets.length > 0) await this.commit(offsets, true);
  }

  /** `resolved`: the run's own resolved offsets, whose partitions KafkaJS's event reports as strings (byTopic). */
  async commit(offsets: readonly OffsetToCommit[], resolved = false): Promise<void> {
    await kafkajsCall(() => this.consumer.commitSync(offsets));
    this.offsets.committedNow(offsets);
    const meta = this.consumer.groupMetadata();
    this.instrumentation.emit(CONSUMER_EVENTS.COMMIT_OFFSETS, {
      groupId: this.groupId, memberId: meta.memberId, groupGenerationId: meta.generationId,
      topics: byTopic(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) })), resolved).topics,
    });
  }

  /** The application's commitOffsets during a run: committed now, and counted as resolved. */
  async commitOffsets(offsets: readonly OffsetToCommit[]): Promise<void> {
    await this.commit(offsets);
    for (const o of offsets) this.offsets.resolve(o.topic, o.partition, o.offset);
  }

  /** KafkaJS's seek; a sought offset is committed (autoCommit) with the next commit. */
  seek(topic: string, partition: number, target: bigint): void {
    if (this.positions.seek(topic, partition, target) && target >= 0n) this.offsets.set(topic, partition, target);
  }
}
