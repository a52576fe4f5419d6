/**
 * Runs a client program (JVM, Go, kcat, python) as a child process for one benchmark run:
 * bounded by a timeout, its RSS sampled while it runs, its last JSON line parsed.
 */
import { spawn } from 'node:child_process';
import { sampleRss } from './rss.js';

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  peakRssBytes: number | null;
}

export interface ChildOptions {
  timeoutMs: number;
  input?: string | Buffer;
  onPid?: (pid: number) => void;
  /** Discard stdout (a client that prints every record). */
  ignoreStdout?: boolean;
}

export function runChild(cmd: string, args: readonly string[], options: ChildOptions): Promise<ChildResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', options.ignoreStdout ? 'ignore' : 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    child.stdin!.on('error', () => undefined);
    child.on('error', reject);
    const rss = child.pid === undefined ? null : sampleRss(child.pid);
    if (child.pid !== undefined) options.onPid?.(child.pid);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code, ms: performance.now() - started, peakRssBytes: rss?.stop() ?? null,
        stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin!.end(options.input ?? '');
  });
}

/** The last line of stdout that is a JSON object, parsed; throws with stderr when there is none. */
export function lastJsonLine<T>(result: ChildResult, what: string): T {
  const line = result.stdout.split('\n').reverse().find((l) => l.startsWith('{'));
  if (line === undefined || result.code !== 0) {
    throw new Error(`${what} exited ${result.code} without a result: ${result.stderr.slice(-2000)}`);
  }
  return JSON.parse(line) as T;
}
