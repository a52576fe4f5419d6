/**
 * Kafka's Sender: drains ready batches from the accumulator into one Produce request per
 * leader broker (at most one batch per partition per request, `maxRequestSize` bytes),
 * keeps up to `maxInFlightRequestsPerConnection` requests outstanding per broker, and
 * settles each batch from its partition's answer: done, retried after a backoff (keeping
 * its sequence, so the broker discards a duplicate), or failed.
 *
 * Idempotence follows Java's producer: one producer id and epoch (InitProducerId), a
 * sequence per partition assigned when a batch is first drained, retries resent in
 * sequence order and one at a time per partition, OUT_OF_ORDER_SEQUENCE_NUMBER retried
 * while an earlier batch of the partition is unresolved, DUPLICATE_SEQUENCE_NUMBER taken
 * as success (offset unknown, -1). When a sequenced batch fails for good, the sequence has
 * a gap: as Java does (KIP-360), the epoch is bumped locally once nothing is in flight and
 * every partition's sequences restart at 0.
 */
import { Api } from '../../protocol/messages/index.js';
import type { PartitionProduceResponse, ProduceRequestData, TopicProduceData } from '../../protocol/messages/produce.js';
import { ErrorCode, isRetriable, KafkaProtocolError } from '../../protocol/errors.js';
import type { CompressionType } from '../../protocol/records/compression.js';
import type { Cluster } from '../cluster.js';
import { RequestTimeoutError, type BrokerConnection } from '../connection.js';
import { AuthenticationError } from '../errors.js';
import type { TimerHandle } from '../../util/clock.js';
import type { PartitionQueue, RecordAccumulator } from './accumulator.js';
import type { ProducerBatch } from './producer-batch.js';
import type { ProducerMetadata } from './metadata.js';
import { DeliveryTimeoutError } from './errors.js';
import type { ProducerMetricsRecorder } from './metrics.js';
import type { ProducerIdAndEpoch } from './transaction-requests.js';
import type { TransactionalSender, TransactionManager } from './transactions.js';

export interface SenderOptions {
  readonly acks: number;
  readonly lingerMs: number;
  readonly requestTimeoutMs: number;
  readonly deliveryTimeoutMs: number;
  readonly retries: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly maxInFlight: number;
  readonly maxRequestSize: number;
  readonly compression: CompressionType;
  readonly compressionLevel?: number;
  readonly idempotent: boolean;
  /** Set for a transactional producer: carried in every Produce request. */
  readonly transactionalId: string | null;
}

/** Errors after which the leader may have moved: refresh metadata before the retry. */
const METADATA_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.NETWORK_EXCEPTION, ErrorCode.REPLICA_NOT_AVAILABLE,
]);

const MAX_EPOCH = 32767;

export class Sender implements TransactionalSender {
  private readonly inFlightPerNode = new Map<number, number>();
  private readonly connections = new Map<number, BrokerConnection>();
  private readonly connecting = new Set<number>();
  private readonly nodeBackoffUntil = new Map<number, number>();
  private wakePending = false;
  private timer: TimerHandle | null = null;
  private timerDueMs = Infinity;
  private producerId = -1n;
  private producerEpoch = -1;
  private initRunning = false;
  private epochBumpNeeded = false;
  /** Drain everything regardless of linger (flush or close in progress). */
  drainAll = 0;
  private readonly doneWaiters: { batches: Set<ProducerBatch>; resolve: () => void }[] = [];
  private stopped = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly accumulator: RecordAccumulator,
    private readonly metadata: ProducerMetadata,
    private readonly options: SenderOptions,
    /** Called when a batch finished and its bytes returned to bufferMemory. */
    private readonly onRelease: () => void,
    private readonly metrics: ProducerMetricsRecorder,
    /** A transactional producer's: it gets the producer id, and decides which partitions may be sent. */
    private readonly transactions: TransactionManager | null = null,
  ) {}

  setProducerIdAndEpoch(id: ProducerIdAndEpoch): void {
    this.producerId = id.producerId;
    this.producerEpoch = id.producerEpoch;
    this.epochBumpNeeded = false;
    for (const q of this.accumulator.queues()) {
      q.nextSequence = 0;
      q.sequenceAcknowledged = false;
    }
  }

  takeEpochBumpNeeded(): boolean {
    const needed = this.epochBumpNeeded;
    this.epochBumpNeeded = false;
    return needed;
  }

  get producerIdAndEpoch(): { producerId: bigint; producerEpoch: number } {
    return { producerId: this.producerId, producerEpoch: this.producerEpoch };
  }

  /** Runs the send loop soon (after the current burst of sends). */
  wakeup(): void {
    if (this.wakePending || this.stopped) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.run();
    });
  }

  /** Resolves once every batch incomplete now has finished (either way). */
  awaitIncomplete(): Promise<void> {
    const batches = new Set(this.accumulator.incomplete());
    if (batches.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.doneWaiters.push({ batches, resolve }));
  }

  /** Fails every incomplete batch (close after its timeout) and stops. */
  abort(err: Error): void {
    this.stopped = true;
    this.timer?.cancel();
    this.failIncomplete(err);
  }

  private run(): void {
    if (this.stopped) return;
    const now = this.cluster.scheduler.nowMs();
    let nextMs = this.expire(now);
    const transactions = this.transactions;
    if (transactions !== null) {
      const refused = transactions.undrainedBatchError();
      if (refused !== null) this.failUndrained(refused);
    }
    if (this.options.idempotent && !this.ensureProducerId()) return this.arm(nextMs, now);
    const readyByNode = new Map<number, PartitionQueue[]>();
    for (const q of this.accumulator.pending) {
      const b = q.batches[0];
      if (!b) {
        this.accumulator.pending.delete(q);
        continue;
      }
      if (b.attempts > 0) {
        if (b.retryAtMs > now) {
          nextMs = Math.min(nextMs, b.retryAtMs);
          continue;
        }
        // A retry waits for every earlier send of its partition to be answered.
        if (this.options.idempotent && q.inFlight.length > 0) continue;
      } else if (!(q.batches.length > 1 || b.isFull || this.drainAll > 0 || now >= b.createdMs + this.options.lingerMs)) {
        nextMs = Math.min(nextMs, b.createdMs + this.options.lingerMs);
        continue;
      }
      // A transaction's partition is sent once the coordinator added it (AddPartitionsToTxn).
      if (transactions !== null && !transactions.isSendAllowed(q)) continue;
      const leader = this.metadata.leaderOf(q.topic, q.partition);
      if (leader < 0) {
        this.metadata.request(q.topic);
        continue;
      }
      const list = readyByNode.get(leader);
      if (list) list.push(q);
      else readyByNode.set(leader, [q]);
    }
    for (const [node, queues] of readyByNode) nextMs = Math.min(nextMs, this.sendTo(node, queues, now));
    this.arm(nextMs, now);
  }

  /** Fails batches that waited past deliveryTimeoutMs; returns the next expiry time. */
  private expire(now: number): number {
    let next = Infinity;
    const timeout = this.options.deliveryTimeoutMs;
    for (const q of this.accumulator.pending) {
      for (let i = 0; i < q.batches.length; i++) {
        const b = q.batches[i]!;
        const due = b.createdMs + timeout;
        if (due > now) {
          next = Math.min(next, due);
          continue;
        }
        const lastCode = b.lastErrorCode !== ErrorCode.NONE ? b.lastErrorCode : q.lastErrorCode;
        const last = lastCode !== ErrorCode.NONE ? ` (last error of ${b.topic}-${b.partition}: ${new KafkaProtocolError(lastCode).message})` : '';
        this.fail(b, new DeliveryTimeoutError(`Expiring ${b.recordCount} record(s) for ${b.topic}-${b.partition}: ${now - b.createdMs} ms has passed since batch creation${last}`));
        i--;
      }
    }
    return next;
  }

  private arm(dueMs: number, now: number): void {
    if (dueMs === Infinity || this.stopped) return;
    if (this.timer && this.timerDueMs <= dueMs && this.timerDueMs >= now) return;
    this.timer?.cancel();
    this.timerDueMs = dueMs;
    this.timer = this.cluster.scheduler.schedule(dueMs - now, () => {
      this.timer = null;
      this.timerDueMs = Infinity;
      this.run();
    });
  }

  /** Sends as many requests to one broker as its in-flight limit allows; returns a wake time. */
  private sendTo(node: number, queues: PartitionQueue[], now: number): number {
    const backoffUntil = this.nodeBackoffUntil.get(node) ?? 0;
    if (backoffUntil > now) return backoffUntil;
    const connection = this.connections.get(node);
    if (!connection || connection.closed) {
      this.connect(node);
      return Infinity;
    }
    let first = true;
    while ((this.inFlightPerNode.get(node) ?? 0) < this.options.maxInFlight) {
      const drained = this.drain(queues, now, first);
      first = false;
      if (drained.length === 0) break;
      this.send(node, connection, drained);
    }
    return Infinity;
  }

  private connect(node: number): void {
    if (this.connecting.has(node)) return;
    this.connecting.add(node);
    this.cluster.connectionToNode(node).then((connection) => {
      this.connections.set(node, connection);
    }, (err: Error) => {
      this.cluster.logger.debug('producer cannot reach broker', { node, error: err });
      // A login the broker refused will not be accepted on retry: fail now, as Java's producer does.
      if (err instanceof AuthenticationError) this.failIncomplete(err);
      this.nodeBackoffUntil.set(node, this.cluster.scheduler.nowMs() + this.options.retryBackoffMs);
      for (const t of new Set([...this.accumulator.pending].map((q) => q.topic))) this.metadata.request(t);
    }).finally(() => {
      this.connecting.delete(node);
      this.wakeup();
    });
  }

  /** One batch from each ready queue, up to maxRequestSize (at least one batch). */
  private drain(queues: PartitionQueue[], now: number, first: boolean): ProducerBatch[] {
    const drained: ProducerBatch[] = [];
    let size = 0;
    for (const q of queues) {
      const b = q.batches[0];
      if (!b) continue;
      if (!first && !this.readyAgain(q, b, now)) continue;
      if (this.options.idempotent && q.inFlight.length > 0 && (b.attempts > 0 || !q.sequenceAcknowledged)) continue;
      b.seal(this.options.compression, this.options.compressionLevel, this.transactions !== null);
      if (drained.length > 0 && size + b.sizeInBytes > this.options.maxRequestSize) break;
      this.prepare(q, b);
      q.batches.shift();
      if (q.batches.length === 0) this.accumulator.pending.delete(q);
      q.inFlight.push(b);
      b.attempts++;
      size += b.sizeInBytes;
      drained.push(b);
    }
    return drained;
  }

  private readyAgain(q: PartitionQueue, b: ProducerBatch, now: number): boolean {
    if (b.attempts > 0) return b.retryAtMs <= now;
    return q.batches.length > 1 || b.isFull || this.drainAll > 0 || now >= b.createdMs + this.options.lingerMs;
  }

  /** Stamps the batch: its existing sequence on a retry, the partition's next on a first send or after an epoch bump. */
  private prepare(q: PartitionQueue, b: ProducerBatch): void {
    if (!this.options.idempotent) {
      if (b.attempts === 0) b.stamp(-1n, -1, -1);
      return;
    }
    if (b.baseSequence >= 0 && b.producerId === this.producerId && b.producerEpoch === this.producerEpoch) return;
    const sequence = q.nextSequence;
    q.nextSequence = (sequence + b.recordCount) % 0x80000000;
    b.stamp(this.producerId, this.producerEpoch, sequence);
  }

  private send(node: number, connection: BrokerConnection, batches: ProducerBatch[]): void {
    const byTopic = new Map<string, TopicProduceData>();
    for (const b of batches) {
      let t = byTopic.get(b.topic);
      if (!t) {
        t = { name: b.topic, partitionData: [] };
        byTopic.set(b.topic, t);
      }
      t.partitionData.push({ index: b.partition, records: b.wireBytes });
    }
    const body: ProduceRequestData = {
      transactionalId: this.options.transactionalId, acks: this.options.acks, timeoutMs: this.options.requestTimeoutMs, topicData: [...byTopic.values()],
    };
    this.inFlightPerNode.set(node, (this.inFlightPerNode.get(node) ?? 0) + 1);
    const sentMs = this.cluster.scheduler.nowMs();
    const version = connection.supportedVersion(Api.Produce);
    if (this.options.acks === 0) {
      connection.sendWithoutResponse(Api.Produce, body, { version }).then(() => {
        this.requestDone(node);
        for (const b of batches) this.succeed(b, -1n, -1n, -1n);
      }, (err: Error) => this.requestFailed(node, connection, batches, err));
      return;
    }
    connection.request(Api.Produce, body, { version, timeoutMs: this.options.requestTimeoutMs }).then((response) => {
      this.metrics.requestCompleted(this.cluster.scheduler.nowMs() - sentMs);
      this.requestDone(node);
      const answers = new Map<string, PartitionProduceResponse>();
      for (const t of response.responses) for (const p of t.partitionResponses) answers.set(`${t.name}\u0000${p.index}`, p);
      for (const b of batches) {
        const p = answers.get(`${b.topic}\u0000${b.partition}`);
        if (!p) this.settle(b, ErrorCode.NETWORK_EXCEPTION, 'no answer for the partition in the Produce response');
        else if (p.errorCode === ErrorCode.NONE) this.succeed(b, p.baseOffset, p.logAppendTimeMs ?? -1n, p.logStartOffset ?? -1n);
        else this.settle(b, p.errorCode, p.errorMessage ?? undefined);
      }
    }, (err: Error) => this.requestFailed(node, connection, batches, err));
  }

  private requestDone(node: number): void {
    this.inFlightPerNode.set(node, (this.inFlightPerNode.get(node) ?? 1) - 1);
    this.wakeup();
  }

  private requestFailed(node: number, connection: BrokerConnection, batches: ProducerBatch[], err: Error): void {
    this.requestDone(node);
    // As Java's NetworkClient: a timed-out request closes its connection, so every later
    // request on it fails too and all are retried in order.
    if (err instanceof RequestTimeoutError) connection.close();
    if (connection.closed && this.connections.get(node) === connection) this.connections.delete(node);
    this.cluster.logger.debug('produce request failed', { node, error: err });
    for (const b of batches) this.settle(b, ErrorCode.NETWORK_EXCEPTION, err.message);
  }

  private succeed(b: ProducerBatch, baseOffset: bigint, logAppendTime: bigint, logStartOffset: bigint): void {
    const q = this.accumulator.queue(b.topic, b.partition);
    q.removeInFlight(b);
    q.lastErrorCode = ErrorCode.NONE;
    if (b.producerId === this.producerId && b.producerEpoch === this.producerEpoch) q.sequenceAcknowledged = true;
    this.accumulator.release(b);
    this.metrics.batchSent(b.recordCount, b.sizeInBytes);
    b.complete(baseOffset, logAppendTime, logStartOffset);
    this.finished(b);
  }

  /** An error answer for one batch: success for a duplicate, a retry, or failure. */
  private settle(b: ProducerBatch, errorCode: number, message: string | undefined): void {
    if (b.done) return;
    if (errorCode === ErrorCode.DUPLICATE_SEQUENCE_NUMBER && this.options.idempotent) return this.succeed(b, -1n, -1n, -1n);
    const q = this.accumulator.queue(b.topic, b.partition);
    const now = this.cluster.scheduler.nowMs();
    b.lastErrorCode = errorCode;
    q.lastErrorCode = errorCode;
    if (this.canRetry(q, b, errorCode, now)) {
      if (METADATA_ERRORS.has(errorCode)) this.metadata.request(b.topic);
      b.retryAtMs = now + Math.min(this.options.retryBackoffMs * 2 ** (b.attempts - 1), this.options.retryBackoffMaxMs);
      q.requeue(b);
      this.metrics.batchRetried(b.recordCount);
      this.accumulator.pending.add(q);
      return;
    }
    const expired = now >= b.createdMs + this.options.deliveryTimeoutMs;
    this.fail(b, expired && isRetriable(errorCode)
      ? new DeliveryTimeoutError(`Expiring ${b.recordCount} record(s) for ${b.topic}-${b.partition}: delivery timeout passed (last error ${new KafkaProtocolError(errorCode).errorName})`)
      : new KafkaProtocolError(errorCode, message ?? `${b.topic}-${b.partition}`));
  }

  private canRetry(q: PartitionQueue, b: ProducerBatch, errorCode: number, now: number): boolean {
    if (this.stopped || now >= b.createdMs + this.options.deliveryTimeoutMs || b.attempts > this.options.retries) return false;
    if (errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER || errorCode === ErrorCode.UNKNOWN_PRODUCER_ID) {
      if (!this.options.idempotent) return false;
      // In a transaction the gap ends the transaction (abortable); the abort bumps the epoch.
      if (this.transactions !== null) return this.hasEarlierUnresolved(q, b);
      // As Java's idempotent producer: always retried. While an earlier batch of the partition
      // is unresolved the error may be its echo; otherwise the broker's sequence has a gap (or
      // it lost the producer's state), and only a new epoch, restarting at 0, gets past it.
      if (b.producerEpoch === this.producerEpoch && b.producerId === this.producerId && !this.hasEarlierUnresolved(q, b)) this.epochBumpNeeded = true;
      return true;
    }
    return isRetriable(errorCode);
  }

  private hasEarlierUnresolved(q: PartitionQueue, b: ProducerBatch): boolean {
    const earlier = (o: ProducerBatch): boolean => o !== b && o.baseSequence >= 0 && o.producerEpoch === b.producerEpoch && o.baseSequence < b.baseSequence;
    return q.inFlight.some(earlier) || q.batches.some((o) => o.attempts > 0 && earlier(o));
  }

  private failIncomplete(err: Error): void {
    for (const batch of [...this.accumulator.incomplete()]) this.fail(batch, err, false);
  }

  /** Fails every batch not sent yet (Java's abortUndrainedBatches). */
  private failUndrained(err: Error): void {
    for (const q of [...this.accumulator.pending]) {
      for (const b of [...q.batches]) {
        // A retry that fails here may or may not have been written: the sequence may have a gap.
        if (b.baseSequence >= 0 && b.producerEpoch === this.producerEpoch) this.epochBumpNeeded = true;
        this.fail(b, err, false);
      }
    }
  }

  /** `mayBump`: the batch failed of its own accord (not because everything is being failed). */
  private fail(b: ProducerBatch, err: Error, mayBump = true): void {
    if (mayBump && this.transactions !== null) err = this.transactions.batchFailed(err);
    const q = this.accumulator.queue(b.topic, b.partition);
    q.removeInFlight(b);
    const i = q.batches.indexOf(b);
    if (i >= 0) q.batches.splice(i, 1);
    if (mayBump && this.options.idempotent && b.baseSequence >= 0 && b.producerEpoch === this.producerEpoch) this.epochBumpNeeded = true;
    this.accumulator.release(b);
    this.metrics.batchFailed(b.recordCount);
    b.fail(err);
    this.finished(b);
  }

  private finished(b: ProducerBatch): void {
    for (let i = 0; i < this.doneWaiters.length; i++) {
      const w = this.doneWaiters[i]!;
      if (w.batches.delete(b) && w.batches.size === 0) {
        this.doneWaiters.splice(i--, 1);
        w.resolve();
      }
    }
    this.onRelease();
  }

  /** True when a producer id is ready; otherwise starts getting one (or bumping the epoch). */
  private ensureProducerId(): boolean {
    // A transactional producer's id comes from initTransactions, its epoch bumps from abortTransaction.
    if (this.transactions !== null) return this.producerId >= 0n;
    if (this.producerId >= 0n && !this.epochBumpNeeded) return true;
    if (this.epochBumpNeeded) {
      for (const n of this.inFlightPerNode.values()) if (n > 0) return false;
      this.epochBumpNeeded = false;
      for (const q of this.accumulator.queues()) {
        q.nextSequence = 0;
        q.sequenceAcknowledged = false;
      }
      if (this.producerId >= 0n && this.producerEpoch < MAX_EPOCH - 1) {
        this.producerEpoch++;
        return true;
      }
      this.producerId = -1n;
    }
    if (!this.initRunning) {
      this.initRunning = true;
      void this.initProducerId().finally(() => {
        this.initRunning = false;
        this.wakeup();
      });
    }
    return false;
  }

  private async initProducerId(): Promise<void> {
    while (!this.stopped) {
      try {
        const connection = await this.cluster.anyConnection();
        const response = await connection.request(Api.InitProducerId, {
          transactionalId: null, transactionTimeoutMs: 2147483647, producerId: -1n, producerEpoch: -1,
        });
        if (response.errorCode === ErrorCode.NONE) {
          this.producerId = response.producerId;
          this.producerEpoch = response.producerEpoch;
          return;
        }
        if (!isRetriable(response.errorCode)) {
          this.failIncomplete(new KafkaProtocolError(response.errorCode, 'InitProducerId'));
          return;
        }
      } catch (err) {
        this.cluster.logger.debug('InitProducerId failed', { error: err as Error });
        if (err instanceof AuthenticationError) {
          this.failIncomplete(err);
          return;
        }
      }
      await this.cluster.backoff();
    }
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }
}
