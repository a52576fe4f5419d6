import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FlushScheduler } from '../../src/storage/flush-scheduler.js';
import { openFileStorage, StorageError } from '../../src/storage/index.js';
import { batch, makeEnv, NOW, readAll, type StorageEnv } from '../support/storage/helpers.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('flush scheduler', () => {
  it('rejects the appends waiting on a file whose fsync failed with KAFKA_STORAGE_ERROR, not those of other files in the round', async () => {
    let fail = true;
    const closed: string[] = [];
    const target = (name: string) => ({
      sync: () => (fail && name === 'bad' ? Promise.reject(new Error('EIO')) : Promise.resolve()),
      close: () => void closed.push(name),
    });
    const errors: Error[] = [];
    const scheduler = new FlushScheduler('always', (err) => errors.push(err));
    const good = target('good');
    const bad = target('bad');
    const first = scheduler.written(good);
    const second = scheduler.written(bad);
    scheduler.written(bad); // dropped: must not become an unhandled rejection
    await first; // the good file's fsync succeeded: its appends are durable
    await assert.rejects(second, (err: unknown) => err instanceof StorageError && err.errorCode === ErrorCode.KAFKA_STORAGE_ERROR);
    assert.equal(errors.length, 1);
    fail = false;
    // This plain target keeps no failure of its own (the file engine's files do: see below).
    await scheduler.written(bad);
    scheduler.release(bad);
    assert.deepEqual(closed, ['bad']);
    assert.deepEqual(scheduler.stats, { fsyncs: 3, flushRounds: 2, fsyncErrors: 1 });
  });

  it('overlaps two rounds at most, and settles them in the order they started', async () => {
    // Each sync() hands back a resolver, so the test decides when every fsync ends.
    const pending: { name: string; finish: () => void }[] = [];
    const target = (name: string) => ({
      sync: () => new Promise<void>((resolve) => void pending.push({ name, finish: resolve })),
      close: () => undefined,
    });
    const scheduler = new FlushScheduler('always');
    const settled: string[] = [];
    const a = target('a');
    void scheduler.written(a).then(() => settled.push('first'));
    await tick();
    assert.deepEqual(pending.map((p) => p.name), ['a'], 'the first round is in flight');
    void scheduler.written(a).then(() => settled.push('second'));
    await tick();
    assert.deepEqual(pending.map((p) => p.name), ['a', 'a'], 'a second round starts without waiting for the first');
    void scheduler.written(a).then(() => settled.push('third'));
    await tick();
    assert.equal(pending.length, 2, 'no third round while two are in flight');
    pending[1]!.finish(); // the second fsync ends first
    await tick();
    await tick(); // the freed slot starts the next round on the turn after
    assert.deepEqual(settled, [], 'the second round waits for the first to settle');
    assert.equal(pending.length, 3, 'its slot goes to the third round');
    pending[0]!.finish();
    await tick();
    assert.deepEqual(settled, ['first', 'second']);
    pending[2]!.finish();
    await tick();
    assert.deepEqual(settled, ['first', 'second', 'third']);
    assert.deepEqual(scheduler.stats, { fsyncs: 3, flushRounds: 3, fsyncErrors: 0 });
  });
});

describe('durability (file)', () => {
  let env: StorageEnv;
  beforeEach(() => {
    env = makeEnv('file');
  });
  afterEach(() => env.cleanup());

  it('group-commits: 200 concurrent appends over 4 partitions share a few fsyncs', async () => {
    const storage = await env.open();
    storage.createTopic('gc', 4);
    await storage.flush();
    const before = storage.stats;
    const results = Array.from({ length: 200 }, (_, i) => storage.partition('gc', i % 4)!.append(batch(), { nowMs: NOW }));
    await Promise.all(results.map((r) => r.durable));
    const fsyncs = storage.stats.fsyncs - before.fsyncs;
    const rounds = storage.stats.flushRounds - before.flushRounds;
    assert.ok(fsyncs >= 4 && fsyncs <= 8, `${fsyncs} fsyncs for 200 appends`);
    assert.equal(rounds, 1);
  });

  it('makes an append that arrives during an fsync wait for the next round', async () => {
    const storage = await env.open();
    storage.createTopic('rounds', 1);
    const log = storage.partition('rounds', 0)!;
    await storage.flush();
    const rounds = storage.stats.flushRounds;
    const first = log.append(batch(), { nowMs: NOW });
    await tick(); // the round covering `first` is now in flight
    const second = log.append(batch(), { nowMs: NOW });
    let secondDone = false;
    void second.durable.then(() => {
      secondDone = true;
    });
    await first.durable;
    assert.equal(secondDone, false);
    await second.durable;
    assert.equal(storage.stats.flushRounds - rounds, 2);
  });

  it('with flush "never", acknowledges at once and fsyncs on flush()', async () => {
    const storage = await env.open({ flush: 'never' });
    storage.createTopic('lazy', 1);
    await storage.flush();
    const fsyncs = storage.stats.fsyncs;
    const r = storage.partition('lazy', 0)!.append(batch(), { nowMs: NOW });
    await r.durable;
    await tick();
    await tick();
    assert.equal(storage.stats.fsyncs, fsyncs);
    await storage.flush();
    assert.ok(storage.stats.fsyncs > fsyncs);
  });

  it('with flush { intervalMs }, fsyncs the dirty files every intervalMs, not before, and nothing when none is dirty', async (t) => {
    // node:test's mock timers stand in for the flush scheduler's setInterval: time moves only on
    // tick(), so the test sees what each interval does, not whether a real timer happened to
    // fire within some wall-clock window. setImmediate (which starts a round) and the fsyncs
    // themselves stay real.
    t.mock.timers.enable({ apis: ['setInterval'] });
    const storage = await env.open({ flush: { intervalMs: 10 } });
    try {
      storage.createTopic('periodic', 1);
      await storage.flush();
      const fsyncs = storage.stats.fsyncs;
      await storage.partition('periodic', 0)!.append(batch(), { nowMs: NOW }).durable; // at once under this policy
      t.mock.timers.tick(9);
      await tick();
      await tick();
      assert.equal(storage.stats.fsyncs, fsyncs, 'no fsync before the interval has passed');
      t.mock.timers.tick(1);
      await tick(); // the round the interval requested starts on this turn, counting its fsyncs
      assert.equal(storage.stats.fsyncs, fsyncs + 1, 'the interval fsynced the one dirty file, the segment log');
      await storage.flush(); // that round has finished
      const settled = storage.stats;
      t.mock.timers.tick(10);
      await tick();
      await tick();
      assert.deepEqual(storage.stats, settled, 'nothing written since: the next interval starts no round');
    } finally {
      await storage.close(); // clears the interval while it is still the mock's
    }
  });

  it('keeps every acknowledged append when the process is killed with SIGKILL', async () => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('../support/storage/crash-child.js', import.meta.url)), env.dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.split('\n').length > 400) resolve();
      });
    });
    child.kill('SIGKILL');
    await exited;
    const acks = output.split('\n').slice(0, -1).map((line) => {
      const [, offset, value] = line.split(' ');
      return { offset: BigInt(offset!), value: value! };
    });
    assert.ok(acks.length >= 400);

    const storage = await openFileStorage(env.dir, { clock: () => Date.now() });
    const log = storage.partition('crash', 0)!;
    assert.ok(log.segments().length > 2, 'the crash test covers rolled segments');
    const stored = new Map(readAll(log).map((r) => [r.offset, r.value]));
    for (const { offset, value } of acks) {
      assert.equal(stored.get(offset), value, `acknowledged offset ${offset}`);
      assert.equal(stored.get(offset + 1n), value);
    }
    // Offsets are dense from 0 and appends continue after the recovered end.
    assert.equal(BigInt(stored.size), log.logEndOffset);
    const next = log.append(batch({ count: 2, value: 'after-crash' }), { nowMs: Date.now() });
    assert.equal(next.baseOffset, log.logEndOffset - 2n);
    await storage.close();
  });
});
