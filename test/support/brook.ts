/**
 * Starting Brook's broker for tests: in this process (fast, memory or temp-dir storage,
 * port chosen by the OS) or as a child process running `bin/brook broker` (for kill -9 and
 * command-line tests).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Broker, type BrokerOptions } from '../../src/broker/broker.js';
import { silentLogger, createLogger } from '../../src/util/log.js';
import { FaultyFileSystem } from './storage/faulty-fs.js';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export function tempDir(prefix = 'brook-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** An in-process broker on 127.0.0.1 and a free port; memory storage unless `dataDir` is given. */
export async function startBrook(options: BrokerOptions = {}): Promise<Broker & { bootstrap: string }> {
  const log = process.env['BROOK_TEST_LOG'] ? createLogger('test-broker', 'debug') : silentLogger;
  const broker = await Broker.start({
    host: '127.0.0.1', port: 0, dataDir: null, groupInitialRebalanceDelayMs: 0, log, ...options,
  });
  return Object.assign(broker, { bootstrap: `127.0.0.1:${broker.port}` });
}

export interface BrookProcess {
  readonly child: ChildProcess;
  readonly host: string;
  readonly port: number;
  readonly bootstrap: string;
  readonly stderr: () => string;
  /** What it printed on stdout so far (the ready line, the metrics line). */
  readonly stdout: () => string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

/**
 * Runs `bin/brook broker` as a child process and waits for its "listening on" line. `root`:
 * another built checkout whose broker to run (benchmarks compare builds in one run).
 */
export async function spawnBrook(args: string[], timeoutMs = 20_000, root = projectRoot): Promise<BrookProcess> {
  const child = spawn(process.execPath, [join(root, 'bin', 'brook'), 'broker', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let listening = false;
  const address = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout += `${line}\n`;
      const m = /listening on (\S+):(\d+)/.exec(line);
      if (m) {
        listening = true;
        clearTimeout(timer);
        resolve({ host: m[1]!, port: Number(m[2]) });
      }
    });
    void exited.then((code) => {
      if (listening) return;
      // The timer and the dead child's pipes would otherwise keep the test's event loop alive.
      clearTimeout(timer);
      child.stdout!.destroy();
      child.stderr!.destroy();
      reject(new Error(`broker exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    child,
    ...address,
    bootstrap: `${address.host}:${address.port}`,
    stderr: () => stderr,
    stdout: () => stdout,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A broker on a temp data dir whose file I/O goes through a FaultyFileSystem, with its log
 * lines collected; stop() clears the faults first so that the broker can stop cleanly.
 */
export async function startFaultyBrook(): Promise<{ broker: Broker & { bootstrap: string }; faults: FaultyFileSystem; lines: string[]; stop(): Promise<void> }> {
  const dir = tempDir();
  const faults = new FaultyFileSystem();
  const lines: string[] = [];
  const log = createLogger('broker', 'info', (line) => lines.push(line));
  const broker = await startBrook({ dataDir: dir.path, fileSystem: faults, log });
  return {
    broker, faults, lines,
    async stop() {
      faults.clear();
      await broker.stop();
      dir.remove();
    },
  };
}
