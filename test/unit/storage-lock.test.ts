/**
 * The data directory's lock (src/storage/dir-lock.ts): one broker per directory, in this
 * process and across processes, even when they start at the same moment; a lock left by a
 * dead process is taken over (by exactly one of the processes that find it); and a broker
 * whose start fails after opening its storage (port taken) releases it, so the program can
 * start again in the same process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openFileStorage } from '../../src/storage/index.js';
import { LOCK_FILE } from '../../src/storage/file-storage.js';
import { Broker } from '../../src/broker/broker.js';
import { silentLogger } from '../../src/util/log.js';
import { tempDir } from '../support/brook.js';

const CHILD = fileURLToPath(new URL('../support/storage/lock-child.js', import.meta.url));

/** A pid no process has: one that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

interface Contender {
  readonly pid: number;
  /** "won" or "lost <message>". */
  readonly outcome: Promise<string>;
  /** Ends a winner's stdin: it closes its storage and exits. */
  finish(): Promise<void>;
  /** SIGKILL unless it has exited (a failed test must not leave winners waiting). */
  kill(): void;
}

function contend(dataDir: string, startAt: number): Contender {
  const child = spawn(process.execPath, [CHILD, dataDir, String(startAt)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let running = true;
  const exited = once(child, 'exit').then(() => { running = false; });
  const outcome = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    void exited.then(() => reject(new Error('the child exited without a word')));
  });
  return {
    pid: child.pid!,
    outcome,
    finish: async () => {
      child.stdin.end();
      await exited;
    },
    kill: () => {
      if (running) child.kill('SIGKILL');
    },
  };
}

test('two opens of one data directory racing in one process: one wins, the other is refused; once closed it opens again', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  const results = await Promise.allSettled([openFileStorage(dir.path), openFileStorage(dir.path)]);
  const won = results.filter((r) => r.status === 'fulfilled');
  const lost = results.filter((r) => r.status === 'rejected');
  assert.equal(won.length, 1);
  assert.match(String(lost[0]!.reason), /already open in this process/);
  assert.equal(readFileSync(join(dir.path, LOCK_FILE), 'utf8').trim(), String(process.pid));
  await won[0]!.value.close();
  assert.equal(existsSync(join(dir.path, LOCK_FILE)), false, 'released on close');
  const again = await openFileStorage(dir.path);
  await again.close();
});

test('processes opening one data directory at the same moment: exactly one wins, with and without a stale lock to take over', { timeout: 120_000 }, async (t) => {
  const processes = 4;
  for (let round = 0; round < 8; round++) {
    const dir = tempDir();
    t.after(() => dir.remove());
    // Every other round they all find the lock of a dead process and race to take it over.
    const stale = round % 2 === 1;
    if (stale) writeFileSync(join(dir.path, LOCK_FILE), `${deadPid()}\n`);
    // Started together (node start-up takes ~100 ms; they spin until then).
    const startAt = Date.now() + 1_500;
    const contenders = Array.from({ length: processes }, () => contend(dir.path, startAt));
    t.after(() => contenders.forEach((c) => c.kill()));
    const outcomes = await Promise.all(contenders.map((c) => c.outcome));
    const winners = contenders.filter((_, i) => outcomes[i] === 'won');
    assert.equal(winners.length, 1, `round ${round} (${stale ? 'stale lock' : 'no lock'}): ${JSON.stringify(outcomes)}`);
    for (const o of outcomes.filter((x) => x !== 'won')) assert.match(o, new RegExp(`in use by process ${winners[0]!.pid}|being taken over`));
    assert.equal(readFileSync(join(dir.path, LOCK_FILE), 'utf8').trim(), String(winners[0]!.pid));
    await Promise.all(contenders.map((c) => c.finish()));
    assert.deepEqual(readdirSync(dir.path).filter((name) => name.startsWith(LOCK_FILE)), [], 'no lock, marker or temporary file left');
  }
});

test('a lock held by a live process is refused, naming it; once it is released the directory opens', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  const holder = contend(dir.path, 0);
  t.after(() => holder.kill());
  assert.equal(await holder.outcome, 'won');
  await assert.rejects(openFileStorage(dir.path), new RegExp(`in use by process ${holder.pid}`));
  await holder.finish();
  const storage = await openFileStorage(dir.path);
  await storage.close();
});

test('a stale lock is taken over: one left by a dead process, one naming this process though it is not open here (a reused pid)', { timeout: 30_000 }, async (t) => {
  for (const pid of [deadPid(), process.pid]) {
    const dir = tempDir();
    t.after(() => dir.remove());
    writeFileSync(join(dir.path, LOCK_FILE), `${pid}\n`);
    const storage = await openFileStorage(dir.path);
    assert.equal(readFileSync(join(dir.path, LOCK_FILE), 'utf8').trim(), String(process.pid));
    await storage.close();
  }
});

test('a takeover marker left by a process that died in the middle of a takeover is cleared once old', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  const lock = join(dir.path, LOCK_FILE);
  writeFileSync(lock, `${deadPid()}\n`);
  const ino = (await import('node:fs')).statSync(lock).ino;
  const marker = join(dir.path, `${LOCK_FILE}.takeover.${ino}`);
  writeFileSync(marker, `${deadPid()}\n`);
  const old = (Date.now() - 60_000) / 1000;
  utimesSync(marker, old, old);
  const storage = await openFileStorage(dir.path);
  assert.equal(existsSync(marker), false);
  await storage.close();
});

test('Broker.start on a taken port rejects and leaves nothing behind; a second start with the same dataDir then succeeds in this process', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  // Timers and listening sockets that keep the process alive: none may be left by the failed start.
  const alive = (): string => process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'TCPServerWrap').sort().join();
  const before = alive();
  // The group coordinator's timers are unref'd (not in the list above): a clock that counts
  // its readings shows whether one still fires (the offsets retention check, every 20 ms).
  let readings = 0;
  const clock = { nowMs: (): number => { readings++; return Date.now(); } };
  await assert.rejects(Broker.start({ host: '127.0.0.1', port, dataDir: dir.path, log: silentLogger, clock, offsetsRetentionCheckIntervalMs: 20 }), /EADDRINUSE/);
  assert.equal(existsSync(join(dir.path, LOCK_FILE)), false, 'the data directory is unlocked');
  const readingsAfterStart = readings;
  // A handle's close completes in a later turn of the event loop.
  for (let i = 0; i < 100 && alive() !== before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(alive(), before);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(readings, readingsAfterStart, 'no timer of the failed start fires');
  const broker = await Broker.start({ host: '127.0.0.1', port: 0, dataDir: dir.path, log: silentLogger });
  await broker.stop();
});
