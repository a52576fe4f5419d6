/**
 * Brook's producer (Kafka's KafkaProducer): `send` returns a promise per record, settled
 * when the broker acknowledged the record's batch (or it failed for good); `send` with a
 * callback (Java's `send(record, Callback)`) and `sendBatch` (one promise for many records)
 * spare the promise per record, which is most of a small record's cost. Records are
 * written straight into per-partition batches; a background sender ships them (see
 * sender.ts). A send that cannot be appended at once — its topic's metadata is unknown or
 * `bufferMemory` is full — waits in a FIFO (so records keep their order) for at most
 * `maxBlockMs`, then fails with MetadataTimeoutError or BufferExhaustedError.
 */
import { Cluster } from '../cluster.js';
import { withTimeLimit } from '../deadline.js';
import { callTimeoutMs } from '../options.js';
import type { KafkaProtocolError } from '../../protocol/errors.js';
import type { TimerHandle } from '../../util/clock.js';
import { RecordAccumulator } from './accumulator.js';
import {
  BufferExhaustedError, IllegalStateError, InvalidPartitionError, MetadataTimeoutError, ProducerClosedError, RecordTooLargeError, TransactionAbortedError,
} from './errors.js';
import { ProducerMetadata } from './metadata.js';
import { ProducerMetricsRecorder, type ProducerMetrics } from './metrics.js';
import { resolveOptions, STICKY_PARTITION_BYTES, type ProducerOptions, type ResolvedOptions } from './options.js';
import { resolveSerdes, type Serializers } from '../serdes.js';
import { serializeInto } from './serialize.js';
import { partitionForKeyInput, StickyPartitioner, type PartitionerFunction } from './partitioner.js';
import type { RecordMetadata } from './producer-batch.js';
import { byteLength, recordSizeUpperBound, sizeOfHeaders, type Bytes, type HeadersInput, type MeasuredRecord } from './record-writer.js';
import { Sender } from './sender.js';
import { BlockedSends } from './blocked-sends.js';
import { deliverError, SendBatchDelivery, type DeliveryTag, type DeliveryTarget, type RecordCallback } from './delivery.js';
import { TransactionRequests, type ConsumerGroupMetadata, type OffsetInTransaction } from './transaction-requests.js';
import { TransactionManager, type TransactionState } from './transactions.js';

/** The time limit and cancellation of a transactional call (default: maxBlockMs, as Java's). */
export interface TransactionCallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** K, V and H: what the producer's serializers take (Buffer or string without them); null or absent is sent as null. */
export interface ProducerRecord<K = Buffer | string, V = Buffer | string, H = Buffer | string> {
  readonly topic: string;
  readonly key?: K | null;
  readonly value?: V | null;
  readonly headers?: HeadersInput<H>;
  /** Explicit partition; otherwise the partitioner decides. */
  readonly partition?: number;
  /** CreateTime in ms since the epoch; default: now. */
  readonly timestamp?: number | bigint | Date;
}

function measureInto(measured: MeasuredRecord): void {
  measured.keyLength = byteLength(measured.key);
  measured.valueLength = byteLength(measured.value);
  measured.headersSize = sizeOfHeaders(measured.headers);
}

/** A shared promise executor: the resolvers are picked up right after `new Promise`, with no closure per send. */
let capturedResolve: (m: RecordMetadata) => void = () => undefined;
let capturedReject: (e: Error) => void = () => undefined;
function captureResolvers(resolve: (m: RecordMetadata) => void, reject: (e: Error) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

/**
 * K, V and H are the types the `serializers` option takes for keys, values and header
 * values: `new Producer({ ..., serializers: stringSerializers })` is a `Producer<string, string, string>`.
 */
export class Producer<K = Buffer | string, V = Buffer | string, H = Buffer | string> {
  private readonly cluster: Cluster;
  private readonly options: ResolvedOptions;
  private readonly accumulator: RecordAccumulator;
  private readonly metadata: ProducerMetadata;
  private readonly sender: Sender;
  private readonly sticky: StickyPartitioner;
  private readonly partitioner: PartitionerFunction | undefined;
  private readonly serializers: Serializers<K, V, H> | null;
  private readonly metricsRecorder: ProducerMetricsRecorder;
  /** null without a transactionalId. */
  private readonly transactions: TransactionManager | null;
  private readonly blocked = new BlockedSends();
  /** Sends that left the blocked queue so far (flush waits for a count). */
  private blockedDone = 0;
  private blockedTotal = 0;
  private blockedTimer: TimerHandle | null = null;
  /** The blocked send (by its number, blockedDone when first) the timer is armed for; -1: none. */
  private blockedTimerFor = -1;
  private readonly topicErrors = new Map<string, KafkaProtocolError>();
  private closing: Promise<void> | null = null;
  private readonly scratch: MeasuredRecord = { key: null, value: null, headers: undefined, keyLength: -1, valueLength: -1, headersSize: 1 };

  constructor(options: ProducerOptions<K, V, H>) {
    this.options = resolveOptions(options);
    this.serializers = resolveSerdes('serializers', options.serializers);
    this.cluster = new Cluster({
      bootstrapServers: this.options.bootstrapServers, clientId: this.options.clientId, requestTimeoutMs: this.options.requestTimeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs, retryBackoffMs: this.options.retryBackoffMs, tls: this.options.tls, sasl: this.options.sasl, scheduler: options.scheduler,
      logger: options.logger, connectionFactory: options.connectionFactory,
    });
    this.partitioner = options.partitioner;
    this.metricsRecorder = new ProducerMetricsRecorder(this.cluster.scheduler);
    this.sticky = new StickyPartitioner(Math.min(this.options.batchSize, STICKY_PARTITION_BYTES));
    this.accumulator = new RecordAccumulator({ batchSize: this.options.batchSize, bufferMemory: this.options.bufferMemory, compression: this.options.compression });
    this.metadata = new ProducerMetadata(this.cluster, () => {
      this.drainBlocked();
      this.sender.wakeup();
    }, (topic, err) => {
      this.topicErrors.set(topic, err);
      this.drainBlocked();
    });
    const id = this.options.transactionalId;
    this.transactions = id === null ? null : new TransactionManager(new TransactionRequests(this.cluster, id), this.options.transactionTimeoutMs);
    this.sender = new Sender(this.cluster, this.accumulator, this.metadata, {
      acks: this.options.acks, lingerMs: this.options.lingerMs, requestTimeoutMs: this.options.requestTimeoutMs,
      deliveryTimeoutMs: this.options.deliveryTimeoutMs, retries: this.options.retries, retryBackoffMs: this.options.retryBackoffMs,
      retryBackoffMaxMs: this.options.retryBackoffMaxMs, maxInFlight: this.options.maxInFlight, maxRequestSize: this.options.maxRequestSize,
      compression: this.options.compression, compressionLevel: this.options.compressionLevel, idempotent: this.options.idempotent,
      transactionalId: id,
    }, () => this.drainBlocked(), this.metricsRecorder, this.transactions);
    this.transactions?.attach(this.sender);
    this.metadata.refreshEvery(this.options.metadataMaxAgeMs);
  }

  /**
   * A snapshot of the producer's metrics: records and bytes sent, errors, retries, request
   * latency and batch sizes (rates, averages and maxima over the last 30 s of its clock).
   */
  metrics(): ProducerMetrics {
    return this.metricsRecorder.snapshot();
  }

  /** Whether this producer uses idempotence (the broker deduplicates retries). */
  get idempotent(): boolean {
    return this.options.idempotent;
  }

  /** Producer id and epoch once InitProducerId answered (-1 before, or without idempotence). */
  get producerIdAndEpoch(): { producerId: bigint; producerEpoch: number } {
    return this.sender.producerIdAndEpoch;
  }

  /**
   * Optional: reaches a broker and loads cluster metadata now instead of on the first send;
   * fails with NoBrokerReachableError when no bootstrap broker accepts a connection, or
   * TimeoutError after `timeoutMs` (default defaultApiTimeoutMs).
   */
  async connect(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const timeoutMs = callTimeoutMs(options.timeoutMs, this.options.defaultApiTimeoutMs);
    await withTimeLimit(this.cluster.scheduler, { what: 'Producer.connect', timeoutMs, signals: [options.signal] }, (signal) => this.cluster.refreshMetadata([], signal));
  }

  /**
   * Sends a record: the promise resolves with its metadata once the broker acknowledged it
   * (as `acks` asks), or rejects when it failed for good. With a callback instead (Java's
   * `send(record, Callback)`), nothing is returned and the callback is called once, with
   * (null, metadata) or (error, null) — never synchronously.
   */
  send(record: ProducerRecord<K, V, H>): Promise<RecordMetadata>;
  send(record: ProducerRecord<K, V, H>, callback: RecordCallback): void;
  send(record: ProducerRecord<K, V, H>, callback?: RecordCallback): Promise<RecordMetadata> | void {
    if (callback !== undefined) {
      try {
        this.enqueue(record, callback, null, this.cluster.scheduler.nowMs());
      } catch (err) {
        process.nextTick(callback, err as Error, null);
      }
      return;
    }
    const promise = new Promise<RecordMetadata>(captureResolvers);
    const resolve = capturedResolve;
    const reject = capturedReject;
    try {
      this.enqueue(record, resolve, reject, this.cluster.scheduler.nowMs());
    } catch (err) {
      reject(err as Error);
    }
    return promise;
  }

  /** Sends every record; resolves with their metadata in order, or rejects with the first failure. One promise for all. */
  sendBatch(records: readonly ProducerRecord<K, V, H>[]): Promise<RecordMetadata[]> {
    const delivery = new SendBatchDelivery(records.length);
    // One clock reading for the batch: the records are appended in the same instant.
    const now = this.cluster.scheduler.nowMs();
    for (let i = 0; i < records.length; i++) {
      try {
        this.enqueue(records[i]!, delivery, i, now);
      } catch (err) {
        delivery.failed(i, err as Error);
      }
    }
    return delivery.promise;
  }

  /** Appends the record or queues it behind the blocked ones; throws for a record that can never be sent. */
  private enqueue(record: ProducerRecord<K, V, H>, target: DeliveryTarget, tag: DeliveryTag, now: number): void {
    if (this.closing) throw new ProducerClosedError('the producer is closed');
    if (this.transactions !== null) this.transactions.checkSend();
    if (typeof record?.topic !== 'string' || record.topic === '') throw new TypeError('record.topic must be a non-empty string');
    // Appending is synchronous, so one scratch object serves every fast-path send.
    const measured = this.scratch;
    if (this.serializers === null) {
      // Without serializers K, V and H are the raw Bytes types.
      measured.key = (record.key ?? null) as Bytes;
      measured.value = (record.value ?? null) as Bytes;
      measured.headers = record.headers as HeadersInput | undefined;
    } else {
      serializeInto(measured, record, this.serializers);
    }
    measureInto(measured);
    const upperBound = recordSizeUpperBound(measured);
    if (upperBound > this.options.maxRequestSize || upperBound > this.options.bufferMemory) {
      throw new RecordTooLargeError(`The record is ${upperBound} bytes when serialized, larger than maxRequestSize (${this.options.maxRequestSize}) or bufferMemory (${this.options.bufferMemory})`);
    }
    const timestamp = record.timestamp === undefined ? now : toMillis(record.timestamp);
    const firstBlocked = this.blocked.length === 0;
    if (firstBlocked && this.tryAppend(record, measured, upperBound, timestamp, now, target, tag)) return;
    this.blocked.push(record, measured.key, measured.value, measured.headers, upperBound, timestamp, now + this.options.maxBlockMs, target, tag);
    this.blockedTotal++;
    // Behind other waiting sends, nothing changed for the first of them since it was tried:
    // what it waits for (acknowledged batches freeing memory, metadata, its deadline) drains
    // the queue when it comes. A send loop past bufferMemory would otherwise try it again,
    // and re-arm its timer, once per send.
    if (firstBlocked) this.drainBlocked();
  }

  /** A waiting send's bytes, measured again into the scratch object. */
  private measureBlocked(b: BlockedSends): MeasuredRecord {
    const measured = this.scratch;
    measured.key = b.key;
    measured.value = b.value;
    measured.headers = b.headersInput;
    measureInto(measured);
    return measured;
  }

  /**
   * Appends now when the topic's metadata is known and memory allows; false to wait.
   * Throws for records that can never be appended (the caller's promise rejects).
   */
  private tryAppend(
    record: ProducerRecord<unknown, unknown, unknown>, measured: MeasuredRecord, upperBound: number, timestamp: number, now: number,
    target: DeliveryTarget, tag: DeliveryTag,
  ): boolean {
    if (this.topicErrors.size > 0) {
      const topicError = this.topicErrors.get(record.topic);
      if (topicError) throw topicError;
    }
    const count = this.metadata.partitionCount(record.topic);
    if (count <= 0) {
      // Metadata cannot come while the brokers refuse the login (Java's send throws it too).
      const refused = this.cluster.authenticationError;
      if (refused) throw refused;
      return false;
    }
    const partition = this.choosePartition(record, measured, count);
    if (partition >= count) return false; // an explicit partition the metadata does not show (yet)
    if (!this.accumulator.hasRoom(upperBound)) return false;
    const accumulator = this.accumulator;
    if (this.transactions !== null) this.transactions.maybeAddPartition(accumulator.queue(record.topic, partition));
    accumulator.append(record.topic, partition, measured, timestamp, now, target, tag);
    if (record.partition === undefined && measured.key === null && !this.partitioner) this.sticky.onAppend(record.topic, partition, accumulator.appendedBytes);
    if (accumulator.appendWakesSender) this.sender.wakeup();
    return true;
  }

  /** The partition for the record; keys are hashed (and partitioners see them) as serialized, as in Java. */
  private choosePartition(record: ProducerRecord<unknown, unknown, unknown>, measured: MeasuredRecord, count: number): number {
    if (record.partition !== undefined) {
      if (!Number.isInteger(record.partition) || record.partition < 0) throw new InvalidPartitionError(`invalid partition ${record.partition}`);
      return record.partition;
    }
    const key = measured.key;
    if (this.partitioner) {
      const keyBytes = key === null ? null : typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
      const p = this.partitioner({ topic: record.topic, key: keyBytes, value: measured.value, partitionCount: count });
      if (!Number.isInteger(p) || p < 0 || p >= count) throw new InvalidPartitionError(`the partitioner returned ${p} for a topic with ${count} partitions`);
      return p;
    }
    if (key !== null) return partitionForKeyInput(key, count);
    const sticky = this.sticky.current(record.topic, count);
    if (sticky >= 0) return sticky;
    return this.sticky.partition(record.topic, count, (p) => this.metadata.leaderOf(record.topic, p) >= 0);
  }

  /** Appends waiting sends in order while their metadata is known and memory allows. */
  private drainBlocked(): void {
    const now = this.cluster.scheduler.nowMs();
    const head = this.blocked;
    while (head.length > 0) {
      const target = head.target;
      const tag = head.tag;
      let appended: boolean;
      try {
        appended = this.tryAppend(head.record, this.measureBlocked(head), head.upperBound, head.timestamp, now, target, tag);
      } catch (err) {
        this.leaveBlocked();
        deliverError(target, tag, err as Error);
        continue;
      }
      if (appended) {
        this.leaveBlocked();
        continue;
      }
      if (now >= head.deadlineMs) {
        const error = this.blockedError(head);
        this.leaveBlocked();
        deliverError(target, tag, error);
        continue;
      }
      const record = head.record;
      if (this.metadata.partitionCount(record.topic) <= 0 || (record.partition ?? 0) >= this.metadata.partitionCount(record.topic)) {
        this.metadata.request(record.topic);
      }
      break;
    }
    this.armBlockedTimer(now);
  }

  private leaveBlocked(): void {
    this.blocked.shift();
    this.blockedDone++;
    if (this.blockedWaiters.length > 0) {
      const still = this.blockedWaiters.filter((w) => w.until > this.blockedDone);
      for (const w of this.blockedWaiters) if (w.until <= this.blockedDone) w.resolve();
      this.blockedWaiters = still;
    }
  }

  private blockedWaiters: { until: number; resolve: () => void }[] = [];

  /** Why the first blocked send `b` failed at its deadline. */
  private blockedError(b: BlockedSends): Error {
    const topic = b.record.topic;
    const count = this.metadata.partitionCount(topic);
    if (count <= 0) {
      const failure = this.metadata.lastFailure;
      return new MetadataTimeoutError(`Topic ${topic} not present in metadata after ${this.options.maxBlockMs} ms${failure ? `: ${failure.message}` : '.'}`, { cause: failure ?? undefined });
    }
    if ((b.record.partition ?? 0) >= count) {
      return new MetadataTimeoutError(`Partition ${b.record.partition} of topic ${topic} with partition count ${count} is not present in metadata after ${this.options.maxBlockMs} ms.`);
    }
    return new BufferExhaustedError(`Failed to allocate ${b.upperBound} bytes within the configured max blocking time ${this.options.maxBlockMs} ms. Total memory: ${this.options.bufferMemory} bytes.`);
  }

  private armBlockedTimer(now: number): void {
    // Sends leave in order: the first waiting one is number blockedDone.
    const head = this.blocked.length > 0 ? this.blockedDone : -1;
    if (head === this.blockedTimerFor) return;
    this.blockedTimer?.cancel();
    this.blockedTimer = null;
    this.blockedTimerFor = head;
    if (head === -1) return;
    this.blockedTimer = this.cluster.scheduler.schedule(this.blocked.deadlineMs - now, () => {
      this.blockedTimerFor = -1;
      this.blockedTimer = null;
      this.drainBlocked();
    });
  }

  // ---- transactions (transactions.ts) ---------------------------------------------------

  /** The transaction manager's state (Java's TransactionManager states); null without a transactionalId. */
  get transactionState(): TransactionState | null {
    return this.transactions?.state ?? null;
  }

  /**
   * Gets the transactional id's producer id and epoch from its coordinator, fencing every
   * earlier producer with the same id and completing (aborting) a transaction it left open.
   * Once per producer, before any other transactional call. A call that times out can be
   * repeated: it waits for the same InitProducerId.
   */
  initTransactions(options: TransactionCallOptions = {}): Promise<void> {
    return this.transactionCall('initTransactions', options, (tx) => tx.initTransactions());
  }

  /** Starts a transaction: the records sent until commitTransaction or abortTransaction belong to it. */
  beginTransaction(): void {
    this.transactionManager('beginTransaction').beginTransaction();
  }

  /**
   * Makes the consumer group's offsets part of the transaction (AddOffsetsToTxn, then
   * TxnOffsetCommit to the group's coordinator): they become the group's committed offsets
   * when the transaction commits. `groupMetadata` is the consumer's `groupMetadata()`;
   * its generation and member id let the coordinator refuse a member that was fenced.
   */
  sendOffsetsToTransaction(offsets: readonly OffsetInTransaction[], groupMetadata: ConsumerGroupMetadata, options: TransactionCallOptions = {}): Promise<void> {
    return this.transactionCall('sendOffsetsToTransaction', options, (tx, signal) => tx.sendOffsetsToTransaction(offsets, groupMetadata, signal));
  }

  /**
   * Flushes the transaction's records, then commits it (EndTxn). When a record failed, it
   * rejects with TransactionAbortableError and the transaction must be aborted. A call
   * that times out can be repeated: it waits for the same commit.
   */
  commitTransaction(options: TransactionCallOptions = {}): Promise<void> {
    return this.transactionCall('commitTransaction', options, (tx) => tx.commitTransaction(() => this.flush()));
  }

  /**
   * Aborts the transaction: records not sent yet fail with TransactionAbortedError, the
   * ones in flight are waited for, then EndTxn(abort); read_committed consumers never see
   * its records.
   */
  abortTransaction(options: TransactionCallOptions = {}): Promise<void> {
    return this.transactionCall('abortTransaction', options, (tx) => {
      const abort = tx.abortTransaction();
      this.failBlocked(new TransactionAbortedError('Failing record since transaction was aborted'));
      return abort;
    });
  }

  private transactionManager(what: string): TransactionManager {
    if (this.closing) throw new ProducerClosedError('the producer is closed');
    if (this.transactions === null) throw new IllegalStateError(`Cannot ${what}: the producer has no transactionalId`);
    return this.transactions;
  }

  private async transactionCall(what: string, options: TransactionCallOptions, call: (tx: TransactionManager, signal: AbortSignal) => Promise<void>): Promise<void> {
    const tx = this.transactionManager(what);
    const timeoutMs = callTimeoutMs(options.timeoutMs, this.options.maxBlockMs);
    await withTimeLimit(this.cluster.scheduler, { what: `Producer.${what}`, timeoutMs, signals: [options.signal] }, async (signal) => call(tx, signal));
  }

  /** Fails every send still waiting for metadata or memory. */
  private failBlocked(err: Error): void {
    this.blocked.drain((target, tag) => {
      this.blockedDone++;
      deliverError(target, tag, err);
    });
    for (const w of this.blockedWaiters.splice(0)) w.resolve();
    this.armBlockedTimer(this.cluster.scheduler.nowMs());
  }

  /** Sends everything buffered now (ignoring lingerMs) and resolves when all of it is acknowledged or failed. */
  async flush(): Promise<void> {
    await this.waitForBlocked();
    this.sender.drainAll++;
    try {
      this.sender.wakeup();
      await this.sender.awaitIncomplete();
    } finally {
      this.sender.drainAll--;
    }
  }

  /** Resolves once the sends waiting now have been appended or failed. */
  private waitForBlocked(): Promise<void> {
    if (this.blocked.length === 0) return Promise.resolve();
    const until = this.blockedTotal;
    return new Promise((resolve) => this.blockedWaiters.push({ until, resolve }));
  }

  /**
   * Stops accepting sends, flushes, and closes the connections. After `timeoutMs`
   * (default: wait as long as delivery takes) records still pending fail with
   * ProducerClosedError, as Java's close(timeout) aborts them.
   */
  close(timeoutMs?: number): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      const flushed = this.flush();
      if (timeoutMs === undefined) {
        await flushed;
      } else {
        let timer: TimerHandle | undefined;
        const timedOut = new Promise<boolean>((resolve) => { timer = this.cluster.scheduler.schedule(timeoutMs, () => resolve(true)); });
        const done = await Promise.race([flushed.then(() => false), timedOut]);
        timer?.cancel();
        if (done) {
          const err = new ProducerClosedError(`the producer was closed with records still pending after ${timeoutMs} ms`);
          this.failBlocked(err);
          this.sender.abort(err);
        }
      }
      this.blockedTimer?.cancel();
      this.transactions?.close();
      this.metadata.stop();
      this.sender.stop();
      this.cluster.close();
    })();
    return this.closing;
  }
}

function toMillis(t: number | bigint | Date): number {
  if (t instanceof Date) return t.getTime();
  const ms = Number(t);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new TypeError(`invalid record timestamp ${String(t)}`);
  return ms;
}
