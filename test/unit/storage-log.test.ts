import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { readBatchHeader, updateBatchCrc } from '../../src/protocol/records/index.js';
import type { PartitionLog, Storage } from '../../src/storage/index.js';
import { batch, ENGINES, errorCodeOf, makeEnv, NOW, readAll, recordsOf, type StorageEnv } from '../support/storage/helpers.js';

for (const kind of ENGINES) {
  describe(`partition log (${kind})`, () => {
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

    it('assigns consecutive offsets and reads them back', () => {
      const log = newLog('offsets');
      assert.equal(log.logEndOffset, 0n);
      let expected = 0n;
      for (let i = 0; i < 50; i++) {
        const count = (i % 5) + 1;
        const r = log.append(batch({ count, value: (j) => `${i}.${j}` }), { nowMs: NOW });
        assert.equal(r.baseOffset, expected);
        assert.equal(r.lastOffset, expected + BigInt(count - 1));
        assert.equal(r.logAppendTimeMs, -1n);
        assert.equal(r.duplicate, false);
        expected += BigInt(count);
      }
      assert.equal(log.logEndOffset, expected);
      assert.equal(log.highWatermark, expected);
      const all = readAll(log);
      assert.equal(all.length, Number(expected));
      all.forEach((r, i) => assert.equal(r.offset, BigInt(i)));
      assert.equal(all[0]!.value, '0.0');
      assert.equal(all.at(-1)!.value, '49.4');
    });

    it('stores the batch with its offset and leader epoch 0, bytes otherwise as produced', () => {
      const log = newLog('stamped');
      log.append(batch(), { nowMs: NOW });
      const produced = batch({ count: 3 });
      const copy = Buffer.from(produced);
      log.append(produced, { nowMs: NOW });
      const stored = log.read(1n, 1 << 20, { minOneBatch: true }).records[0]!;
      const h = readBatchHeader(stored);
      assert.equal(h.baseOffset, 1n);
      assert.equal(h.partitionLeaderEpoch, 0);
      assert.deepEqual(stored.subarray(17), copy.subarray(17), 'CRC and everything after it unchanged');
    });

    it('finds batches in the middle of a large log through the index', () => {
      const log = newLog('large', { 'index.interval.bytes': '256' });
      for (let i = 0; i < 2000; i++) log.append(batch({ count: 2, value: `value-${i}` }), { nowMs: NOW });
      for (const offset of [0n, 1n, 1001n, 2222n, 3998n, 3999n]) {
        const result = log.read(offset, 200, { minOneBatch: true });
        const records = recordsOf(result.records);
        assert.ok(records.length > 0);
        // The first batch returned holds the fetch offset (it may start one offset before).
        assert.ok(records[0]!.offset <= offset && offset <= records[0]!.offset + 1n, `fetch ${offset} got ${records[0]!.offset}`);
        assert.ok(result.bytes <= 200);
        assert.equal(result.highWatermark, 4000n);
      }
    });

    it('returns whole batches within maxBytes, at least one with minOneBatch', () => {
      const log = newLog('maxbytes');
      for (let i = 0; i < 10; i++) log.append(batch({ value: 'x'.repeat(100) }), { nowMs: NOW });
      const size = log.read(0n, 1 << 20, { minOneBatch: true }).bytes / 10;
      assert.equal(recordsOf(log.read(0n, size * 3 + 5, { minOneBatch: false }).records).length, 3);
      assert.equal(log.read(0n, 10, { minOneBatch: false }).bytes, 0);
      assert.equal(recordsOf(log.read(0n, 10, { minOneBatch: true }).records).length, 1);
      assert.equal(log.read(4n, 0, { minOneBatch: true }).bytes, size);
    });

    it('answers OFFSET_OUT_OF_RANGE outside [log start, log end] and nothing at the log end', () => {
      const log = newLog('range');
      log.append(batch({ count: 3 }), { nowMs: NOW });
      assert.equal(errorCodeOf(() => log.read(4n, 100, { minOneBatch: true })), ErrorCode.OFFSET_OUT_OF_RANGE);
      assert.equal(errorCodeOf(() => log.read(-1n, 100, { minOneBatch: true })), ErrorCode.OFFSET_OUT_OF_RANGE);
      const atEnd = log.read(3n, 100, { minOneBatch: true });
      assert.deepEqual(atEnd.records, []);
      assert.equal(atEnd.bytes, 0);
      assert.equal(atEnd.logStartOffset, 0n);
      assert.equal(atEnd.lastStableOffset, 3n);
    });

    describe('rejects what Kafka rejects, appending nothing', () => {
      let log: PartitionLog;
      before(() => {
        log = newLog('rejects', { 'max.message.bytes': '2000' });
        log.append(batch(), { nowMs: NOW });
      });
      const cases: [string, () => Buffer, number][] = [
        ['an empty blob', () => Buffer.alloc(0), ErrorCode.INVALID_RECORD],
        ['a partial batch only', () => batch().subarray(0, 40), ErrorCode.INVALID_RECORD],
        ['two batches', () => Buffer.concat([batch(), batch()]), ErrorCode.INVALID_RECORD],
        ['magic v1', () => { const b = batch(); b.writeInt8(1, 16); return b; }, ErrorCode.INVALID_RECORD],
        ['an impossible magic', () => { const b = batch(); b.writeInt8(7, 16); return b; }, ErrorCode.CORRUPT_MESSAGE],
        ['a length below any record', () => { const b = batch(); b.writeInt32BE(5, 8); return b; }, ErrorCode.CORRUPT_MESSAGE],
        ['a non-zero base offset', () => { const b = batch(); b.writeBigInt64BE(7n, 0); return b; }, ErrorCode.INVALID_RECORD],
        ['a bad CRC', () => { const b = batch(); b[b.length - 1] ^= 0xff; return b; }, ErrorCode.CORRUPT_MESSAGE],
        ['a batch over max.message.bytes', () => batch({ value: 'x'.repeat(3000) }), ErrorCode.MESSAGE_TOO_LARGE],
        ['a record count that disagrees with lastOffsetDelta', () => {
          const b = batch({ count: 2 });
          b.writeInt32BE(3, 57);
          updateBatchCrc(b);
          return b;
        }, ErrorCode.INVALID_RECORD],
        ['a control batch from a client', () => {
          const b = batch();
          b.writeInt16BE(b.readInt16BE(21) | 0x20, 21);
          updateBatchCrc(b);
          return b;
        }, ErrorCode.INVALID_RECORD],
        ['an idempotent batch without a sequence', () => batch({ producerId: 5n, epoch: 0, sequence: -1 }), ErrorCode.INVALID_RECORD],
      ];
      for (const [what, make, code] of cases) {
        it(what, () => {
          assert.equal(errorCodeOf(() => log.append(make(), { nowMs: NOW })), code);
          assert.equal(log.logEndOffset, 1n);
        });
      }
    });

    it('ignores a partial trailing batch (Kafka trims invalid bytes)', () => {
      const log = newLog('trailing');
      const r = log.append(Buffer.concat([batch({ count: 2 }), batch().subarray(0, 30)]), { nowMs: NOW });
      assert.equal(r.lastOffset, 1n);
      assert.equal(readAll(log).length, 2);
      log.append(batch(), { nowMs: NOW });
      assert.equal(readAll(log).length, 3);
    });

    it('refuses a batch larger than segment.bytes with RECORD_LIST_TOO_LARGE', () => {
      const log = newLog('too-big-for-segment', { 'internal.segment.bytes': '500' });
      assert.equal(errorCodeOf(() => log.append(batch({ value: 'x'.repeat(600) }), { nowMs: NOW })), ErrorCode.RECORD_LIST_TOO_LARGE);
    });

    it('lets the coordinator append without a client\'s checks on base offset', () => {
      const log = newLog('internal-writes');
      const b = batch();
      b.writeBigInt64BE(42n, 0);
      const r = log.append(b, { nowMs: NOW, origin: 'coordinator' });
      assert.equal(r.baseOffset, 0n);
    });

    it('resolves durable promises and reports the log start offset', async () => {
      const log = newLog('durable');
      const results = Array.from({ length: 5 }, () => log.append(batch(), { nowMs: NOW }));
      await Promise.all(results.map((r) => r.durable));
      assert.ok(results.every((r) => r.logStartOffset === 0n));
    });

    it('fails with UNKNOWN_TOPIC_OR_PARTITION once the topic is deleted', () => {
      const log = newLog('gone');
      storage.deleteTopic('gone');
      assert.equal(errorCodeOf(() => log.append(batch(), { nowMs: NOW })), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      assert.equal(storage.partition('gone', 0), undefined);
    });
  });
}
