/**
 * The transaction data plane of a partition log, against Kafka 4.4's rules (UnifiedLog,
 * ProducerStateManager, TransactionIndex): the last stable offset, read_committed reads and
 * their aborted transactions, marker validation, and the state after a restart. Expected
 * values follow from Kafka's definitions, spelled out per case: LSO = the first offset of
 * the oldest open transaction, else the high watermark; an aborted transaction is indexed
 * as (producerId, first offset, marker offset, LSO after it).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ControlRecordType, decodeRecordBatch, encodeControlRecordKey, encodeEndTxnMarker, encodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { CLEAN_SHUTDOWN_MARKER, type PartitionLog, type Storage } from '../../src/storage/index.js';
import { ENGINES, errorCodeOf, filesIn, makeEnv, NOW, partitionDir, type StorageEnv } from '../support/storage/helpers.js';

function txnBatch(producerId: bigint, epoch: number, sequence: number, values: string[]): Buffer {
  return encodeRecordBatch({
    records: values.map((v) => ({ value: Buffer.from(v), timestamp: NOW })),
    producerId, producerEpoch: epoch, baseSequence: sequence, isTransactional: true,
  });
}

function marker(producerId: bigint, epoch: number, commit: boolean, coordinatorEpoch = 0): Buffer {
  return encodeRecordBatch({
    records: [{ key: encodeControlRecordKey(commit ? ControlRecordType.Commit : ControlRecordType.Abort), value: encodeEndTxnMarker(coordinatorEpoch), timestamp: NOW }],
    producerId, producerEpoch: epoch, baseSequence: -1, isTransactional: true, isControl: true,
  });
}

const client = { nowMs: NOW };

/** The values of the data records read (control batches are never shown to applications). */
function dataValues(buffers: readonly Buffer[]): string[] {
  const out: string[] = [];
  for (const buf of buffers) {
    for (const view of iterateBatches(buf)) {
      const decoded = decodeRecordBatch(view.buffer);
      if (!decoded.header.isControl) for (const r of decoded.records) out.push(r.value?.toString() ?? '');
    }
  }
  return out;
}
const coordinator = { nowMs: NOW, origin: 'coordinator' as const };

/** Reads with read_committed from `from` up to the LSO, fetch after fetch, as a consumer would. */
function committedValues(log: PartitionLog, from = 0n): { values: string[]; lso: bigint; aborted: { producerId: bigint; firstOffset: bigint }[] } {
  const values: string[] = [];
  const aborted = new Map<string, { producerId: bigint; firstOffset: bigint }>();
  let offset = from;
  let lso = log.lastStableOffset;
  for (;;) {
    const result = log.read(offset, 1 << 20, { minOneBatch: true, readCommitted: true });
    lso = result.lastStableOffset;
    for (const t of result.abortedTransactions ?? []) aborted.set(`${t.producerId}/${t.firstOffset}`, { producerId: t.producerId, firstOffset: t.firstOffset });
    if (result.bytes === 0) break;
    values.push(...dataValues(result.records));
    let next = offset;
    for (const buf of result.records) for (const view of iterateBatches(buf)) next = decodeRecordBatch(view.buffer).header.lastOffset + 1n;
    offset = next;
  }
  return { values, lso, aborted: [...aborted.values()] };
}

for (const kind of ENGINES) {
  describe(`transactions in the log (${kind})`, () => {
    let env: StorageEnv;
    let storage: Storage;
    before(async () => {
      env = makeEnv(kind);
      storage = await env.open();
    });
    after(() => env.cleanup());

    function newLog(name: string, configs: Record<string, string> = {}): PartitionLog {
      storage.createTopic(name, 1, configs);
      return storage.partition(name, 0)!;
    }

    it('holds the LSO at the first offset of the oldest open transaction and reads only below it', () => {
      const log = newLog('lso');
      log.append(txnBatch(1n, 0, 0, ['a0', 'a1']), client); // 0-1, producer 1 opens at 0
      log.append(txnBatch(2n, 0, 0, ['b0']), client); // 2, producer 2 opens at 2
      assert.equal(log.lastStableOffset, 0n);
      assert.equal(log.highWatermark, 3n);
      const r = log.read(0n, 1 << 20, { minOneBatch: true, readCommitted: true });
      assert.equal(r.bytes, 0);
      assert.deepEqual(r.abortedTransactions, []);
      assert.equal(r.lastStableOffset, 0n);
      assert.equal(log.read(0n, 1 << 20, { minOneBatch: true }).abortedTransactions, null);
      log.append(marker(1n, 0, true), coordinator); // 3: commit of producer 1 → LSO = 2 (producer 2 still open)
      assert.equal(log.lastStableOffset, 2n);
      assert.deepEqual(committedValues(log).values, ['a0', 'a1']);
      log.append(marker(2n, 0, false), coordinator); // 4: abort of producer 2 → LSO = HW = 5
      assert.equal(log.lastStableOffset, 5n);
      const all = committedValues(log);
      assert.deepEqual(all.values, ['a0', 'a1', 'b0'], 'aborted records are returned; the consumer drops them');
      assert.deepEqual(all.aborted, [{ producerId: 2n, firstOffset: 2n }]);
      assert.equal(all.lso, 5n);
      // A read starting after the abort marker needs no aborted transaction.
      log.append(encodeRecordBatch({ records: [{ value: Buffer.from('plain'), timestamp: NOW }] }), client);
      assert.deepEqual(committedValues(log, 5n).aborted, []);
    });

    it('fences stale epochs and zombie coordinators, and refuses non-transactional writes inside a transaction', () => {
      const log = newLog('fencing');
      log.append(txnBatch(7n, 3, 0, ['x']), client);
      assert.equal(errorCodeOf(() => log.append(encodeRecordBatch({
        records: [{ value: Buffer.from('y'), timestamp: NOW }], producerId: 7n, producerEpoch: 3, baseSequence: 1,
      }), client)), ErrorCode.INVALID_TXN_STATE);
      assert.equal(errorCodeOf(() => log.append(marker(7n, 2, false), coordinator)), ErrorCode.INVALID_PRODUCER_EPOCH);
      assert.equal(errorCodeOf(() => log.append(txnBatch(7n, 2, 0, ['old']), client)), ErrorCode.INVALID_PRODUCER_EPOCH);
      log.append(marker(7n, 3, true, 5), coordinator);
      assert.equal(errorCodeOf(() => log.append(marker(7n, 3, true, 4), coordinator)), ErrorCode.TRANSACTION_COORDINATOR_FENCED);
      assert.equal(errorCodeOf(() => log.append(marker(7n, 3, true), client)), ErrorCode.INVALID_RECORD, 'clients may not write control batches');
      assert.equal(log.lastStableOffset, log.highWatermark);
    });

    it('under transaction version 2 takes only a marker with a newer epoch, or a retry of the last one (KIP-1228)', () => {
      const log = newLog('tv2-markers');
      const tv2 = { ...coordinator, transactionVersion: 2 };
      log.append(txnBatch(9n, 4, 0, ['t']), client); // epoch 4 opens a transaction
      // The coordinator bumps the epoch at every end: a marker at the transaction's own epoch is stale.
      assert.equal(errorCodeOf(() => log.append(marker(9n, 4, true), tv2)), ErrorCode.INVALID_PRODUCER_EPOCH);
      assert.notEqual(log.lastStableOffset, log.highWatermark, 'the refused marker completed nothing');
      log.append(marker(9n, 5, true), tv2);
      assert.equal(log.lastStableOffset, log.highWatermark);
      // A retry of the marker that completed the last transaction (same epoch, none open) is accepted.
      log.append(marker(9n, 5, true), tv2);
      assert.equal(errorCodeOf(() => log.append(marker(9n, 4, false), tv2)), ErrorCode.INVALID_PRODUCER_EPOCH);
      // Before transaction version 2, a marker at the producer's epoch is what ends its transaction.
      log.append(txnBatch(9n, 5, 0, ['u']), client);
      log.append(marker(9n, 5, false), coordinator);
      assert.equal(log.lastStableOffset, log.highWatermark);
    });

    it('answers every aborted transaction overlapping a read that spans several', () => {
      const log = newLog('many');
      log.append(txnBatch(1n, 0, 0, ['p1']), client); // 0
      log.append(txnBatch(2n, 0, 0, ['p2']), client); // 1
      log.append(marker(1n, 0, false), coordinator); // 2: abort (1, 0)
      log.append(txnBatch(3n, 0, 0, ['p3']), client); // 3
      log.append(marker(2n, 0, true), coordinator); // 4: commit
      log.append(marker(3n, 0, false), coordinator); // 5: abort (3, 3)
      const all = committedValues(log);
      assert.deepEqual(all.aborted, [{ producerId: 1n, firstOffset: 0n }, { producerId: 3n, firstOffset: 3n }]);
      assert.deepEqual(committedValues(log, 3n).aborted, [{ producerId: 3n, firstOffset: 3n }], 'a transaction aborted before the fetch offset is left out');
    });

    if (kind === 'file') {
      it('rebuilds open transactions and the aborted index after an unclean restart, and keeps them across rolls', async () => {
        let log = newLog('restart', { 'internal.segment.bytes': '400' });
        log.append(txnBatch(1n, 0, 0, ['open-1']), client); // 0: stays open
        for (let i = 0; i < 6; i++) {
          log.append(txnBatch(2n, 0, i, [`ab${i}`]), client);
          log.append(marker(2n, 0, i % 2 === 1), coordinator); // even i: abort
        }
        const before = committedValues(log);
        assert.ok(log.segments().length > 2, 'the transactions span rolled segments');
        assert.equal(log.lastStableOffset, 0n);
        // Across a restart with the transaction still open.
        await storage.close();
        fs.unlinkSync(join(env.dir, CLEAN_SHUTDOWN_MARKER));
        storage = await env.open();
        log = storage.partition('restart', 0)!;
        assert.equal(log.lastStableOffset, 0n);
        assert.deepEqual(committedValues(log), before);
        log.append(marker(1n, 0, false), coordinator);
        const settled = committedValues(log);
        assert.equal(settled.lso, log.highWatermark);
        assert.equal(settled.aborted.length, 4, 'three aborts of producer 2 and one of producer 1');
        // Unclean restart: the active segment is recovered and replayed from its snapshot.
        await storage.close();
        fs.unlinkSync(join(env.dir, CLEAN_SHUTDOWN_MARKER));
        storage = await env.open();
        let again = storage.partition('restart', 0)!;
        assert.equal(again.lastStableOffset, again.highWatermark);
        assert.deepEqual(committedValues(again), settled);
        // Without snapshots or transaction indexes everything is rebuilt from the batches.
        await storage.close();
        fs.unlinkSync(join(env.dir, CLEAN_SHUTDOWN_MARKER));
        const dir = partitionDir(env, 'restart');
        assert.ok(filesIn(dir, '.txnindex').length >= 2, 'sealed segments keep their aborted transactions in .txnindex files');
        for (const name of [...filesIn(dir, '.snapshot'), ...filesIn(dir, '.txnindex')]) fs.unlinkSync(join(dir, name));
        storage = await env.open();
        again = storage.partition('restart', 0)!;
        assert.deepEqual(committedValues(again), settled);
        assert.equal(before.lso, 0n);
      });
    }
  });
}
