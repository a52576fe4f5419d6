/**
 * At-least-once under kill -9: the README's consumer (subscribe, `for await`, auto-commit
 * on, a few milliseconds of work per record) killed three times at random points while it
 * works through 3,000 records, then run to the end. Every record must have been finished at
 * least once: the consumer may read a record again after a kill (it was not committed), but
 * never skip one (committed before the application finished with it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, Producer } from '../../src/index.js';
import { projectRoot, startBrook, tempDir } from '../support/brook.js';

const RECORDS = 3_000;
const KILLS = 3;
const CONSUMER = join(projectRoot, 'dist', 'test', 'support', 'clients', 'readme-consumer.js');

/** A small seeded generator, so a failing run can be repeated with BROOK_KILL_SEED. */
function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function processedLines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
}

function startConsumer(bootstrap: string, file: string): { child: ChildProcess; exited: Promise<void>; stderr: () => string } {
  const child = spawn(process.execPath, [CONSUMER, bootstrap, 'readme-group', 'readme', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, exited, stderr: () => stderr };
}

/** Waits until `done()` holds, checking every 20 ms; fails after `ms` with `what`. */
async function waitFor(done: () => boolean, ms: number, what: () => string): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) assert.fail(what());
    await sleep(20);
  }
}

test('kill -9 three times while the README consumer works: every record is processed at least once', { timeout: 180_000 }, async () => {
  const seed = Number(process.env['BROOK_KILL_SEED'] ?? Date.now() % 1_000_000);
  const random = seededRandom(seed);
  const broker = await startBrook({ groupMinSessionTimeoutMs: 500 });
  const dir = tempDir();
  const file = join(dir.path, 'processed.txt');
  const running: ChildProcess[] = [];
  const start = (): ReturnType<typeof startConsumer> => {
    const run = startConsumer(broker.bootstrap, file);
    running.push(run.child);
    return run;
  };
  try {
    const setup = await Admin.connect({ bootstrapServers: broker.bootstrap });
    await setup.createTopic({ name: 'readme', partitions: 3 });
    setup.close();
    const producer = new Producer({ bootstrapServers: broker.bootstrap });
    await Promise.all(Array.from({ length: RECORDS }, (_, i) => producer.send({ topic: 'readme', key: `k${i}`, value: `r${i}` })));
    await producer.close();

    const kills: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const before = processedLines(file).length;
      // Somewhere inside a batch: a poll hands out up to 500 records.
      const after = before + 150 + Math.floor(random() * 500);
      const run = start();
      await waitFor(() => processedLines(file).length >= after, 60_000, () => `run ${k + 1} processed ${processedLines(file).length - before} records in 60 s (seed ${seed}): ${run.stderr()}`);
      run.child.kill('SIGKILL');
      await run.exited;
      kills.push(processedLines(file).length);
    }
    // The last run goes on until the group has committed the end of every partition (the
    // consumer finished everything it will ever be given) and nothing new is processed.
    const last = start();
    const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
    try {
      let lines = -1;
      for (const until = Date.now() + 90_000; ;) {
        const { totalLag, rows } = await admin.describeGroupOffsets('readme-group');
        const now = processedLines(file).length;
        if (rows.length === 3 && totalLag === 0n && now === lines) break;
        assert.ok(Date.now() < until, `the last run did not catch up in 90 s (seed ${seed}): lag ${totalLag}; ${last.stderr()}`);
        lines = now;
        await sleep(500);
      }
    } finally {
      admin.close();
    }
    last.child.kill('SIGTERM');
    await last.exited;
    const seen = (): Set<string> => new Set(processedLines(file));

    const processed = seen();
    const missing = Array.from({ length: RECORDS }, (_, i) => `r${i}`).filter((v) => !processed.has(v));
    assert.deepEqual(missing, [], `records never processed (seed ${seed}, killed after ${kills.join(', ')} processed lines)`);
    // Only records of this topic, and each kill can repeat at most what was not yet committed.
    assert.ok([...processed].every((v) => /^r\d+$/.test(v)));
  } finally {
    for (const child of running) child.kill('SIGKILL');
    await broker.stop();
    dir.remove();
  }
});
