/**
 * For tests that must use fixed ports because the program under test hardcodes them (KafkaJS's
 * example applications and test suite: 127.0.0.1:9092–9100). Test files run two at a time, so
 * such tests take one machine-wide lock first — a file in the temp dir holding the owner's pid
 * (created with O_EXCL; a dead owner's lock is taken over) — and then wait until the ports are
 * free of anything else, failing with a plain message when they stay taken.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOCK = join(tmpdir(), 'brook-kafkajs-fixed-ports.lock');

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryLock(): boolean {
  try {
    const fd = openSync(LOCK, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let owner = NaN;
  try {
    owner = Number(readFileSync(LOCK, 'utf8'));
  } catch {
    return false; // removed meanwhile: next round
  }
  // An empty file is a lock being written right now; a dead owner's lock is stale.
  if (Number.isInteger(owner) && owner > 0 && !alive(owner)) rmSync(LOCK, { force: true });
  return false;
}

/** True when 127.0.0.1:`port` can be bound now. */
export async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** True when a connection to 127.0.0.1:`port` is refused (nothing listens). */
export async function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(2_000, () => { socket.destroy(); resolve(false); });
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

export interface FixedPorts {
  release(): void;
}

/**
 * Takes the machine-wide fixed-ports lock, then waits until every port of `ports` is free
 * (bindable and refusing connections); throws after `timeoutMs`, naming `why` and the ports
 * still taken.
 */
/**
 * Only the lock: for a program that moves to free ports itself when its fixed ones are taken
 * (KafkaJS's suite harness), but must not start while another fixed-port test holds them.
 */
export async function lockFixedPorts(why: string, timeoutMs = 180_000): Promise<FixedPorts> {
  const deadline = Date.now() + timeoutMs;
  while (!tryLock()) {
    if (Date.now() > deadline) throw new Error(`${why}: another test held ${LOCK} for ${timeoutMs} ms`);
    await sleep(500);
  }
  const release = (): void => {
    try {
      if (readFileSync(LOCK, 'utf8') === String(process.pid)) rmSync(LOCK, { force: true });
    } catch {
      // already gone
    }
  };
  return { release };
}

export async function acquireFixedPorts(ports: readonly number[], why: string, timeoutMs = 180_000): Promise<FixedPorts> {
  const deadline = Date.now() + timeoutMs;
  const { release } = await lockFixedPorts(why, timeoutMs);
  for (;;) {
    const taken: number[] = [];
    for (const port of ports) if (!(await portFree(port)) || !(await connectionRefused(port))) taken.push(port);
    if (taken.length === 0) return { release };
    if (Date.now() > deadline) {
      release();
      throw new Error(`${why}, and 127.0.0.1:${taken.join(', ')} ${taken.length === 1 ? 'is' : 'are'} taken by another program (still after ${timeoutMs} ms)`);
    }
    await sleep(1_000);
  }
}
