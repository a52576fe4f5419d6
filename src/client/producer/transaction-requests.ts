/**
 * The requests of Kafka's transaction protocol, version 1 (KIP-98), as the Java
 * producer's TransactionManager sends them: InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn and EndTxn to the transaction coordinator, TxnOffsetCommit to the
 * group's coordinator. Each is retried until it succeeds while its error says a retry can
 * help (the coordinator moved, is loading, or another operation of the transaction is
 * still completing: CONCURRENT_TRANSACTIONS), after retry.backoff.ms, until the caller's
 * signal aborts; any other error is thrown for the transaction manager to classify
 * (txnErrorAction).
 *
 * Transaction version 2 (KIP-890: partitions added implicitly by Produce v12+, the epoch
 * bumped at every EndTxn v5) is not spoken. A Kafka 4 broker that finalizes
 * transaction.version 2 still serves version 1 to a client that keeps below those
 * versions, which is how Java's producer decides too (the *_BEFORE_TRANSACTION_V2 caps):
 * EndTxn at most v4, TxnOffsetCommit at most v4, AddPartitionsToTxn at most v3 (v4+ is
 * the brokers' own verification request), Produce at most v11 (the highest Brook's
 * schemas know).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { CoordinatorType, type BrokerAddress, type Cluster } from '../cluster.js';
import type { BrokerConnection } from '../connection.js';
import { coordinatorErrorAction, coordinatorFailureAction } from '../coordinator-errors.js';
import { ProducerFencedError } from './errors.js';

/** Java's TransactionManager.ADD_PARTITIONS_RETRY_BACKOFF_MS (see addPartitions). */
const ADD_PARTITIONS_RETRY_BACKOFF_MS = 20;

export interface ProducerIdAndEpoch {
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** What consumer.groupMetadata() returns, as far as TxnOffsetCommit (v3+) carries it. */
export interface ConsumerGroupMetadata {
  readonly groupId: string | null;
  readonly generationId?: number;
  readonly memberId?: string;
  readonly groupInstanceId?: string | null;
}

export interface OffsetInTransaction {
  readonly topic: string;
  readonly partition: number;
  /** The offset of the next record the group is to read. */
  readonly offset: bigint | number;
  readonly leaderEpoch?: number;
  readonly metadata?: string;
}

/**
 * What the transaction manager does about an error code (Java's TransactionManager
 * response handlers): 'fenced' and 'fatal' end the producer, 'abortable' ends the
 * transaction.
 */
export type TxnErrorAction = 'none' | 'retry' | 'find-coordinator' | 'abortable' | 'fenced' | 'fatal';

export function txnErrorAction(code: number): TxnErrorAction {
  switch (code) {
    case ErrorCode.PRODUCER_FENCED:
    case ErrorCode.INVALID_PRODUCER_EPOCH:
      return 'fenced';
    case ErrorCode.TRANSACTION_ABORTABLE:
    case ErrorCode.TOPIC_AUTHORIZATION_FAILED:
    case ErrorCode.GROUP_AUTHORIZATION_FAILED:
    case ErrorCode.UNKNOWN_PRODUCER_ID:
    case ErrorCode.INVALID_PRODUCER_ID_MAPPING:
      return 'abortable';
    // Another partition of the same request failed; that one's error decides.
    case ErrorCode.OPERATION_NOT_ATTEMPTED:
      return 'retry';
  }
  // The coordinator's own errors are classified as for every coordinator (coordinator-errors.ts).
  switch (coordinatorErrorAction(code)) {
    case 'none':
      return 'none';
    case 'find-coordinator':
      return 'find-coordinator';
    case 'retry':
      return 'retry';
    // TxnOffsetCommit from a member the group no longer knows as such: Java's
    // CommitFailedException, which only aborting the transaction gets past.
    case 'rejoin':
    case 'reset-generation':
    case 'reset-member':
    case 'fenced':
    case 'stale-epoch':
      return 'abortable';
    default:
      return 'fatal';
  }
}

const SEVERITY: Record<TxnErrorAction, number> = { none: 0, retry: 1, 'find-coordinator': 2, abortable: 3, fatal: 4, fenced: 5 };

/** The code that decides a per-partition answer: the most severe one. */
function decidingCode(codes: Iterable<number>): number {
  let worst: number = ErrorCode.NONE;
  for (const c of codes) {
    if (c === ErrorCode.OPERATION_NOT_ATTEMPTED && worst === ErrorCode.NONE) worst = c;
    else if (SEVERITY[txnErrorAction(c)] > SEVERITY[txnErrorAction(worst)]) worst = c;
  }
  return worst;
}

/** The error a non-retriable code becomes: fencing has its own type. */
export function txnError(code: number, what: string): KafkaProtocolError {
  return txnErrorAction(code) === 'fenced' ? new ProducerFencedError(code, what) : new KafkaProtocolError(code, what);
}

/** A coordinator found by FindCoordinator and forgotten when it stops answering as one. */
class CoordinatorTarget {
  private address: BrokerAddress | null = null;

  constructor(private readonly cluster: Cluster, private readonly key: string, private readonly keyType: number) {}

  async connection(signal: AbortSignal): Promise<BrokerConnection> {
    this.address ??= await this.cluster.findCoordinator(this.key, this.keyType, signal);
    return this.cluster.connectionTo(this.address, signal, 'coordinator');
  }

  forget(): void {
    this.address = null;
  }
}

export class TransactionRequests {
  private readonly coordinator: CoordinatorTarget;
  private readonly groupCoordinators = new Map<string, CoordinatorTarget>();

  constructor(private readonly cluster: Cluster, readonly transactionalId: string) {
    this.coordinator = new CoordinatorTarget(cluster, transactionalId, CoordinatorType.TRANSACTION);
  }

  /** A new producer id or epoch; with `current` (KIP-360, v3+) the same producer id with its epoch bumped. */
  async initProducerId(transactionTimeoutMs: number, current: ProducerIdAndEpoch | null, signal: AbortSignal): Promise<ProducerIdAndEpoch> {
    let result: ProducerIdAndEpoch = { producerId: -1n, producerEpoch: -1 };
    await this.untilDone('InitProducerId', this.coordinator, signal, async (connection) => {
      if (current !== null && (connection.supportedVersion(Api.InitProducerId) ?? 0) < 3) {
        // Without KIP-360 a sequence gap cannot be closed by bumping the epoch (Java: fatal).
        throw new KafkaProtocolError(ErrorCode.UNSUPPORTED_VERSION, 'InitProducerId below v3 cannot bump the epoch of a transactional producer');
      }
      const response = await connection.request(Api.InitProducerId, {
        transactionalId: this.transactionalId, transactionTimeoutMs,
        producerId: current?.producerId ?? -1n, producerEpoch: current?.producerEpoch ?? -1,
      }, { signal });
      result = { producerId: response.producerId, producerEpoch: response.producerEpoch };
      return response.errorCode;
    });
    return result;
  }

  /**
   * `first`: the transaction has no partition yet. Then CONCURRENT_TRANSACTIONS most likely
   * means the previous transaction is still writing its markers, and the retry comes after
   * 20 ms rather than retry.backoff.ms, as Java's TransactionManager
   * (ADD_PARTITIONS_RETRY_BACKOFF_MS): a producer committing in a loop would otherwise wait
   * a whole backoff per transaction.
   */
  async addPartitions(id: ProducerIdAndEpoch, partitions: ReadonlyMap<string, readonly number[]>, signal: AbortSignal, first = false): Promise<void> {
    const topics = [...partitions].map(([name, list]) => ({ name, partitions: [...list] }));
    const backoffMs = first ? (code: number): number | undefined => (code === ErrorCode.CONCURRENT_TRANSACTIONS ? ADD_PARTITIONS_RETRY_BACKOFF_MS : undefined) : undefined;
    await this.untilDone('AddPartitionsToTxn', this.coordinator, signal, async (connection) => {
      const version = connection.supportedVersion(Api.AddPartitionsToTxn) ?? 0;
      const response = await connection.request(Api.AddPartitionsToTxn, {
        v3AndBelowTransactionalId: this.transactionalId, v3AndBelowProducerId: id.producerId, v3AndBelowProducerEpoch: id.producerEpoch,
        v3AndBelowTopics: topics,
      }, { signal, version });
      const codes: number[] = [];
      for (const t of response.resultsByTopicV3AndBelow ?? []) for (const p of t.resultsByPartition) codes.push(p.partitionErrorCode);
      return decidingCode(codes);
    }, backoffMs);
  }

  async addOffsets(id: ProducerIdAndEpoch, groupId: string, signal: AbortSignal): Promise<void> {
    await this.untilDone('AddOffsetsToTxn', this.coordinator, signal, async (connection) => {
      const response = await connection.request(Api.AddOffsetsToTxn, {
        transactionalId: this.transactionalId, producerId: id.producerId, producerEpoch: id.producerEpoch, groupId,
      }, { signal });
      return response.errorCode;
    });
  }

  /** TxnOffsetCommit to the group's coordinator: the offsets become the group's when the transaction commits. */
  async txnOffsetCommit(id: ProducerIdAndEpoch, group: ConsumerGroupMetadata & { groupId: string }, offsets: readonly OffsetInTransaction[], signal: AbortSignal): Promise<void> {
    const byTopic = new Map<string, { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string }[]>();
    for (const o of offsets) {
      let list = byTopic.get(o.topic);
      if (!list) byTopic.set(o.topic, list = []);
      list.push({ partitionIndex: o.partition, committedOffset: BigInt(o.offset), committedLeaderEpoch: o.leaderEpoch ?? -1, committedMetadata: o.metadata ?? '' });
    }
    let target = this.groupCoordinators.get(group.groupId);
    if (!target) this.groupCoordinators.set(group.groupId, target = new CoordinatorTarget(this.cluster, group.groupId, CoordinatorType.GROUP));
    await this.untilDone('TxnOffsetCommit', target, signal, async (connection) => {
      const version = connection.supportedVersion(Api.TxnOffsetCommit) ?? 0;
      const response = await connection.request(Api.TxnOffsetCommit, {
        transactionalId: this.transactionalId, groupId: group.groupId, producerId: id.producerId, producerEpoch: id.producerEpoch,
        generationIdOrMemberEpoch: group.generationId ?? -1, memberId: group.memberId ?? '', groupInstanceId: group.groupInstanceId ?? null,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
      }, { signal, version });
      const codes: number[] = [];
      for (const t of response.topics) for (const p of t.partitions) codes.push(p.errorCode);
      return decidingCode(codes);
    });
  }

  async endTxn(id: ProducerIdAndEpoch, committed: boolean, signal: AbortSignal): Promise<void> {
    await this.untilDone('EndTxn', this.coordinator, signal, async (connection) => {
      const version = connection.supportedVersion(Api.EndTxn) ?? 0;
      const response = await connection.request(Api.EndTxn, {
        transactionalId: this.transactionalId, producerId: id.producerId, producerEpoch: id.producerEpoch, committed,
      }, { signal, version });
      return response.errorCode;
    });
  }

  /** Sends until the answer's code is NONE; retries what a retry can heal, throws the rest. */
  private async untilDone(
    what: string, target: CoordinatorTarget, signal: AbortSignal, attempt: (c: BrokerConnection) => Promise<number>,
    backoffMs: (code: number) => number | undefined = () => undefined,
  ): Promise<void> {
    for (;;) {
      signal.throwIfAborted();
      let code: number;
      try {
        code = await attempt(await target.connection(signal));
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (err instanceof KafkaProtocolError && err.constructor === KafkaProtocolError) {
          code = err.errorCode; // FindCoordinator's own error, or a check above
        } else if (coordinatorFailureAction(err) === 'find-coordinator') {
          // The connection broke or the request went unanswered: look the coordinator up again.
          target.forget();
          this.cluster.logger.debug('transactional request retried', { what, error: err as Error });
          await this.cluster.backoff(signal);
          continue;
        } else {
          throw err;
        }
      }
      const action = txnErrorAction(code);
      if (action === 'none') return;
      if (action !== 'retry' && action !== 'find-coordinator') throw txnError(code, `${what} for transactional id ${this.transactionalId}`);
      if (action === 'find-coordinator') target.forget();
      this.cluster.logger.debug('transactional request retried', { what, error: new KafkaProtocolError(code).errorName });
      await this.cluster.backoff(signal, backoffMs(code));
    }
  }
}
