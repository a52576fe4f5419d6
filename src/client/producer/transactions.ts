/**
 * Kafka's TransactionManager for a producer with a transactionalId (transaction version
 * 1, KIP-98). States and transitions are Java's:
 *
 *   UNINITIALIZED → INITIALIZING → READY ⇄ IN_TRANSACTION → COMMITTING_TRANSACTION → READY
 *                                             IN_TRANSACTION | ABORTABLE_ERROR → ABORTING_TRANSACTION → READY
 *   any → ABORTABLE_ERROR (the transaction cannot commit; abortTransaction() recovers)
 *   any → FATAL_ERROR (fenced, not authorized, the coordinator refused the state: close the producer)
 *
 * A partition joins the transaction (AddPartitionsToTxn) when the first record for it is
 * appended; the sender holds its batches until the coordinator answered. The
 * coordinator's operations run in the background until they succeed, fail for good or the
 * producer closes; a call that gives up at its time limit leaves them running, and calling
 * it again (initTransactions, commitTransaction, abortTransaction) waits for the same one,
 * as Java's producer does.
 */
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { linkedSignal } from '../deadline.js';
import { AuthenticationError } from '../errors.js';
import type { PartitionQueue } from './accumulator.js';
import { IllegalStateError, ProducerClosedError, ProducerFencedError, TransactionAbortableError, TransactionAbortedError } from './errors.js';
import {
  txnErrorAction, type ConsumerGroupMetadata, type OffsetInTransaction, type ProducerIdAndEpoch, type TransactionRequests,
} from './transaction-requests.js';

export type TransactionState =
  | 'UNINITIALIZED' | 'INITIALIZING' | 'READY' | 'IN_TRANSACTION' | 'COMMITTING_TRANSACTION' | 'ABORTING_TRANSACTION'
  | 'ABORTABLE_ERROR' | 'FATAL_ERROR';

/** What the transaction manager needs of the sender. */
export interface TransactionalSender {
  readonly producerIdAndEpoch: ProducerIdAndEpoch;
  /** A new producer id or epoch: every partition's sequence restarts at 0. */
  setProducerIdAndEpoch(id: ProducerIdAndEpoch): void;
  /** Whether a batch failed after it got a sequence (the broker's sequence has a gap); clears it. */
  takeEpochBumpNeeded(): boolean;
  wakeup(): void;
  /** Resolves when every batch incomplete now has finished. */
  awaitIncomplete(): Promise<void>;
}

type Operation = 'init' | 'commit' | 'abort';

/** Produce errors after which this producer can never write again (Java's fatal errors in handleFailedBatch). */
const FATAL_BATCH_ERRORS = new Set<number>([
  ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
]);

export class TransactionManager {
  private stateValue: TransactionState = 'UNINITIALIZED';
  private lastError: Error | null = null;
  private sender!: TransactionalSender;
  /** Partitions the coordinator has in the current transaction, and those still to add. */
  private readonly added = new Set<PartitionQueue>();
  private readonly toAdd = new Set<PartitionQueue>();
  private adding: Promise<void> | null = null;
  /** The coordinator knows of this transaction (a partition or a group was added): it needs an EndTxn. */
  private started = false;
  private pending: { readonly operation: Operation; readonly done: Promise<void> } | null = null;
  private readonly closeController = new AbortController();

  constructor(private readonly requests: TransactionRequests, private readonly transactionTimeoutMs: number) {}

  attach(sender: TransactionalSender): void {
    this.sender = sender;
  }

  get state(): TransactionState {
    return this.stateValue;
  }

  get transactionalId(): string {
    return this.requests.transactionalId;
  }

  initTransactions(): Promise<void> {
    if (this.pending?.operation === 'init') return this.pending.done;
    this.expect(['UNINITIALIZED'], 'initTransactions');
    this.stateValue = 'INITIALIZING';
    return this.run('init', async (signal) => {
      const id = await this.requests.initProducerId(this.transactionTimeoutMs, null, signal);
      this.sender.setProducerIdAndEpoch(id);
      this.stateValue = 'READY';
    });
  }

  beginTransaction(): void {
    this.expect(['READY'], 'beginTransaction');
    this.stateValue = 'IN_TRANSACTION';
  }

  /** Throws unless records may be sent now (the producer checks each send). */
  checkSend(): void {
    if (this.stateValue !== 'IN_TRANSACTION') this.expect(['IN_TRANSACTION'], 'send');
  }

  /**
   * Called when a record is appended to a partition: a partition new to the transaction is
   * added by the next AddPartitionsToTxn. Records that waited for metadata are appended
   * while the commit flushes them, so COMMITTING_TRANSACTION takes new partitions too.
   */
  maybeAddPartition(q: PartitionQueue): void {
    if (this.added.has(q) || this.toAdd.has(q)) return;
    if (this.stateValue !== 'IN_TRANSACTION' && this.stateValue !== 'COMMITTING_TRANSACTION') this.expect(['IN_TRANSACTION'], 'send');
    this.toAdd.add(q);
    this.adding ??= this.addPartitions().finally(() => { this.adding = null; });
  }

  /** Whether the sender may send this partition's batches. */
  isSendAllowed(q: PartitionQueue): boolean {
    return this.added.has(q);
  }

  /** The error batches not yet sent fail with, when the transaction cannot take them; else null. */
  undrainedBatchError(): Error | null {
    switch (this.stateValue) {
      case 'FATAL_ERROR':
        return this.lastError;
      case 'ABORTABLE_ERROR':
        return this.abortableError('the record cannot be sent');
      case 'ABORTING_TRANSACTION':
        return new TransactionAbortedError('Failing batch since transaction was aborted');
      default:
        return null;
    }
  }

  /** A batch failed with `err`: the transaction (or the producer) cannot go on; returns the error to report. */
  batchFailed(err: Error): Error {
    const code = err instanceof KafkaProtocolError ? err.errorCode : ErrorCode.NONE;
    const reported = code === ErrorCode.PRODUCER_FENCED || code === ErrorCode.INVALID_PRODUCER_EPOCH ? new ProducerFencedError(code, (err as KafkaProtocolError).detail) : err;
    if (FATAL_BATCH_ERRORS.has(code) || err instanceof AuthenticationError) this.toFatal(reported);
    else if (this.stateValue === 'IN_TRANSACTION' || this.stateValue === 'COMMITTING_TRANSACTION') this.toAbortable(reported);
    return reported;
  }

  /** AddOffsetsToTxn, then TxnOffsetCommit to the group's coordinator: the group's offsets move when the transaction commits. */
  async sendOffsetsToTransaction(offsets: readonly OffsetInTransaction[], group: ConsumerGroupMetadata, signal: AbortSignal): Promise<void> {
    this.expect(['IN_TRANSACTION'], 'sendOffsetsToTransaction');
    const groupId = group.groupId;
    if (typeof groupId !== 'string' || groupId === '') throw new IllegalStateError('sendOffsetsToTransaction needs the metadata of a consumer with a groupId');
    if (offsets.length === 0) return;
    const id = this.sender.producerIdAndEpoch;
    const linked = linkedSignal([signal, this.closeController.signal]);
    try {
      await this.requests.addOffsets(id, groupId, linked.signal);
      this.started = true;
      await this.requests.txnOffsetCommit(id, { ...group, groupId }, offsets, linked.signal);
    } catch (err) {
      // Cut short by the call's time limit or signal, the group may or may not be in the
      // transaction: only an abort is safe.
      if (signal.aborted && !this.closeController.signal.aborted) {
        this.toAbortable(err as Error);
        throw err;
      }
      throw this.failed(err as Error);
    } finally {
      linked.dispose();
    }
  }

  commitTransaction(flush: () => Promise<void>): Promise<void> {
    if (this.pending?.operation === 'commit') return this.pending.done;
    this.expect(['IN_TRANSACTION'], 'commitTransaction');
    this.stateValue = 'COMMITTING_TRANSACTION';
    return this.run('commit', async (signal) => {
      await flush();
      while (this.adding) await this.adding;
      // A record failed meanwhile: the state says so.
      if (this.stateValue !== 'COMMITTING_TRANSACTION') throw this.stateValue === 'FATAL_ERROR' ? this.lastError! : this.abortableError('Cannot commit transaction');
      if (this.started) await this.requests.endTxn(this.sender.producerIdAndEpoch, true, signal);
      this.completeTransaction();
    });
  }

  /** Records not sent yet fail with TransactionAbortedError; the ones in flight are waited for, then EndTxn(abort). */
  abortTransaction(): Promise<void> {
    if (this.pending?.operation === 'abort') return this.pending.done;
    this.expect(['IN_TRANSACTION', 'ABORTABLE_ERROR'], 'abortTransaction');
    this.stateValue = 'ABORTING_TRANSACTION';
    this.sender.wakeup();
    return this.run('abort', async (signal) => {
      await this.sender.awaitIncomplete();
      while (this.adding) await this.adding;
      if (this.lastError !== null && this.stateValue === 'FATAL_ERROR') throw this.lastError;
      if (this.started) await this.requests.endTxn(this.sender.producerIdAndEpoch, false, signal);
      // A batch failed after it got a sequence: as Java (KIP-360), a bumped epoch starts every partition at 0 again.
      if (this.sender.takeEpochBumpNeeded()) {
        this.sender.setProducerIdAndEpoch(await this.requests.initProducerId(this.transactionTimeoutMs, this.sender.producerIdAndEpoch, signal));
      }
      this.completeTransaction();
    });
  }

  /** Stops every background operation (the producer closes). */
  close(): void {
    this.closeController.abort(new ProducerClosedError('the producer is closed'));
  }

  private completeTransaction(): void {
    this.added.clear();
    this.toAdd.clear();
    this.started = false;
    this.lastError = null;
    this.stateValue = 'READY';
  }

  private async addPartitions(): Promise<void> {
    // Let the sends of this turn of the event loop join one request.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.toAdd.size > 0 && (this.stateValue === 'IN_TRANSACTION' || this.stateValue === 'COMMITTING_TRANSACTION')) {
      const adding = [...this.toAdd];
      const byTopic = new Map<string, number[]>();
      for (const q of adding) {
        const list = byTopic.get(q.topic);
        if (list) list.push(q.partition);
        else byTopic.set(q.topic, [q.partition]);
      }
      try {
        await this.requests.addPartitions(this.sender.producerIdAndEpoch, byTopic, this.closeController.signal, this.added.size === 0);
      } catch (err) {
        if (!this.closeController.signal.aborted) this.failed(err as Error);
        return;
      }
      for (const q of adding) {
        this.toAdd.delete(q);
        this.added.add(q);
      }
      this.started = true;
      this.sender.wakeup();
    }
  }

  /** Runs a coordinator operation in the background; a failure moves the state as its kind says. */
  private run(operation: Operation, body: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const done = body(this.closeController.signal).catch((err: unknown) => {
      throw this.failed(err as Error);
    }).finally(() => { this.pending = null; });
    this.pending = { operation, done };
    return done;
  }

  /** Classifies a failure (Java's fatal and abortable errors), moves the state, and returns what the caller throws. */
  private failed(err: Error): Error {
    if (this.closeController.signal.aborted || err === this.lastError || err instanceof TransactionAbortableError) return err;
    const action = err instanceof KafkaProtocolError && !(err instanceof AuthenticationError) ? txnErrorAction(err.errorCode) : 'fatal';
    // Nothing to abort before the producer has its id: every failure of initTransactions is fatal.
    if (action === 'fenced' || action === 'fatal' || this.stateValue === 'INITIALIZING') {
      this.toFatal(err);
      return err;
    }
    this.toAbortable(err);
    return this.abortableError('The transaction cannot be committed');
  }

  private toFatal(err: Error): void {
    if (this.stateValue === 'FATAL_ERROR') return;
    this.lastError = err;
    this.stateValue = 'FATAL_ERROR';
    this.sender.wakeup();
  }

  private toAbortable(err: Error): void {
    if (this.stateValue === 'FATAL_ERROR' || this.stateValue === 'ABORTABLE_ERROR') return;
    this.lastError = err;
    this.stateValue = 'ABORTABLE_ERROR';
    this.sender.wakeup();
  }

  private abortableError(what: string): TransactionAbortableError {
    const cause = this.lastError;
    return new TransactionAbortableError(`${what}: the transaction must be aborted${cause ? ` (${cause.message})` : ''}`, { cause });
  }

  /** Throws unless the state is one of `allowed`: the fatal error, the abortable one, or IllegalStateError. */
  private expect(allowed: readonly TransactionState[], what: string): void {
    const state = this.stateValue;
    if (allowed.includes(state)) return;
    if (state === 'FATAL_ERROR') throw this.lastError!;
    if (state === 'ABORTABLE_ERROR') throw this.abortableError(`Cannot ${what}`);
    if (state === 'UNINITIALIZED' || state === 'INITIALIZING') throw new IllegalStateError(`Cannot ${what} before initTransactions() completed (transactional id ${this.transactionalId})`);
    throw new IllegalStateError(`Cannot ${what} in state ${state} (transactional id ${this.transactionalId})`);
  }
}
