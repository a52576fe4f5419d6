import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CLEAN_SHUTDOWN_MARKER, type PartitionLog, type Storage } from '../../src/storage/index.js';
import { batch, ENGINES, errorCodeOf, filesIn, makeEnv, NOW, partitionDir, readAll, type StorageEnv } from '../support/storage/helpers.js';

const PID = 1000n;

function produce(log: PartitionLog, sequence: number, count = 1, epoch = 0, producerId = PID) {
  return log.append(batch({ count, producerId, epoch, sequence, value: `s${sequence}` }), { nowMs: NOW });
}

for (const kind of ENGINES) {
  describe(`idempotent producers (${kind})`, () => {
    let env: StorageEnv;
    let storage: Storage;
    before(async () => {
      env = makeEnv(kind);
      storage = await env.open();
    });
    after(() => env.cleanup());

    function newLog(name: string): PartitionLog {
      storage.createTopic(name, 1);
      return storage.partition(name, 0)!;
    }

    it('does not append a duplicate of one of the last five batches, answering its first offsets', () => {
      const log = newLog('dups');
      const firsts = [0, 2, 4, 6, 8, 10].map((seq) => produce(log, seq, 2));
      assert.equal(log.logEndOffset, 12n);
      const again = produce(log, 10, 2);
      assert.equal(again.duplicate, true);
      assert.equal(again.baseOffset, firsts[5]!.baseOffset);
      assert.equal(again.lastOffset, firsts[5]!.lastOffset);
      assert.equal(produce(log, 2, 2).baseOffset, 2n, 'still among the last five');
      assert.equal(log.logEndOffset, 12n);
      // The sixth-newest batch is forgotten: its sequence is now simply out of order.
      assert.equal(errorCodeOf(() => produce(log, 0, 2)), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      assert.equal(readAll(log).length, 12);
    });

    it('refuses gaps and overlaps with OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
      const log = newLog('gaps');
      produce(log, 0, 3);
      assert.equal(errorCodeOf(() => produce(log, 4)), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      assert.equal(errorCodeOf(() => produce(log, 2, 2)), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      assert.equal(produce(log, 3).baseOffset, 3n);
      assert.equal(log.logEndOffset, 4n);
    });

    it('accepts an unknown producer at any sequence (Kafka 4: no UNKNOWN_PRODUCER_ID)', () => {
      const log = newLog('unknown');
      assert.equal(produce(log, 42, 1, 3, 77n).baseOffset, 0n);
      assert.equal(produce(log, 43, 1, 3, 77n).baseOffset, 1n);
    });

    it('requires sequence 0 after an epoch bump and fences older epochs', () => {
      const log = newLog('epochs');
      produce(log, 0, 2, 0);
      assert.equal(errorCodeOf(() => produce(log, 5, 1, 1)), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      assert.equal(produce(log, 0, 1, 1).baseOffset, 2n);
      assert.equal(errorCodeOf(() => produce(log, 2, 1, 0)), ErrorCode.INVALID_PRODUCER_EPOCH);
      assert.equal(produce(log, 1, 1, 1).baseOffset, 3n);
    });

    it('wraps sequences past Int32 max to 0', () => {
      const log = newLog('wrap');
      produce(log, 0x7ffffffe, 2);
      assert.equal(produce(log, 0, 1).baseOffset, 2n);
    });

    it('keeps producers apart and ignores non-idempotent batches', () => {
      const log = newLog('many');
      produce(log, 0, 1, 0, 1n);
      produce(log, 0, 1, 0, 2n);
      log.append(batch(), { nowMs: NOW });
      assert.equal(produce(log, 1, 1, 0, 1n).baseOffset, 3n);
      assert.equal(produce(log, 0, 1, 0, 2n).duplicate, true);
    });

    it('reports the original append time of a duplicate on LogAppendTime topics', () => {
      storage.createTopic('dup-time', 1, { 'message.timestamp.type': 'LogAppendTime' });
      const log = storage.partition('dup-time', 0)!;
      log.append(batch({ producerId: PID, epoch: 0, sequence: 0 }), { nowMs: NOW });
      const dup = log.append(batch({ producerId: PID, epoch: 0, sequence: 0 }), { nowMs: NOW + 999 });
      assert.equal(dup.duplicate, true);
      assert.equal(dup.logAppendTimeMs, BigInt(NOW));
    });
  });
}

describe('producer state across restarts (file)', () => {
  let env: StorageEnv;
  before(() => {
    env = makeEnv('file');
  });
  after(() => env.cleanup());

  it('keeps duplicates and sequences after a clean restart, from the snapshot', async () => {
    let storage = await env.open();
    storage.createTopic('clean', 1, { 'internal.segment.bytes': '600' });
    let log = storage.partition('clean', 0)!;
    for (let seq = 0; seq < 20; seq++) produce(log, seq);
    await storage.close();
    assert.ok(filesIn(partitionDir(env, 'clean'), '.snapshot').length > 1);
    storage = await env.open();
    log = storage.partition('clean', 0)!;
    assert.equal(produce(log, 19).duplicate, true);
    assert.equal(produce(log, 17).baseOffset, 17n);
    assert.equal(errorCodeOf(() => produce(log, 21)), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert.equal(produce(log, 20).baseOffset, 20n);
    await storage.close();
  });

  it('rebuilds producer state from the log when snapshots are missing or the shutdown was unclean', async () => {
    let storage = await env.open();
    storage.createTopic('unclean', 1, { 'internal.segment.bytes': '600' });
    let log = storage.partition('unclean', 0)!;
    for (let seq = 0; seq < 20; seq++) produce(log, seq);
    await storage.close();
    const dir = partitionDir(env, 'unclean');
    for (const name of filesIn(dir, '.snapshot')) fs.unlinkSync(join(dir, name));
    fs.unlinkSync(join(env.dir, CLEAN_SHUTDOWN_MARKER));
    storage = await env.open();
    log = storage.partition('unclean', 0)!;
    assert.equal(produce(log, 18).duplicate, true);
    assert.equal(produce(log, 18).baseOffset, 18n);
    assert.equal(errorCodeOf(() => produce(log, 0, 1, 0)), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert.equal(produce(log, 20).baseOffset, 20n);
    await storage.close();
  });

  it('forgets producers idle longer than producer.id.expiration.ms', async () => {
    const storage = await env.open({ producerIdExpirationMs: 1000 });
    storage.createTopic('expiry', 1);
    const log = storage.partition('expiry', 0)!;
    produce(log, 0, 2);
    storage.enforceRetention(NOW + 2000);
    // Forgotten: any sequence is accepted again.
    assert.equal(produce(log, 9).baseOffset, 2n);
    await storage.close();
  });
});
