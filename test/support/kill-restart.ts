/**
 * The kill -9 scenario of the README's consumer, against any broker: 3,000 records in a
 * 3-partition topic, the consumer (subscribe, `for await`, auto-commit every 100 ms, a few
 * milliseconds of work per record; test/support/clients/readme-consumer.ts) killed with
 * SIGKILL three times at random points, then run until the group has committed the end of
 * every partition. Returns the records never processed (must be none) and how many lines
 * were processed in all (duplicates are allowed: records in hand at a kill are read again).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { Admin, Producer } from '../../src/index.js';
import { projectRoot, tempDir } from './brook.js';

const RECORDS = 3_000;
const KILLS = 3;
const TOPIC = 'readme';
const GROUP = 'readme-group';
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

/** Waits until `done()` holds, checking every 20 ms; fails after `ms` with `what`. */
async function waitFor(done: () => boolean, ms: number, what: () => string): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) assert.fail(what());
    await sleep(20);
  }
}

export interface KillRestartResult {
  readonly seed: number;
  /** Record values never processed: the at-least-once guarantee says none. */
  readonly missing: string[];
  /** Processed lines at each kill. */
  readonly killedAt: number[];
  readonly processedLines: number;
}

/** `groupProtocol` 'consumer' runs the consumers with KIP-848's protocol (the broker must serve it). */
export async function runKillRestart(bootstrap: string, groupProtocol: 'classic' | 'consumer' = 'classic'): Promise<KillRestartResult> {
  const seed = Number(process.env['BROOK_KILL_SEED'] ?? Date.now() % 1_000_000);
  const random = seededRandom(seed);
  const dir = tempDir();
  const file = join(dir.path, 'processed.txt');
  const running: ChildProcess[] = [];
  const start = (): { child: ChildProcess; exited: Promise<void>; stderr: () => string } => {
    const child = spawn(process.execPath, [CONSUMER, bootstrap, GROUP, TOPIC, file, groupProtocol], { stdio: ['ignore', 'ignore', 'pipe'] });
    running.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    return { child, exited, stderr: () => stderr };
  };
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name: TOPIC, partitions: 3 });
    const producer = new Producer({ bootstrapServers: bootstrap });
    await Promise.all(Array.from({ length: RECORDS }, (_, i) => producer.send({ topic: TOPIC, key: `k${i}`, value: `r${i}` })));
    await producer.close();

    const killedAt: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const before = processedLines(file).length;
      // Somewhere inside a batch: a poll hands out up to 500 records.
      const after = before + 150 + Math.floor(random() * 500);
      const run = start();
      await waitFor(() => processedLines(file).length >= after, 60_000, () => `run ${k + 1} processed ${processedLines(file).length - before} records in 60 s (seed ${seed}): ${run.stderr()}`);
      run.child.kill('SIGKILL');
      await run.exited;
      killedAt.push(processedLines(file).length);
    }
    // The last run goes on until the group has committed the end of every partition (the
    // consumer finished everything it will ever be given) and nothing new is processed.
    const last = start();
    let lines = -1;
    const partitions = [0, 1, 2].map((partition) => ({ topic: TOPIC, partition }));
    for (const until = Date.now() + 90_000; ;) {
      // Committed offsets and log ends, not DescribeGroups: Kafka describes a consumer-protocol group only through ConsumerGroupDescribe.
      const committed = new Map((await admin.committedOffsets(GROUP)).map((c) => [c.partition, c.offset]));
      const ends = await admin.logEndOffsets(partitions);
      const totalLag = partitions.reduce((sum, tp) => sum + ((ends.get(`${TOPIC}:${tp.partition}`) ?? 0n) - (committed.get(tp.partition) ?? 0n)), 0n);
      const now = processedLines(file).length;
      if (committed.size === 3 && totalLag === 0n && now === lines) break;
      assert.ok(Date.now() < until, `the last run did not catch up in 90 s (seed ${seed}): lag ${totalLag}; ${last.stderr()}`);
      lines = now;
      await sleep(500);
    }
    last.child.kill('SIGTERM');
    await last.exited;
    const processed = new Set(processedLines(file));
    const missing = Array.from({ length: RECORDS }, (_, i) => `r${i}`).filter((v) => !processed.has(v));
    assert.ok([...processed].every((v) => /^r\d+$/.test(v)), 'only records of this topic');
    return { seed, missing, killedAt, processedLines: processedLines(file).length };
  } finally {
    for (const child of running) child.kill('SIGKILL');
    admin.close();
    dir.remove();
  }
}
