/**
 * Runs a third-party program (kcat, the JVM) as a child process without blocking the event
 * loop, so an in-process broker keeps serving it. Bounded: SIGKILL after `timeoutMs`.
 */
import { spawn, spawnSync } from 'node:child_process';

export interface RunResult {
  /** Exit code; null when killed by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** True when the timeout killed it. */
  readonly timedOut: boolean;
}

export interface RunOptions {
  readonly input?: string;
  readonly timeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

export function runProcess(cmd: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env, cwd: options.cwd });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.stdin.on('error', () => undefined); // the program may exit before reading all input
    child.on('error', reject);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code, signal, timedOut, ms: Date.now() - started,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** True when `cmd args` can be run and exits 0 (a quick availability probe; blocks briefly). */
export function commandWorks(cmd: string, args: readonly string[]): boolean {
  const result = spawnSync(cmd, args, { stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}

/** Resolves within `ms` or rejects with `what` in the message. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` every `intervalMs` until it returns a value (not undefined); errors count as "not yet". */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls `done` every 20 ms until it holds (`until` for a plain condition). */
export async function waitFor(what: string, done: () => boolean, timeoutMs = 20_000): Promise<void> {
  await until(what, timeoutMs, async () => (done() ? true : undefined), 20);
}
