/**
 * The file engine under disk faults, injected through its FileSystem: every fault ends in a
 * clear error, a log line and a counter, loses nothing that was acknowledged, and heals by
 * itself.
 *
 * - A write that fails (disk full, I/O error) refuses its append with KAFKA_STORAGE_ERROR at
 *   once and undoes what it wrote; one log line names the directory and the errno, repeated
 *   at most every 10 s; appends resume by themselves once the disk takes writes again.
 * - A failed fsync fails the appends waiting on that partition's files, never another
 *   partition's; the partition goes offline (a later "successful" fsync proves nothing), cuts
 *   its logs back to what an earlier fsync covered, recovers as after a crash, and serves
 *   again.
 * - The catalog is never ahead of what it could write.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '../../src/protocol/errors.js';
import { StorageError, type PartitionLog, type Storage } from '../../src/storage/index.js';
import { createLogger, type Logger } from '../../src/util/log.js';
import { FaultyFileSystem } from '../support/storage/faulty-fs.js';
import { batch, errorCodeOf, makeEnv, NOW, partitionDir, readAll, type StorageEnv } from '../support/storage/helpers.js';

const TIMEOUT = { timeout: 30_000 };

/** A logger that keeps its lines. */
function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger('storage', 'info', (line) => lines.push(line)), lines };
}

const isStorageError = (err: unknown): boolean => err instanceof StorageError && err.errorCode === ErrorCode.KAFKA_STORAGE_ERROR;

/** Waits (real time; recovery runs on timers) until `done()`, at most `ms`. */
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    assert.ok(Date.now() < end, 'condition not reached in time');
    await sleep(10);
  }
}

function serving(log: PartitionLog): boolean {
  try {
    log.read(log.logStartOffset, 1, { minOneBatch: true });
    return true;
  } catch {
    return false;
  }
}

describe('disk faults (file engine)', () => {
  let env: StorageEnv;
  let faults: FaultyFileSystem;
  let captured: { log: Logger; lines: string[] };
  let clockMs: number;
  let storage: Storage;

  beforeEach(async () => {
    env = makeEnv('file');
    faults = new FaultyFileSystem();
    captured = capturingLogger();
    clockMs = NOW;
    storage = await env.open({ fileSystem: faults, log: captured.log, clock: () => clockMs });
    storage.createTopic('t', 2);
  });
  afterEach(async () => {
    faults.clear();
    await env.cleanup();
  });

  it('disk full: the append fails at once with KAFKA_STORAGE_ERROR, its partial write undone; one log line per directory and errno every 10 s; appends resume by themselves', TIMEOUT, async () => {
    const log = storage.partition('t', 0)!;
    await log.append(batch({ value: 'before' }), { nowMs: NOW }).durable;
    const file = join(partitionDir(env, 't'), '00000000000000000000.log');
    const sizeBefore = statSync(file).size;
    // A short write first (some bytes land), then the disk is full.
    const short = faults.inject({ op: 'write', path: 't-0', shortTo: 10, times: 1 });
    const full = faults.inject({ op: 'write', path: 't-0', errno: 'ENOSPC' });
    assert.throws(() => log.append(batch({ value: 'lost' }), { nowMs: NOW }), (err: unknown) => isStorageError(err) && /ENOSPC/.test((err as Error).message));
    assert.equal(short.hits, 1);
    assert.equal(statSync(file).size, sizeBefore, 'the bytes the short write put down are gone');
    assert.equal(log.logEndOffset, 1n);
    assert.throws(() => log.append(batch(), { nowMs: NOW }), isStorageError);
    const lines = captured.lines.filter((l) => /cannot write to/.test(l));
    assert.equal(lines.length, 1, 'one line for both failures');
    assert.match(lines[0]!, new RegExp(`level=error .*cannot write to ${partitionDir(env, 't').replace(/[/\\]/g, '.')}: ENOSPC`));
    assert.equal(storage.stats.writeErrors, 2);
    // Reads and the other partition go on.
    assert.deepEqual(readAll(log).map((r) => r.value), ['before']);
    await storage.partition('t', 1)!.append(batch(), { nowMs: NOW }).durable;
    clockMs += 10_000;
    assert.throws(() => log.append(batch(), { nowMs: NOW }), isStorageError);
    const later = captured.lines.filter((l) => /cannot write to/.test(l));
    assert.equal(later.length, 2, 'a new line after 10 s');
    assert.match(later[1]!, /failuresSinceLastLine=1/);
    // Space is back: the next append works, at the next offset, and survives a restart.
    full.remove();
    await log.append(batch({ value: 'after' }), { nowMs: NOW }).durable;
    assert.deepEqual(readAll(log).map((r) => `${r.offset}:${r.value}`), ['0:before', '1:after']);
    await storage.close();
    const reopened = await env.open();
    assert.deepEqual(readAll(reopened.partition('t', 0)!).map((r) => `${r.offset}:${r.value}`), ['0:before', '1:after']);
  });

  it('a failed fsync fails the waiting appends of that partition only; the partition goes offline, recovers from what was fsynced and serves again', TIMEOUT, async () => {
    const log = storage.partition('t', 0)!;
    const other = storage.partition('t', 1)!;
    await log.append(batch({ value: 'durable' }), { nowMs: NOW }).durable;
    faults.inject({ op: 'fdatasync', path: 't-0', errno: 'EIO', times: 1 });
    const lost = log.append(batch({ value: 'never acknowledged' }), { nowMs: NOW }).durable;
    const fine = other.append(batch({ value: 'other partition' }), { nowMs: NOW }).durable;
    await assert.rejects(lost, isStorageError);
    // Offline at once: nothing may be appended on top, nothing read from it, until recovered
    // (checked before anything else is awaited: the recovery starts on the next timer tick).
    assert.equal(errorCodeOf(() => log.append(batch(), { nowMs: NOW })), ErrorCode.KAFKA_STORAGE_ERROR);
    await fine;
    assert.match(captured.lines.join(''), /partition t-0 is offline: fsync of .*00000000000000000000\.log failed; recovering/);
    await until(() => serving(log));
    assert.match(captured.lines.join(''), /partition t-0 recovered and serving again" .*logEndOffset=1 logEndOffsetBefore=2/);
    assert.deepEqual(readAll(log).map((r) => r.value), ['durable'], 'what no fsync covered is gone, what was acknowledged is there');
    await log.append(batch({ value: 'again' }), { nowMs: NOW }).durable;
    assert.deepEqual(readAll(log).map((r) => `${r.offset}:${r.value}`), ['0:durable', '1:again']);
    assert.deepEqual(readAll(other).map((r) => r.value), ['other partition']);
    const { fsyncErrors, partitionsTakenOffline, partitionRecoveries } = storage.stats;
    assert.deepEqual({ fsyncErrors, partitionsTakenOffline, partitionRecoveries }, { fsyncErrors: 1, partitionsTakenOffline: 1, partitionRecoveries: 1 });
    await storage.close();
    const reopened = await env.open();
    assert.deepEqual(readAll(reopened.partition('t', 0)!).map((r) => `${r.offset}:${r.value}`), ['0:durable', '1:again']);
  });

  it('after a failed fsync a later successful one acknowledges nothing written to that file (the page cache may have dropped it)', TIMEOUT, async () => {
    const log = storage.partition('t', 0)!;
    // Both fsyncs are held: the second append gets a round of its own while the first is in flight.
    const failing = faults.inject({ op: 'fdatasync', path: 't-0', hold: true, errno: 'EIO', times: 1 });
    const succeeding = faults.inject({ op: 'fdatasync', path: 't-0', hold: true, times: 1 });
    const first = log.append(batch({ value: 'a' }), { nowMs: NOW }).durable;
    await failing.hit();
    const second = log.append(batch({ value: 'b' }), { nowMs: NOW }).durable;
    await succeeding.hit();
    assert.deepEqual([failing.hits, succeeding.hits], [1, 1], 'two fsyncs in flight');
    failing.release(); // the first fsync fails...
    await assert.rejects(first, isStorageError);
    succeeding.release(); // ...then the second, issued before the failure was known, returns success
    await assert.rejects(second, isStorageError, 'its fsync returned success, but it covered a file whose earlier fsync failed');
    await until(() => serving(log));
    assert.deepEqual(readAll(log), []);
  });

  it('a failed write whose undo fails too takes the partition offline instead of appending after the torn bytes', TIMEOUT, async () => {
    const log = storage.partition('t', 0)!;
    await log.append(batch({ value: 'kept' }), { nowMs: NOW }).durable;
    faults.inject({ op: 'write', path: 't-0', shortTo: 7, times: 1 });
    faults.inject({ op: 'write', path: 't-0', errno: 'EIO', times: 1 });
    const undo = faults.inject({ op: 'ftruncate', path: 't-0', errno: 'EIO', times: 1 });
    assert.throws(() => log.append(batch({ value: 'torn' }), { nowMs: NOW }), isStorageError);
    assert.equal(undo.hits, 1);
    assert.equal(errorCodeOf(() => log.append(batch(), { nowMs: NOW })), ErrorCode.KAFKA_STORAGE_ERROR, 'offline');
    await until(() => serving(log));
    await log.append(batch({ value: 'next' }), { nowMs: NOW }).durable;
    assert.deepEqual(readAll(log).map((r) => `${r.offset}:${r.value}`), ['0:kept', '1:next']);
  });

  it('a recovery the disk refuses is retried until it succeeds', TIMEOUT, async () => {
    const log = storage.partition('t', 0)!;
    await log.append(batch({ value: 'durable' }), { nowMs: NOW }).durable;
    faults.inject({ op: 'fdatasync', path: 't-0', errno: 'EIO', times: 1 });
    // The recovery's own cut-back fsync fails once.
    const refused = faults.inject({ op: 'fsync', path: '00000000000000000000.log', errno: 'EIO', times: 1 });
    await assert.rejects(log.append(batch(), { nowMs: NOW }).durable, isStorageError);
    await until(() => serving(log));
    assert.equal(refused.hits, 1);
    assert.match(captured.lines.join(''), /recovery of t-0 failed; retrying in 1000 ms/);
    assert.deepEqual(readAll(log).map((r) => r.value), ['durable']);
  });

  it('a roll the full disk refuses half way leaves the old segment active; the next append rolls', TIMEOUT, async () => {
    storage.createTopic('small', 1, { 'internal.segment.bytes': '500' });
    const log = storage.partition('small', 0)!;
    await log.append(batch({ count: 5, value: 'x'.repeat(60) }), { nowMs: NOW }).durable;
    const refused = faults.inject({ op: 'write', path: '.snapshot', errno: 'ENOSPC', times: 1 });
    assert.equal(errorCodeOf(() => log.append(batch({ count: 5, value: 'y'.repeat(60) }), { nowMs: NOW })), ErrorCode.KAFKA_STORAGE_ERROR);
    assert.equal(refused.hits, 1);
    assert.equal(log.segments().length, 1, 'no half-made segment');
    await log.append(batch({ count: 5, value: 'z'.repeat(60) }), { nowMs: NOW }).durable;
    assert.equal(log.segments().length, 2);
    assert.deepEqual(readAll(log).map((r) => r.value[0]), ['x', 'x', 'x', 'x', 'x', 'z', 'z', 'z', 'z', 'z']);
  });

  it('deleting a topic frees its space even when the full disk refuses the catalog\'s rewrite', TIMEOUT, async () => {
    storage.createTopic('big', 1);
    await storage.partition('big', 0)!.append(batch({ count: 10 }), { nowMs: NOW }).durable;
    const full = faults.inject({ op: 'write', path: 'catalog.json', errno: 'ENOSPC', times: 1 });
    storage.deleteTopic('big');
    assert.equal(full.hits, 1, 'the first rewrite was refused');
    assert.equal(storage.topic('big'), undefined);
    assert.equal(faults.calls.some((c) => c.op === 'rename' && /big-0$/.test(c.path)), true, 'its files were removed first');
    await storage.close();
    const reopened = await env.open();
    assert.equal(reopened.topic('big'), undefined, 'the deletion was recorded');
  });

  it('shutdown on a full disk closes every file and releases the directory, reports that it was not clean, and the next start recovers', TIMEOUT, async () => {
    const log = storage.partition('t', 0)!;
    await log.append(batch({ value: 'kept' }), { nowMs: NOW }).durable;
    faults.inject({ op: 'write', path: '.snapshot', errno: 'ENOSPC' });
    await assert.rejects(storage.close(), isStorageError);
    assert.match(captured.lines.join(''), /storage closed without a clean-shutdown marker: the next start recovers the logs/);
    faults.clear();
    const reopened = await env.open({ log: captured.log });
    assert.match(captured.lines.join(''), /no clean shutdown marker: recovering logs/);
    assert.deepEqual(readAll(reopened.partition('t', 0)!).map((r) => r.value), ['kept']);
  });

  it('the catalog never runs ahead of its file: a topic whose creation could not be written does not exist', TIMEOUT, async () => {
    const refused = faults.inject({ op: 'write', path: 'catalog.json', errno: 'ENOSPC', times: 1 });
    assert.equal(errorCodeOf(() => storage.createTopic('new', 1)), ErrorCode.KAFKA_STORAGE_ERROR);
    assert.equal(refused.hits, 1);
    assert.equal(storage.topic('new'), undefined);
    storage.createTopic('new', 1);
    assert.ok(storage.topic('new'));
  });
});
