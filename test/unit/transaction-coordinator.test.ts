/**
 * The transaction coordinator state machine on an injected clock: expected codes and
 * transitions are Kafka 4.4's (TransactionCoordinator, TransactionMetadata; its
 * TransactionCoordinatorTest covers the same cases).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ABORT_TIMED_OUT_KEY, EXPIRE_IDS_KEY, TransactionCoordinator } from '../../src/coordinator/transactions/coordinator.js';
import { decodeTransactionRecord } from '../../src/coordinator/transactions/records.js';
import { TransactionState } from '../../src/coordinator/transactions/state.js';
import type { TxnResult } from '../../src/coordinator/transactions/types.js';
import type { CoordinatorRecord } from '../../src/coordinator/types.js';

const TP = { topic: 't', partition: 0 };
const TP1 = { topic: 't', partition: 1 };

/** A coordinator whose writes are made durable by `settle`, with every record kept (the log). */
class Harness {
  nowMs = 1_000;
  nextPid = 100n;
  readonly log: CoordinatorRecord[] = [];
  readonly coordinator: TransactionCoordinator;
  private requestId = 1;

  constructor(config = {}) {
    this.coordinator = new TransactionCoordinator(config, () => this.nextPid++);
  }

  /** Completes every write (and the writes they lead to, markers included) and returns the replies. */
  settle(result: TxnResult, options: { markers?: boolean; fail?: number } = {}): TxnResult['replies'] {
    const replies = [...result.replies];
    for (const w of result.writes) {
      if (options.fail === undefined) this.log.push(w.record);
      replies.push(...this.settle(this.coordinator.writeCompleted(w.writeId, options.fail ?? ErrorCode.NONE, this.nowMs), options));
    }
    if (options.markers !== false) for (const m of result.markers) replies.push(...this.settle(this.coordinator.markersWritten(m.markerId), options));
    return replies;
  }

  call<T extends unknown[]>(fn: (id: number, ...args: T) => TxnResult, ...args: T): { result: TxnResult; id: number } {
    const id = this.requestId++;
    return { result: fn.call(this.coordinator, id, ...args), id };
  }

  init(transactionalId: string, producerId = -1n, producerEpoch = -1, timeoutMs = 60_000): TxnResult['replies'][number] {
    const { result } = this.call(this.coordinator.initProducerId, { transactionalId, transactionTimeoutMs: timeoutMs, producerId, producerEpoch }, this.nowMs);
    return this.settle(result)[0]!;
  }

  add(transactionalId: string, producerId: bigint, producerEpoch: number, partitions = [TP]): number {
    const { result } = this.call(this.coordinator.addPartitions, { transactionalId, producerId, producerEpoch }, partitions, this.nowMs);
    return this.settle(result)[0]!.errorCode;
  }

  end(transactionalId: string, producerId: bigint, producerEpoch: number, commit: boolean, options: { markers?: boolean } = {}): { errorCode: number; result: TxnResult } {
    const { result } = this.call(this.coordinator.endTxn, { transactionalId, producerId, producerEpoch }, commit, this.nowMs);
    return { errorCode: this.settle(result, options)[0]!.errorCode, result };
  }

  state(transactionalId: string): string | undefined {
    return this.coordinator.describe(transactionalId)?.state;
  }
}

function loaded(config = {}): Harness {
  const h = new Harness(config);
  h.settle(h.coordinator.loaded(h.nowMs));
  return h;
}

describe('transaction coordinator', () => {
  it('answers COORDINATOR_LOAD_IN_PROGRESS until loaded', () => {
    const h = new Harness();
    assert.equal(h.init('a').errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  });

  it('gives a new transactional id a new producer id at epoch 0, and bumps the epoch at each InitProducerId', () => {
    const h = loaded();
    assert.deepEqual(h.init('a'), { requestId: 1, errorCode: ErrorCode.NONE, producerId: 100n, producerEpoch: 0 });
    assert.equal(h.init('a').producerEpoch, 1);
    assert.equal(h.init('b').producerId, 101n);
    assert.equal(h.state('a'), 'Empty');
  });

  it('answers only once the record is durable; meanwhile other requests get CONCURRENT_TRANSACTIONS', () => {
    const h = loaded();
    const first = h.call(h.coordinator.initProducerId, { transactionalId: 'a', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 }, h.nowMs);
    assert.equal(first.result.replies.length, 0);
    assert.equal(first.result.writes.length, 1);
    const second = h.call(h.coordinator.initProducerId, { transactionalId: 'a', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 }, h.nowMs);
    assert.equal(second.result.replies[0]!.errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
    assert.equal(h.settle(first.result)[0]!.errorCode, ErrorCode.NONE);
  });

  it('refuses a timeout above transaction.max.timeout.ms and an empty transactional id', () => {
    const h = loaded({ transactionMaxTimeoutMs: 5000 });
    assert.equal(h.init('a', -1n, -1, 5001).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    assert.equal(h.init('a', -1n, -1, 0).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    assert.equal(h.init('', -1n, -1, 5000).errorCode, ErrorCode.INVALID_REQUEST);
  });

  it('commits: Ongoing, PrepareCommit (answered), markers to every partition, CompleteCommit', () => {
    const h = loaded();
    const { producerId, producerEpoch } = h.init('a');
    assert.equal(h.add('a', producerId, producerEpoch, [TP, TP1]), ErrorCode.NONE);
    assert.equal(h.state('a'), 'Ongoing');
    // Adding partitions already in the transaction writes nothing.
    const again = h.call(h.coordinator.addPartitions, { transactionalId: 'a', producerId, producerEpoch }, [TP], h.nowMs);
    assert.equal(again.result.writes.length, 0);
    assert.equal(again.result.replies[0]!.errorCode, ErrorCode.NONE);
    const { errorCode, result } = h.end('a', producerId, producerEpoch, true, { markers: false });
    assert.equal(errorCode, ErrorCode.NONE);
    assert.equal(h.state('a'), 'PrepareCommit');
    // While the markers are out, the producer's next requests are refused as concurrent.
    assert.equal(h.add('a', producerId, producerEpoch), ErrorCode.CONCURRENT_TRANSACTIONS);
    assert.equal(h.init('a', producerId, producerEpoch).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
    assert.equal(result.writes.length, 1);
    const states = h.log.map((r) => decodeTransactionRecord(r.key, r.value).transit!.state);
    assert.deepEqual(states, [TransactionState.Empty, TransactionState.Ongoing, TransactionState.PrepareCommit]);
  });

  it('sends one COMMIT marker per partition with the producer epoch and coordinator epoch, then writes CompleteCommit', () => {
    const h = loaded();
    const { producerId, producerEpoch } = h.init('a');
    h.add('a', producerId, producerEpoch, [TP, TP1]);
    const end = h.call(h.coordinator.endTxn, { transactionalId: 'a', producerId, producerEpoch }, true, h.nowMs);
    const prepare = h.coordinator.writeCompleted(end.result.writes[0]!.writeId, ErrorCode.NONE, h.nowMs);
    assert.equal(prepare.replies[0]!.errorCode, ErrorCode.NONE);
    assert.equal(prepare.markers.length, 1);
    const m = prepare.markers[0]!;
    assert.deepEqual({ ...m, markerId: 0 }, { markerId: 0, transactionalId: 'a', producerId, producerEpoch, commit: true, coordinatorEpoch: 0, transactionVersion: 0, partitions: [TP, TP1] });
    const complete = h.coordinator.markersWritten(m.markerId);
    assert.equal(complete.writes.length, 1);
    h.settle(complete);
    assert.equal(h.state('a'), 'CompleteCommit');
    assert.deepEqual(h.coordinator.describe('a')!.partitions, []);
    // A retried EndTxn of the finished transaction succeeds; the opposite outcome is an invalid state.
    assert.equal(h.end('a', producerId, producerEpoch, true).errorCode, ErrorCode.NONE);
    assert.equal(h.end('a', producerId, producerEpoch, false).errorCode, ErrorCode.INVALID_TXN_STATE);
  });

  it('checks producer id and epoch as Kafka', () => {
    const h = loaded();
    const { producerId, producerEpoch } = h.init('a');
    assert.equal(h.add('unknown', producerId, producerEpoch), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    assert.equal(h.add('a', producerId + 1n, producerEpoch), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    assert.equal(h.add('a', producerId, producerEpoch - 1), ErrorCode.PRODUCER_FENCED);
    assert.equal(h.end('a', producerId, producerEpoch, true).errorCode, ErrorCode.INVALID_TXN_STATE); // Empty: nothing to end
    h.add('a', producerId, producerEpoch);
    assert.equal(h.end('a', producerId, producerEpoch + 1, true).errorCode, ErrorCode.PRODUCER_FENCED);
  });

  it('fences an ongoing transaction at InitProducerId: aborts it under epoch + 1, answers CONCURRENT_TRANSACTIONS, then epoch + 2', () => {
    const h = loaded();
    const { producerId, producerEpoch } = h.init('a');
    h.add('a', producerId, producerEpoch);
    const fence = h.call(h.coordinator.initProducerId, { transactionalId: 'a', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, h.nowMs);
    assert.equal(fence.result.replies.length, 0);
    const prepare = h.coordinator.writeCompleted(fence.result.writes[0]!.writeId, ErrorCode.NONE, h.nowMs);
    assert.equal(prepare.replies[0]!.errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
    assert.equal(prepare.markers[0]!.commit, false);
    assert.equal(prepare.markers[0]!.producerEpoch, producerEpoch + 1);
    h.log.push(fence.result.writes[0]!.record);
    // The zombie cannot end its transaction.
    assert.equal(h.end('a', producerId, producerEpoch, true).errorCode, ErrorCode.PRODUCER_FENCED);
    h.settle(h.coordinator.markersWritten(prepare.markers[0]!.markerId));
    assert.equal(h.state('a'), 'CompleteAbort');
    const retried = h.init('a');
    assert.deepEqual([retried.errorCode, retried.producerId, retried.producerEpoch], [ErrorCode.NONE, producerId, producerEpoch + 2]);
  });

  it('does not bump twice for a fence whose PrepareAbort failed to append', () => {
    const h = loaded();
    const { producerId, producerEpoch } = h.init('a');
    h.add('a', producerId, producerEpoch);
    const fence = h.call(h.coordinator.initProducerId, { transactionalId: 'a', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, h.nowMs);
    const failed = h.coordinator.writeCompleted(fence.result.writes[0]!.writeId, ErrorCode.KAFKA_STORAGE_ERROR, h.nowMs);
    assert.equal(failed.replies[0]!.errorCode, ErrorCode.NOT_COORDINATOR);
    assert.equal(h.state('a'), 'Ongoing');
    const retry = h.call(h.coordinator.initProducerId, { transactionalId: 'a', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, h.nowMs);
    const prepare = h.coordinator.writeCompleted(retry.result.writes[0]!.writeId, ErrorCode.NONE, h.nowMs);
    assert.equal(prepare.markers[0]!.producerEpoch, producerEpoch + 1);
  });

  it('KIP-360: InitProducerId with the current id and epoch bumps; a retry gets the same epoch; an older epoch is fenced', () => {
    const h = loaded();
    const first = h.init('a');
    const bumped = h.init('a', first.producerId, first.producerEpoch);
    assert.equal(bumped.producerEpoch, first.producerEpoch + 1);
    // The response was lost: the producer retries with the epoch it had.
    assert.equal(h.init('a', first.producerId, first.producerEpoch).producerEpoch, bumped.producerEpoch);
    h.init('a', bumped.producerId, bumped.producerEpoch);
    assert.equal(h.init('a', first.producerId, first.producerEpoch).errorCode, ErrorCode.PRODUCER_FENCED);
    assert.equal(h.init('a', 999n, 0).errorCode, ErrorCode.PRODUCER_FENCED);
  });

  it('rotates to a new producer id once the epoch is exhausted', () => {
    const h = loaded();
    const first = h.init('a');
    // Replay a record at epoch 32766 (Short.MaxValue - 1), as a long-lived id would reach.
    const again = new Harness();
    for (const r of h.log) again.coordinator.replay(r);
    const txn = (again.coordinator as unknown as { txns: Map<string, { producerEpoch: number }> }).txns.get('a')!;
    txn.producerEpoch = 32_766;
    again.settle(again.coordinator.loaded(again.nowMs));
    again.nextPid = 500n;
    const rotated = again.init('a', first.producerId, 32_766);
    assert.deepEqual([rotated.producerId, rotated.producerEpoch], [500n, 0]);
  });

  it('aborts a transaction past its timeout, with an epoch bump, at the cleanup interval', () => {
    const h = loaded({ abortTimedOutTransactionCleanupIntervalMs: 1000 });
    const { producerId, producerEpoch } = h.init('a', -1n, -1, 5000);
    h.add('a', producerId, producerEpoch);
    h.nowMs += 5000;
    const early = h.coordinator.onTimer(ABORT_TIMED_OUT_KEY, h.nowMs);
    assert.equal(early.writes.length, 0);
    assert.deepEqual(early.timers, [{ schedule: ABORT_TIMED_OUT_KEY, atMs: h.nowMs + 1000 }]);
    h.nowMs += 1;
    const late = h.coordinator.onTimer(ABORT_TIMED_OUT_KEY, h.nowMs);
    assert.equal(late.writes.length, 1);
    h.settle(late);
    assert.equal(h.state('a'), 'CompleteAbort');
    assert.equal(h.coordinator.describe('a')!.producerEpoch, producerEpoch + 1);
    assert.equal(h.end('a', producerId, producerEpoch, true).errorCode, ErrorCode.PRODUCER_FENCED);
  });

  it('expires idle transactional ids after transactional.id.expiration.ms with a tombstone', () => {
    const h = loaded({ transactionalIdExpirationMs: 10_000 });
    h.init('a');
    h.nowMs += 10_000;
    const expired = h.coordinator.onTimer(EXPIRE_IDS_KEY, h.nowMs);
    assert.equal(expired.writes.length, 1);
    assert.equal(expired.writes[0]!.record.value, null);
    h.settle(expired);
    assert.equal(h.coordinator.describe('a'), null);
    assert.equal(h.add('a', 100n, 0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  });

  it('after a restart, completes PrepareCommit transactions (markers again) and keeps Ongoing ones for the timeout', () => {
    const h = loaded();
    const a = h.init('a');
    h.add('a', a.producerId, a.producerEpoch);
    h.end('a', a.producerId, a.producerEpoch, true, { markers: false }); // crash before the markers
    const b = h.init('b');
    h.add('b', b.producerId, b.producerEpoch, [TP1]);
    const restarted = new Harness();
    for (const r of h.log) restarted.coordinator.replay(r);
    const load = restarted.coordinator.loaded(restarted.nowMs);
    assert.equal(load.markers.length, 1);
    assert.deepEqual({ ...load.markers[0]!, markerId: 0 }, {
      markerId: 0, transactionalId: 'a', producerId: a.producerId, producerEpoch: a.producerEpoch, commit: true, coordinatorEpoch: 0, transactionVersion: 0, partitions: [TP],
    });
    restarted.settle(load);
    assert.equal(restarted.state('a'), 'CompleteCommit');
    assert.equal(restarted.state('b'), 'Ongoing');
    assert.deepEqual(restarted.coordinator.list({ states: ['Ongoing'], producerIds: [], durationMs: -1 }, restarted.nowMs).map((t) => t.transactionalId), ['b']);
  });
});
