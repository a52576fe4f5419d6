/**
 * Exclusive use of a data directory by one broker: the `.lock` file (Kafka's name) holds
 * the owner's pid. Node has no portable flock, so the file's existence is the lock:
 *
 * - It is created atomically, already holding the pid: the pid is written to a file of this
 *   process's own and hard-linked to `.lock`, which fails if `.lock` exists (never a moment
 *   when `.lock` exists but is empty, which another process could take for stale).
 * - A `.lock` whose process is gone (killed, crashed) is stale and taken over. Two processes
 *   may find the same stale file at once; only the one that creates its takeover marker,
 *   `.lock.takeover.<inode>` (O_EXCL: one winner per lock file), may remove it, and only if
 *   `.lock` is still that file. Everyone then competes for `.lock` again by the link, so
 *   exactly one process holds it. A pid equal to this process's own but not open here is
 *   stale too (pids are reused: a broker that is pid 1 in a container every time).
 * - Within one process a set of open directories refuses a second open at once.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../protocol/errors.js';
import { StorageError } from './errors.js';

/** Kafka's lock file name; here it holds the owner's pid. */
export const LOCK_FILE = '.lock';
/** A takeover marker this old was left by a process that died in the middle of one (which takes microseconds). */
const LEFTOVER_MARKER_MS = 10_000;
/** How long to wait for another process's takeover of a stale lock before giving up. */
const TAKEOVER_WAIT_MS = 5_000;

const openInThisProcess = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Holder {
  /** The pid the file names, or 0 when it names none (an empty or foreign file). */
  readonly pid: number;
  /** Identifies this lock file among the ones that may have had the name. */
  readonly ino: number;
}

/** The lock file's holder, or null when there is no lock file. */
function readHolder(path: string): Holder | null {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const { ino } = fs.fstatSync(fd);
    const text = fs.readFileSync(fd, 'utf8').trim();
    const pid = /^\d+$/.test(text) ? Number(text) : 0;
    return { pid, ino };
  } finally {
    fs.closeSync(fd);
  }
}

function isCode(err: unknown, code: string): boolean {
  return (err as NodeJS.ErrnoException).code === code;
}

/** Creates `path` holding `content` only if it does not exist; false if it does. */
function createExclusive(dir: string, path: string, content: string): boolean {
  const tmp = join(dir, `.lock.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  fs.writeFileSync(tmp, content, { flag: 'wx' });
  try {
    fs.linkSync(tmp, path);
    return true;
  } catch (err) {
    if (isCode(err, 'EEXIST')) return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Locks `dataDir` for this process; resolves with the release function. Refused (a
 * KAFKA_STORAGE_ERROR naming the holder) while another live process or this one has it.
 */
export async function acquireDirLock(dataDir: string): Promise<() => void> {
  const real = fs.realpathSync(dataDir);
  if (openInThisProcess.has(real)) throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `${dataDir} is already open in this process`);
  // Claimed before the first await, so a second open in this process is refused at once.
  openInThisProcess.add(real);
  let ino: number;
  try {
    ino = await takeLock(dataDir);
  } catch (err) {
    openInThisProcess.delete(real);
    throw err;
  }
  const path = join(dataDir, LOCK_FILE);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    openInThisProcess.delete(real);
    // Only our own file: never one another process created after taking ours over wrongly.
    if (readHolder(path)?.ino === ino) fs.rmSync(path, { force: true });
  };
}

/** Takes `.lock`, taking over a stale one; resolves with the inode of the file created. */
async function takeLock(dataDir: string): Promise<number> {
  const path = join(dataDir, LOCK_FILE);
  const waitUntil = Date.now() + TAKEOVER_WAIT_MS;
  for (;;) {
    if (createExclusive(dataDir, path, `${process.pid}\n`)) {
      const mine = readHolder(path);
      if (mine?.pid === process.pid) return mine.ino;
    }
    const holder = readHolder(path);
    if (holder === null) continue; // released meanwhile: try again
    if (holder.pid > 0 && holder.pid !== process.pid && alive(holder.pid)) {
      throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `${dataDir} is in use by process ${holder.pid}`);
    }
    // Stale. Remove it only while holding its takeover marker, and only if it is still it.
    const marker = join(dataDir, `${LOCK_FILE}.takeover.${holder.ino}`);
    if (createExclusive(dataDir, marker, `${process.pid}\n`)) {
      try {
        const again = readHolder(path);
        if (again !== null && again.ino === holder.ino && again.pid === holder.pid) fs.rmSync(path, { force: true });
      } finally {
        fs.rmSync(marker, { force: true });
      }
      continue;
    }
    // Another process is taking this stale lock over: look again shortly.
    try {
      if (Date.now() - fs.statSync(marker).mtimeMs > LEFTOVER_MARKER_MS) fs.rmSync(marker, { force: true });
    } catch (err) {
      if (!isCode(err, 'ENOENT')) throw err;
    }
    if (Date.now() > waitUntil) {
      throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `${dataDir}: the stale lock of process ${holder.pid} is being taken over by another process`);
    }
    await sleep(5);
  }
}
