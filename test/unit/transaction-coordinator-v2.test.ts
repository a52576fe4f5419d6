/**
 * The transaction coordinator under transaction version 2 (KIP-890 part 2), on an injected
 * clock. Expected epochs, ids and codes follow Kafka 4.4's TransactionCoordinator
 * (endTransaction: retryOnEpochBump, retryOnOverflow, isValidEpoch) and TransactionMetadata
 * (prepareAbortOrCommit bumps the epoch, prepareComplete moves an exhausted producer to the
 * id allocated for it at epoch 0), as read from Kafka's source.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ABORT_TIMED_OUT_KEY, TransactionCoordinator } from '../../src/coordinator/transactions/coordinator.js';
import { decodeTransactionRecord, encodeTransactionRecord } from '../../src/coordinator/transactions/records.js';
import { TransactionState } from '../../src/coordinator/transactions/state.js';
import type { TxnMarkers, TxnReply, TxnResult } from '../../src/coordinator/transactions/types.js';
import type { CoordinatorRecord } from '../../src/coordinator/types.js';

const TP = { topic: 't', partition: 0 };
const TV2 = 2;

class Harness {
  nowMs = 1_000;
  nextPid = 100n;
  readonly log: CoordinatorRecord[] = [];
  readonly markers: TxnMarkers[] = [];
  readonly coordinator = new TransactionCoordinator({}, () => this.nextPid++);
  private requestId = 1;

  constructor(replay: CoordinatorRecord[] = []) {
    for (const r of replay) this.coordinator.replay(r);
    this.settle(this.coordinator.loaded(this.nowMs));
  }

  settle(result: TxnResult): TxnReply[] {
    const replies = [...result.replies];
    for (const w of result.writes) {
      this.log.push(w.record);
      replies.push(...this.settle(this.coordinator.writeCompleted(w.writeId, ErrorCode.NONE, this.nowMs)));
    }
    for (const m of result.markers) {
      this.markers.push(m);
      replies.push(...this.settle(this.coordinator.markersWritten(m.markerId)));
    }
    return replies;
  }

  init(id: string): TxnReply {
    return this.settle(this.coordinator.initProducerId(this.requestId++, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, this.nowMs))[0]!;
  }

  /** The implicit add of a Produce v12 (clientTransactionVersion 2). */
  produce(id: string, producerId: bigint, producerEpoch: number): number {
    return this.settle(this.coordinator.addPartitions(this.requestId++, { transactionalId: id, producerId, producerEpoch }, [TP], this.nowMs, TV2))[0]!.errorCode;
  }

  /** EndTxn v5. */
  end(id: string, producerId: bigint, producerEpoch: number, commit: boolean): TxnReply {
    return this.settle(this.coordinator.endTxn(this.requestId++, { transactionalId: id, producerId, producerEpoch }, commit, this.nowMs, TV2))[0]!;
  }

  last(): ReturnType<typeof decodeTransactionRecord>['transit'] {
    const r = this.log.at(-1)!;
    return decodeTransactionRecord(r.key, r.value).transit;
  }
}

const reply = (r: TxnReply): [number, bigint, number] => [r.errorCode, r.producerId, r.producerEpoch];

describe('transaction coordinator, transaction version 2', () => {
  it('bumps the epoch at every EndTxn: the markers and the answer carry the new epoch', () => {
    const h = new Harness();
    const { producerId } = h.init('a');
    assert.equal(h.produce('a', producerId, 0), ErrorCode.NONE);
    assert.deepEqual(reply(h.end('a', producerId, 0, true)), [ErrorCode.NONE, producerId, 1]);
    assert.deepEqual(h.markers.map((m) => [m.producerId, m.producerEpoch, m.commit]), [[producerId, 1, true]]);
    assert.equal(h.coordinator.describe('a')?.state, 'CompleteCommit');
    assert.equal(h.last()?.clientTransactionVersion, TV2);
    // The next transaction runs at epoch 1 and ends at 2.
    assert.equal(h.produce('a', producerId, 1), ErrorCode.NONE);
    assert.deepEqual(reply(h.end('a', producerId, 1, false)), [ErrorCode.NONE, producerId, 2]);
    assert.deepEqual(h.markers.at(-1), { ...h.markers.at(-1)!, producerEpoch: 2, commit: false });
  });

  it('answers a retried EndTxn (epoch one behind) with the bumped epoch, and fences older epochs', () => {
    const h = new Harness();
    const { producerId } = h.init('a');
    h.produce('a', producerId, 0);
    h.end('a', producerId, 0, true);
    assert.deepEqual(reply(h.end('a', producerId, 0, true)), [ErrorCode.NONE, producerId, 1]);
    // A retry of a commit cannot become an abort.
    assert.equal(h.end('a', producerId, 0, false).errorCode, ErrorCode.INVALID_TXN_STATE);
    // Committing again at the new epoch with nothing added is not a transaction.
    assert.equal(h.end('a', producerId, 1, true).errorCode, ErrorCode.INVALID_TXN_STATE);
    // A producer still at epoch 0 adding partitions is fenced.
    assert.equal(h.produce('a', producerId, 0), ErrorCode.PRODUCER_FENCED);
    assert.equal(h.end('a', producerId + 1n, 1, true).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  });

  it('aborts with nothing added (Empty or Complete) under a bumped epoch', () => {
    const h = new Harness();
    const { producerId } = h.init('a');
    assert.deepEqual(reply(h.end('a', producerId, 0, false)), [ErrorCode.NONE, producerId, 1]);
    assert.deepEqual(h.markers.map((m) => m.partitions.length), [0]);
    assert.equal(h.coordinator.describe('a')?.state, 'CompleteAbort');
    assert.equal(h.end('a', producerId, 1, true).errorCode, ErrorCode.INVALID_TXN_STATE);
  });

  it('moves to a new producer id at epoch 0 when the end exhausts the epoch, and answers the retry the same', () => {
    const seed = encodeTransactionRecord('a', {
      producerId: 7n, prevProducerId: -1n, nextProducerId: -1n, producerEpoch: 32766, lastProducerEpoch: -1, txnTimeoutMs: 60_000,
      state: TransactionState.CompleteCommit, partitions: new Map(), txnStartTimestamp: 1, txnLastUpdateTimestamp: 1, clientTransactionVersion: TV2,
    });
    const h = new Harness([seed]);
    assert.equal(h.produce('a', 7n, 32766), ErrorCode.NONE);
    assert.deepEqual(reply(h.end('a', 7n, 32766, true)), [ErrorCode.NONE, 100n, 0]);
    // Markers at Short.MaxValue on the old id; the log's Complete record holds the new id.
    assert.deepEqual(h.markers.map((m) => [m.producerId, m.producerEpoch]), [[7n, 32767]]);
    assert.deepEqual([h.last()?.producerId, h.last()?.prevProducerId, h.last()?.producerEpoch], [100n, 7n, 0]);
    assert.deepEqual(reply(h.end('a', 7n, 32766, true)), [ErrorCode.NONE, 100n, 0]);
    assert.equal(h.produce('a', 100n, 0), ErrorCode.NONE);
    // Every transition records the id it leaves as the previous one (prepareTransitionTo), so
    // once the new id's transaction has started the old id is no longer recognised.
    assert.equal(h.last()?.prevProducerId, 100n);
    assert.equal(h.end('a', 7n, 32766, true).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  });

  it('aborts a timed-out transaction under a bumped epoch; the old producer\'s abort is a retry', () => {
    const h = new Harness();
    const { producerId } = h.init('a');
    h.produce('a', producerId, 0);
    h.nowMs += 61_000;
    h.settle(h.coordinator.onTimer(ABORT_TIMED_OUT_KEY, h.nowMs));
    assert.deepEqual(h.markers.map((m) => [m.producerEpoch, m.commit]), [[1, false]]);
    assert.equal(h.coordinator.describe('a')?.state, 'CompleteAbort');
    assert.equal(h.produce('a', producerId, 0), ErrorCode.PRODUCER_FENCED);
    assert.equal(h.end('a', producerId, 0, true).errorCode, ErrorCode.INVALID_TXN_STATE);
    assert.deepEqual(reply(h.end('a', producerId, 0, false)), [ErrorCode.NONE, producerId, 1]);
    assert.equal(h.produce('a', producerId, 1), ErrorCode.NONE);
  });

  it('fences a version-1 transaction through the version-2 abort: its producer\'s KIP-360 re-init is then a retry', () => {
    // Kafka 4.4 aborts timed-out and fenced transactions through endTransaction with the
    // broker's transaction version (2): prepareAbortOrCommit writes epoch + 1 and keeps the
    // old epoch as lastProducerEpoch, which prepareIncrementProducerEpoch takes as a retry.
    const h = new Harness();
    const { producerId } = h.init('a');
    h.settle(h.coordinator.addPartitions(90, { transactionalId: 'a', producerId, producerEpoch: 0 }, [TP], h.nowMs));
    h.nowMs += 61_000;
    h.settle(h.coordinator.onTimer(ABORT_TIMED_OUT_KEY, h.nowMs));
    assert.deepEqual(h.markers.map((m) => [m.producerEpoch, m.commit]), [[1, false]]);
    assert.deepEqual([h.last()?.producerEpoch, h.last()?.clientTransactionVersion], [1, TV2]);
    const [ended] = h.settle(h.coordinator.endTxn(91, { transactionalId: 'a', producerId, producerEpoch: 0 }, true, h.nowMs));
    assert.equal(ended!.errorCode, ErrorCode.PRODUCER_FENCED);
    const [reinit] = h.settle(h.coordinator.initProducerId(92, { transactionalId: 'a', transactionTimeoutMs: 60_000, producerId, producerEpoch: 0 }, h.nowMs));
    assert.deepEqual(reply(reinit!), [ErrorCode.NONE, producerId, 1]);
  });

  it('keeps transaction version 1 ends at the same epoch', () => {
    const h = new Harness();
    const { producerId } = h.init('a');
    h.settle(h.coordinator.addPartitions(90, { transactionalId: 'a', producerId, producerEpoch: 0 }, [TP], h.nowMs));
    const [r] = h.settle(h.coordinator.endTxn(91, { transactionalId: 'a', producerId, producerEpoch: 0 }, true, h.nowMs));
    assert.equal(r!.errorCode, ErrorCode.NONE);
    assert.deepEqual(h.markers.map((m) => m.producerEpoch), [0]);
    assert.equal(h.last()?.clientTransactionVersion, 0);
  });
});
