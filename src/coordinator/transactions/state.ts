/**
 * Transaction states and per-transactional-id metadata, after Kafka 4.4's TransactionState
 * and TransactionMetadata. A transition is prepared (`pending` holds it while its
 * `__transaction_state` record is appended; other requests meanwhile get
 * CONCURRENT_TRANSACTIONS) and completed or dropped when the append settles.
 */

/** Kafka's TransactionState, with the ids its log records carry (TransactionStatus). */
export enum TransactionState {
  Empty = 0,
  Ongoing = 1,
  PrepareCommit = 2,
  PrepareAbort = 3,
  CompleteCommit = 4,
  CompleteAbort = 5,
  Dead = 6,
  PrepareEpochFence = 7,
}

/** The names DescribeTransactions and ListTransactions report (TransactionState.stateName). */
export const STATE_NAMES: Readonly<Record<TransactionState, string>> = {
  [TransactionState.Empty]: 'Empty',
  [TransactionState.Ongoing]: 'Ongoing',
  [TransactionState.PrepareCommit]: 'PrepareCommit',
  [TransactionState.PrepareAbort]: 'PrepareAbort',
  [TransactionState.CompleteCommit]: 'CompleteCommit',
  [TransactionState.CompleteAbort]: 'CompleteAbort',
  [TransactionState.Dead]: 'Dead',
  [TransactionState.PrepareEpochFence]: 'PrepareEpochFence',
};

/** TransactionState.validPreviousStates (the transaction-version-2 entries included). */
const VALID_PREVIOUS: Readonly<Record<TransactionState, readonly TransactionState[]>> = {
  [TransactionState.Empty]: [TransactionState.Empty, TransactionState.CompleteCommit, TransactionState.CompleteAbort],
  [TransactionState.Ongoing]: [TransactionState.Ongoing, TransactionState.Empty, TransactionState.CompleteCommit, TransactionState.CompleteAbort],
  [TransactionState.PrepareCommit]: [TransactionState.Ongoing],
  [TransactionState.PrepareAbort]: [
    TransactionState.Ongoing, TransactionState.PrepareEpochFence, TransactionState.Empty,
    TransactionState.CompleteCommit, TransactionState.CompleteAbort,
  ],
  [TransactionState.CompleteCommit]: [TransactionState.PrepareCommit],
  [TransactionState.CompleteAbort]: [TransactionState.PrepareAbort],
  [TransactionState.Dead]: [TransactionState.Empty, TransactionState.CompleteAbort, TransactionState.CompleteCommit],
  [TransactionState.PrepareEpochFence]: [TransactionState.Ongoing],
};

export function isValidTransition(from: TransactionState, to: TransactionState): boolean {
  return VALID_PREVIOUS[to].includes(from);
}

export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
/** Short.MaxValue: an epoch that cannot be bumped any more. */
export const MAX_PRODUCER_EPOCH = 0x7fff;

/** TransactionMetadata.isEpochExhausted: one epoch is kept in reserve for fencing. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_PRODUCER_EPOCH - 1;
}

/** "topic-partition" keys keep a transaction's partitions a set; this order is Kafka's TopicPartition.toString. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** What a transition writes: the fields of Kafka's TxnTransitMetadata. */
export interface TransitMetadata {
  readonly producerId: bigint;
  readonly prevProducerId: bigint;
  readonly nextProducerId: bigint;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TransactionState;
  /** By partitionKey, in the order they were added. */
  readonly partitions: ReadonlyMap<string, TopicPartition>;
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  /**
   * The transaction version the transaction's client speaks (Kafka's clientTransactionVersion,
   * the feature level): 0 for transaction version 1 clients, 2 for version 2 ones, whose
   * every transaction end bumps the epoch.
   */
  readonly clientTransactionVersion: number;
}

/** TransactionVersion.supportsEpochBump: transaction version 2 (KIP-890 part 2). */
export const TRANSACTION_VERSION_2 = 2;

export class TransactionMetadata implements TransitMetadata {
  producerId: bigint;
  prevProducerId: bigint;
  nextProducerId: bigint = NO_PRODUCER_ID;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionState;
  partitions: Map<string, TopicPartition>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: number;
  /** The transition whose record is being appended (Kafka's pendingState). */
  pending: TransactionState | null = null;
  /** An epoch fence whose PrepareAbort failed to append: the next fence does not bump again. */
  hasFailedEpochFence = false;

  constructor(readonly transactionalId: string, init: TransitMetadata) {
    this.producerId = init.producerId;
    this.prevProducerId = init.prevProducerId;
    this.nextProducerId = init.nextProducerId;
    this.producerEpoch = init.producerEpoch;
    this.lastProducerEpoch = init.lastProducerEpoch;
    this.txnTimeoutMs = init.txnTimeoutMs;
    this.state = init.state;
    this.partitions = new Map(init.partitions);
    this.txnStartTimestamp = init.txnStartTimestamp;
    this.txnLastUpdateTimestamp = init.txnLastUpdateTimestamp;
    this.clientTransactionVersion = init.clientTransactionVersion;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  /** Kafka's prepareTransitionTo: checks the transition and marks it pending. */
  prepare(changes: Partial<TransitMetadata> & { state: TransactionState }): TransitMetadata {
    if (this.pending !== null) throw new Error(`${this.transactionalId}: transition to ${STATE_NAMES[this.pending]} already pending`);
    if (!isValidTransition(this.state, changes.state)) {
      throw new Error(`${this.transactionalId}: invalid transition from ${STATE_NAMES[this.state]} to ${STATE_NAMES[changes.state]}`);
    }
    this.pending = changes.state;
    return {
      producerId: this.producerId,
      // As Kafka 4.4's prepareTransitionTo: every transition records the id it leaves as the
      // previous one (the old id after a rotation, else the current one).
      prevProducerId: this.producerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      partitions: this.partitions,
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
      clientTransactionVersion: this.clientTransactionVersion,
      ...changes,
    };
  }

  /** Kafka's completeTransitionTo, once the transition's record is durable. */
  complete(transit: TransitMetadata): void {
    this.pending = null;
    this.producerId = transit.producerId;
    this.prevProducerId = transit.prevProducerId;
    this.nextProducerId = transit.nextProducerId;
    this.producerEpoch = transit.producerEpoch;
    this.lastProducerEpoch = transit.lastProducerEpoch;
    this.txnTimeoutMs = transit.txnTimeoutMs;
    this.state = transit.state;
    this.partitions = new Map(transit.partitions);
    this.txnStartTimestamp = transit.txnStartTimestamp;
    this.txnLastUpdateTimestamp = transit.txnLastUpdateTimestamp;
    this.clientTransactionVersion = transit.clientTransactionVersion;
  }

  /**
   * Complete(Commit|Abort) after the markers: no partitions left. Under transaction version
   * 2 an end that exhausted the epoch moves to the id allocated for it, at epoch 0
   * (TransactionMetadata.prepareComplete).
   */
  prepareComplete(nowMs: number): TransitMetadata {
    const state = this.state === TransactionState.PrepareCommit ? TransactionState.CompleteCommit : TransactionState.CompleteAbort;
    if (this.clientTransactionVersion >= TRANSACTION_VERSION_2 && this.nextProducerId !== NO_PRODUCER_ID) {
      return this.prepare({
        state, producerId: this.nextProducerId, nextProducerId: NO_PRODUCER_ID, producerEpoch: 0,
        partitions: new Map(), txnLastUpdateTimestamp: nowMs,
      });
    }
    return this.prepare({ state, nextProducerId: NO_PRODUCER_ID, partitions: new Map(), txnLastUpdateTimestamp: nowMs });
  }

  /**
   * Kafka's prepareAbortOrCommit: under transaction version 2 the epoch goes up by one (not
   * past Short.MaxValue on an abort), the previous one kept as lastProducerEpoch; an end with
   * no partition added (an abort from Empty or Complete*) starts its transaction now.
   */
  prepareAbortOrCommit(state: TransactionState, clientTransactionVersion: number, nextProducerId: bigint, nowMs: number, noPartitionAdded: boolean): TransitMetadata {
    const bump = clientTransactionVersion >= TRANSACTION_VERSION_2;
    const epoch = !bump ? this.producerEpoch
      : this.producerEpoch === MAX_PRODUCER_EPOCH && state === TransactionState.PrepareAbort ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepare({
      state, producerEpoch: epoch, lastProducerEpoch: bump ? this.producerEpoch : this.lastProducerEpoch, nextProducerId,
      txnStartTimestamp: noPartitionAdded ? nowMs : this.txnStartTimestamp, txnLastUpdateTimestamp: nowMs, clientTransactionVersion,
    });
  }

  /** Kafka's prepareDead: the tombstone of an expired transactional id. */
  prepareDead(): TransitMetadata {
    return this.prepare({ state: TransactionState.Dead, partitions: new Map() });
  }
}
