/**
 * The command line's signals, with real processes: `bin/brook broker` as a child (frozen
 * with SIGSTOP where a test needs a broker that accepts connections but never answers; a
 * silent server where it must know when the client connected) and `bin/brook consume` /
 * `produce` children.
 *
 * - The first SIGTERM/SIGINT stops a client command by itself within a few seconds,
 *   whatever the broker's state (the CLI's 5 s forced exit, "did not stop within", is
 *   never what ends it here); a second signal exits at once with 143 (SIGTERM) or 130
 *   (SIGINT).
 * - `consume --group` interrupted against a live broker exits 0 having committed exactly
 *   what it printed.
 * - `produce` with no broker listening fails within a few seconds naming the address.
 * - None of them warns MaxListenersExceededWarning.
 *
 * The broker's own SIGTERM (exit 0) is covered by broker-clients.test.ts.
 */
import { freePorts } from '../support/kafka/kafka-jvm.js';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { projectRoot, spawnBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { Admin, GroupNotFoundError } from '../../src/index.js';

const BIN = join(projectRoot, 'bin', 'brook');
/** The CLI's forced exit after a first signal (gracefulStopMs of the client commands). */
const GRACEFUL_STOP_MS = 5_000;

let broker: BrookProcess;
const dir = tempDir();

before(async () => {
  broker = await spawnBrook(['--host', '127.0.0.1', '--port', '0', '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '0']);
});

after(async () => {
  broker.child.kill('SIGCONT');
  await broker.stop();
  dir.remove();
});

interface Cli {
  readonly child: ChildProcess;
  /** stdout lines so far. */
  readonly lines: string[];
  stderr(): string;
  /** Exit code (null when a signal killed it), signal, and Date.now() at exit. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
  /** Resolves once stdout has `n` lines; rejects after `ms` or if the process exits first. */
  linesReached(n: number, ms: number): Promise<void>;
}

function brook(args: string[], input?: string): Cli {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  child.stdin!.on('error', () => undefined);
  if (input !== undefined) child.stdin!.end(input);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve({ code, signal, atMs: Date.now() });
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    child, lines, exited,
    stderr: () => stderr,
    linesReached: async (n, ms) => {
      const deadline = Date.now() + ms;
      while (lines.length < n) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited after ${lines.length} of ${n} lines: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`only ${lines.length} of ${n} lines within ${ms} ms: ${stderr}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}

/** Waits up to `ms` for the exit; kills the process (and fails) if it is still running then. */
async function exitWithin(cli: Cli, ms: number, what: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), ms); });
  const result = await Promise.race([cli.exited, late]);
  clearTimeout(timer);
  if (result === null) {
    cli.child.kill('SIGKILL');
    await cli.exited;
    assert.fail(`${what}: still running ${ms} ms later; stderr: ${cli.stderr()}`);
  }
  return result;
}

function assertNoListenerLeak(stderr: string, what: string): void {
  assert.doesNotMatch(stderr, /MaxListenersExceededWarning/, `${what}: ${stderr}`);
}

/** Stopped on its own, not by the CLI's forced exit. */
function assertStoppedByItself(stderr: string, what: string): void {
  assert.doesNotMatch(stderr, /did not stop within/, `${what} was ended by the forced exit: ${stderr}`);
}

/** Freezes the broker (it keeps accepting TCP connections, as the kernel does, but answers nothing) for the duration of `work`. */
async function withFrozenBroker<T>(work: () => Promise<T>): Promise<T> {
  broker.child.kill('SIGSTOP');
  try {
    return await work();
  } finally {
    broker.child.kill('SIGCONT');
  }
}

test('consume --group against a broker frozen from the start: SIGTERM once it has connected stops it by itself within 5 s', { timeout: 30_000 }, async (t) => {
  // A frozen broker as its clients see it (the kernel accepts the connection, nothing answers),
  // in this process: its 'connection' event says the CLI is running its command, signal
  // handlers installed, however long the machine took to start it.
  const accepted: Socket[] = [];
  const frozen = createServer((socket) => { accepted.push(socket); });
  await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
  try {
    const connected = once(frozen, 'connection');
    const cli = brook(['consume', 'frozen-from-start', '--group', 'g-frozen-start', '--timeout-ms', '15000', '-b', `127.0.0.1:${(frozen.address() as AddressInfo).port}`]);
    await Promise.race([connected, cli.exited.then(() => { throw new Error(`the CLI exited before connecting: ${cli.stderr()}`); })]);
    const signalledAt = Date.now();
    cli.child.kill('SIGTERM');
    const exit = await exitWithin(cli, 10_000, 'consume after SIGTERM');
    const ms = exit.atMs - signalledAt;
    assert.equal(exit.signal, null, `the CLI handled SIGTERM (it was not killed by it); stderr: ${cli.stderr()}`);
    assertStoppedByItself(cli.stderr(), 'consume');
    assert.ok(ms < GRACEFUL_STOP_MS, `exited ${ms} ms after SIGTERM`);
    t.diagnostic(`exit ${exit.code} ${ms} ms after SIGTERM`);
    // Nothing printed, nothing to commit: an interrupted consume that finished cleanly exits 0.
    assert.equal(exit.code, 0, cli.stderr());
    assertNoListenerLeak(cli.stderr(), 'consume');
  } finally {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => frozen.close(resolve));
  }
});

/** consume --group from the beginning of a topic of `count` records, once it has printed them all. */
async function consumingAll(topic: string, group: string, count: number): Promise<Cli> {
  await createTopic(broker.bootstrap, topic, 1);
  await produce(broker.bootstrap, topic, 0, Array.from({ length: count }, (_, i) => `${topic}-${i}`));
  const cli = brook(['consume', topic, '--group', group, '--from-beginning', '-b', broker.bootstrap]);
  await cli.linesReached(count, 20_000);
  return cli;
}

test('consume --group whose broker freezes after it printed records: SIGTERM stops it by itself within 5 s although its final commit gets no answer', { timeout: 40_000 }, async (t) => {
  const cli = await consumingAll('frozen-later', 'g-frozen-later', 5);
  await withFrozenBroker(async () => {
    const signalledAt = Date.now();
    cli.child.kill('SIGTERM');
    const exit = await exitWithin(cli, 10_000, 'consume after SIGTERM');
    const ms = exit.atMs - signalledAt;
    t.diagnostic(`exit ${exit.code} ${ms} ms after SIGTERM`);
    assertStoppedByItself(cli.stderr(), 'consume');
    assert.ok(ms < GRACEFUL_STOP_MS, `exited ${ms} ms after SIGTERM; stderr: ${cli.stderr()}`);
    // The commit of what it printed timed out: the command failed, interrupted.
    assert.equal(exit.code, 143, cli.stderr());
    assert.match(cli.stderr(), /interrupted by SIGTERM/);
    assertNoListenerLeak(cli.stderr(), 'consume');
  });
});

test('consume --group that joined but printed nothing, its broker then frozen: SIGTERM stops it by itself within 5 s although its LeaveGroup gets no answer', { timeout: 40_000 }, async (t) => {
  const topic = 'frozen-joined';
  const group = 'g-frozen-joined';
  await createTopic(broker.bootstrap, topic, 1);
  const cli = brook(['consume', topic, '--group', group, '-b', broker.bootstrap]);
  // Joined: the group is Stable with one member (nothing to print, so the broker is the only witness).
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      // Until the consumer's JoinGroup, the group does not exist (GroupNotFoundError).
      const g = await admin.describeGroup(group, { timeoutMs: 5_000 }).catch((err: unknown) => {
        if (err instanceof GroupNotFoundError) return null;
        throw err;
      });
      if (g !== null && g.state === 'Stable' && g.members.length === 1) break;
      assert.ok(Date.now() < deadline, `the consumer did not join within 20 s: ${cli.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    admin.close();
  }
  await withFrozenBroker(async () => {
    const signalledAt = Date.now();
    cli.child.kill('SIGTERM');
    const exit = await exitWithin(cli, 10_000, 'consume after SIGTERM');
    const ms = exit.atMs - signalledAt;
    t.diagnostic(`exit ${exit.code} ${ms} ms after SIGTERM`);
    assertStoppedByItself(cli.stderr(), 'consume');
    assert.ok(ms < GRACEFUL_STOP_MS, `exited ${ms} ms after SIGTERM; stderr: ${cli.stderr()}`);
    // Nothing to commit; the unanswered LeaveGroup is abandoned when close()'s 2 s are up.
    assert.equal(exit.code, 0, cli.stderr());
    assertNoListenerLeak(cli.stderr(), 'consume');
  });
});

for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
  test(`a second ${signal} exits at once with ${code} while the first is still stopping consume (its broker frozen)`, { timeout: 40_000 }, async (t) => {
    const cli = await consumingAll(`twice-${signal}`, `g-twice-${signal}`, 3);
    await withFrozenBroker(async () => {
      cli.child.kill(signal);
      // Stopping takes at least the 2 s the final commit waits for the frozen broker: the second signal comes well within it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const secondAt = Date.now();
      cli.child.kill(signal);
      const exit = await exitWithin(cli, 10_000, `consume after two ${signal}s`);
      const ms = exit.atMs - secondAt;
      t.diagnostic(`exit ${exit.code} ${ms} ms after the second ${signal}`);
      assert.equal(exit.code, code, cli.stderr());
      assert.ok(ms < 1_000, `exited ${ms} ms after the second ${signal}: not at once`);
      assertNoListenerLeak(cli.stderr(), 'consume');
    });
  });
}

test('consume --group against a live broker, interrupted by SIGINT after printing: exits 0 within a few seconds and the group\'s committed offsets add up to what it printed', { timeout: 40_000 }, async (t) => {
  const topic = 'interrupted';
  const group = 'g-interrupted';
  await createTopic(broker.bootstrap, topic, 2);
  await produce(broker.bootstrap, topic, 0, Array.from({ length: 20 }, (_, i) => `a${i}`));
  await produce(broker.bootstrap, topic, 1, Array.from({ length: 15 }, (_, i) => `b${i}`));
  const cli = brook(['consume', topic, '--group', group, '--from-beginning', '-b', broker.bootstrap]);
  await cli.linesReached(35, 20_000);
  // Interrupted before its periodic commit (every 5 s): only the final commit can record what it printed.
  const signalledAt = Date.now();
  cli.child.kill('SIGINT');
  const exit = await exitWithin(cli, 10_000, 'consume after SIGINT');
  t.diagnostic(`exit ${exit.code} ${exit.atMs - signalledAt} ms after SIGINT, ${cli.lines.length} records printed`);
  assert.equal(exit.code, 0, cli.stderr());
  assert.ok(exit.atMs - signalledAt < 3_000, `exited ${exit.atMs - signalledAt} ms after SIGINT`);
  assertStoppedByItself(cli.stderr(), 'consume');
  assertNoListenerLeak(cli.stderr(), 'consume');
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  try {
    const committed = await admin.committedOffsets(group, { timeoutMs: 10_000 });
    const byPartition = new Map(committed.filter((c) => c.topic === topic).map((c) => [c.partition, c.offset]));
    assert.deepEqual([byPartition.get(0), byPartition.get(1)], [20n, 15n], 'each partition committed after its last printed record');
    assert.equal(Number(byPartition.get(0)! + byPartition.get(1)!), cli.lines.length, 'as many as it printed');
  } finally {
    admin.close();
  }
});

test('consume --group with no broker listening retries for 2 s without warning MaxListenersExceededWarning, then SIGTERM stops it by itself', { timeout: 30_000 }, async (t) => {
  const port = (await freePorts(1))[0]!;
  const cli = brook(['consume', 'nowhere', '--group', 'g-nowhere', '-b', `127.0.0.1:${port}`]);
  // retry.backoff.ms is 100 ms: some 20 failed connection attempts, each once leaving an abort listener on the client's signal (Node warns at 11).
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const signalledAt = Date.now();
  cli.child.kill('SIGTERM');
  const exit = await exitWithin(cli, 10_000, 'consume after SIGTERM');
  t.diagnostic(`exit ${exit.code} ${exit.atMs - signalledAt} ms after SIGTERM`);
  assertNoListenerLeak(cli.stderr(), 'consume');
  assertStoppedByItself(cli.stderr(), 'consume');
  assert.equal(exit.code, 0, cli.stderr());
});

test('produce with no broker listening fails within a few seconds: "no broker reachable at 127.0.0.1:PORT", non-zero exit', { timeout: 30_000 }, async (t) => {
  const port = (await freePorts(1))[0]!;
  const r = await runProcess(process.execPath, [BIN, 'produce', 'nowhere', '-b', `127.0.0.1:${port}`], { input: 'a\n', timeoutMs: 20_000 });
  t.diagnostic(`exit ${r.code} after ${r.ms} ms: ${r.stderr.trim()}`);
  assert.equal(r.timedOut, false, 'it ended by itself');
  assert.notEqual(r.code, 0, r.stderr);
  assert.ok(r.code !== null, 'it exited (not killed)');
  assert.ok(r.ms < 5_000, `took ${r.ms} ms`);
  assert.match(r.stderr, new RegExp(`no broker reachable at 127\\.0\\.0\\.1:${port}`));
  assertNoListenerLeak(r.stderr, 'produce');
});
