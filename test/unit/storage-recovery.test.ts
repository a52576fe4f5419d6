import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CLEAN_SHUTDOWN_MARKER, openFileStorage, type PartitionLog, type Storage } from '../../src/storage/index.js';
import { batch, filesIn, makeEnv, NOW, partitionDir, readAll, tempDir, type StorageEnv } from '../support/storage/helpers.js';

const TOPIC = 't';
const SMALL_SEGMENTS = { 'internal.segment.bytes': '2000', 'index.interval.bytes': '200' };

function fill(log: PartitionLog, from: number, n: number): void {
  for (let i = from; i < from + n; i++) log.append(batch({ count: 2, value: `m${i}`, timestamp: NOW + i }), { nowMs: NOW });
}

function values(log: PartitionLog): string[] {
  return readAll(log).map((r) => `${r.offset}:${r.value}`);
}

describe('recovery (file)', () => {
  let env: StorageEnv;
  let copies: string[];
  beforeEach(() => {
    env = makeEnv('file');
    copies = [];
  });
  afterEach(async () => {
    await env.cleanup();
    for (const c of copies) fs.rmSync(c, { recursive: true, force: true });
  });

  /** Writes 100 batches (200 records) over several segments and closes cleanly. */
  async function prepared(): Promise<{ expected: string[]; segments: bigint[] }> {
    const storage = await env.open();
    storage.createTopic(TOPIC, 1, SMALL_SEGMENTS);
    const log = storage.partition(TOPIC, 0)!;
    fill(log, 0, 100);
    const expected = values(log);
    const segments = log.segments().map((s) => s.baseOffset);
    await storage.close();
    return { expected, segments };
  }

  function activeLogPath(segments: bigint[]): string {
    return join(partitionDir(env, TOPIC), `${segments.at(-1)!.toString().padStart(20, '0')}.log`);
  }

  function crashed(): void {
    fs.unlinkSync(join(env.dir, CLEAN_SHUTDOWN_MARKER));
  }

  it('keeps everything across a clean close and reopen, and appends continue', async () => {
    const { expected, segments } = await prepared();
    assert.ok(segments.length >= 4);
    assert.ok(fs.existsSync(join(env.dir, CLEAN_SHUTDOWN_MARKER)));
    const storage = await env.open();
    assert.equal(fs.existsSync(join(env.dir, CLEAN_SHUTDOWN_MARKER)), false, 'the marker is removed at open');
    const log = storage.partition(TOPIC, 0)!;
    assert.deepEqual(log.segments().map((s) => s.baseOffset), segments);
    assert.deepEqual(values(log), expected);
    assert.equal(log.append(batch(), { nowMs: NOW }).baseOffset, 200n);
    assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 50)), { offset: 100n, timestamp: BigInt(NOW + 50) });
  });

  it('writes Kafka\'s index formats: (relative last offset, position) and (timestamp, relative offset)', async () => {
    const { segments } = await prepared();
    const dir = partitionDir(env, TOPIC);
    const stem = join(dir, segments[1]!.toString().padStart(20, '0'));
    const log = fs.readFileSync(`${stem}.log`);
    const index = fs.readFileSync(`${stem}.index`);
    assert.ok(index.length >= 16 && index.length % 8 === 0);
    for (let at = 0; at < index.length; at += 8) {
      const relative = index.readInt32BE(at);
      const position = index.readInt32BE(at + 4);
      const lastOffset = log.readBigInt64BE(position) + BigInt(log.readInt32BE(position + 23));
      assert.equal(lastOffset, segments[1]! + BigInt(relative));
    }
    const timeIndex = fs.readFileSync(`${stem}.timeindex`);
    assert.ok(timeIndex.length >= 24 && timeIndex.length % 12 === 0);
    const last = timeIndex.length - 12;
    // The last entry carries the segment's largest timestamp: batch i has records at NOW + i.
    const lastBatch = segments[2]! / 2n - 1n;
    assert.equal(timeIndex.readBigInt64BE(last), BigInt(NOW) + lastBatch);
    assert.equal(BigInt(timeIndex.readInt32BE(last + 8)), segments[2]! - 1n - segments[1]!);
  });

  for (const clean of [false, true]) {
    it(`truncates a torn tail (half a batch) ${clean ? 'even with a clean marker' : 'after a crash'}`, async () => {
      const { expected, segments } = await prepared();
      const path = activeLogPath(segments);
      const size = fs.statSync(path).size;
      fs.appendFileSync(path, batch({ count: 3, value: 'torn' }).subarray(0, 40));
      if (!clean) crashed();
      const storage = await env.open();
      const log = storage.partition(TOPIC, 0)!;
      assert.equal(fs.statSync(path).size, size);
      assert.equal(log.logEndOffset, 200n);
      assert.deepEqual(values(log), expected);
      assert.equal(log.append(batch({ value: 'after' }), { nowMs: NOW }).baseOffset, 200n);
      assert.equal(readAll(log, 200n)[0]!.value, 'after');
    });
  }

  it('truncates garbage after valid batches', async () => {
    const { expected, segments } = await prepared();
    fs.appendFileSync(activeLogPath(segments), Buffer.from('this is not a record batch, just bytes'.repeat(10)));
    crashed();
    const storage = await env.open();
    assert.deepEqual(values(storage.partition(TOPIC, 0)!), expected);
  });

  it('drops a tail batch whose CRC does not match', async () => {
    const { expected, segments } = await prepared();
    const path = activeLogPath(segments);
    const bytes = fs.readFileSync(path);
    bytes[bytes.length - 3] ^= 0x55;
    fs.writeFileSync(path, bytes);
    crashed();
    const storage = await env.open();
    const log = storage.partition(TOPIC, 0)!;
    assert.equal(log.logEndOffset, 198n);
    assert.deepEqual(values(log), expected.slice(0, 198));
    assert.equal(log.append(batch(), { nowMs: NOW }).baseOffset, 198n);
  });

  it('truncates inside an older segment and drops the later ones when nothing marks them flushed', async () => {
    const { expected, segments } = await prepared();
    fs.unlinkSync(join(env.dir, 'recovery-point-offset-checkpoint'));
    crashed();
    const second = join(partitionDir(env, TOPIC), `${segments[1]!.toString().padStart(20, '0')}.log`);
    const bytes = fs.readFileSync(second);
    bytes[bytes.length - 1] ^= 0x01;
    fs.writeFileSync(second, bytes);
    const storage = await env.open();
    const log = storage.partition(TOPIC, 0)!;
    assert.equal(log.segments().length, 2);
    const lastGood = log.logEndOffset;
    assert.ok(lastGood > segments[1]! && lastGood < segments[2]!);
    assert.deepEqual(values(log), expected.slice(0, Number(lastGood)));
    assert.equal(filesIn(partitionDir(env, TOPIC), '.log').length, 2);
  });

  it('rebuilds missing or corrupt index files', async () => {
    const { expected, segments } = await prepared();
    const dir = partitionDir(env, TOPIC);
    const stored = new Map(filesIn(dir, 'index').map((n) => [n, fs.readFileSync(join(dir, n))]));
    assert.ok([...stored.values()].some((b) => b.length > 0));
    for (const name of filesIn(dir, '.index')) fs.unlinkSync(join(dir, name));
    fs.writeFileSync(join(dir, filesIn(dir, '.timeindex')[1]!), Buffer.from('garbage!!'));
    let storage: Storage = await env.open();
    const log = storage.partition(TOPIC, 0)!;
    assert.deepEqual(values(log), expected);
    const middle = log.read(151n, 1, { minOneBatch: true }).records[0]!;
    assert.equal(middle.readBigInt64BE(0), 150n);
    assert.deepEqual(log.offsetForTimestamp(BigInt(NOW + 77)), { offset: 154n, timestamp: BigInt(NOW + 77) });
    await storage.close();
    // Rebuilt indexes are identical to the ones written the first time.
    for (const [name, bytes] of stored) assert.deepEqual(fs.readFileSync(join(dir, name)), bytes, name);
    storage = await env.open();
    assert.equal(storage.partition(TOPIC, 0)!.segments().length, segments.length);
  });

  it('recovers a live directory copied mid-run, as after kill -9 (stale index files, no marker)', async () => {
    await prepared();
    const storage = await env.open();
    const log = storage.partition(TOPIC, 0)!;
    fill(log, 100, 60);
    const expected = values(log);
    await storage.flush();
    const copy = tempDir('brook-crash-copy-');
    copies.push(copy);
    fs.cpSync(env.dir, copy, { recursive: true });
    const recovered = await openFileStorage(copy, { clock: () => NOW });
    const rlog = recovered.partition(TOPIC, 0)!;
    assert.deepEqual(values(rlog), expected);
    assert.deepEqual(rlog.segments(), log.segments());
    assert.equal(rlog.append(batch(), { nowMs: NOW }).baseOffset, log.logEndOffset);
    await recovered.close();
  });

  it('keeps the log start offset after retention across restarts', async () => {
    let storage = await env.open();
    storage.createTopic('ret', 1, { ...SMALL_SEGMENTS, 'retention.bytes': '3000' });
    fill(storage.partition('ret', 0)!, 0, 100);
    storage.enforceRetention(NOW);
    const start = storage.partition('ret', 0)!.logStartOffset;
    assert.ok(start > 0n);
    await storage.flush();
    await storage.close();
    assert.match(fs.readFileSync(join(env.dir, 'log-start-offset-checkpoint'), 'utf8'), new RegExp(`^ret 0 ${start}$`, 'm'));
    storage = await env.open();
    assert.equal(storage.partition('ret', 0)!.logStartOffset, start);
    assert.equal(readAll(storage.partition('ret', 0)!)[0]!.offset, start);
  });
});
