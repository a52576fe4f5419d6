/**
 * Small file-system helpers of the file engine: atomic replacement of small files (write a
 * temporary, fsync, rename, fsync the directory, so a crash leaves the old or the new
 * content, never a mix), whole writes that loop over short ones, and directory fsync (so
 * created, renamed and deleted names survive). All through the engine's FileSystem.
 */
import { dirname } from 'node:path';
import type { FileSystem } from './file-system.js';

export function fsyncDirSync(fsys: FileSystem, dir: string): void {
  const fd = fsys.openSync(dir, 'r');
  try {
    fsys.fsyncSync(fd);
  } finally {
    fsys.closeSync(fd);
  }
}

export async function fsyncDir(fsys: FileSystem, dir: string): Promise<void> {
  const fd = fsys.openSync(dir, 'r');
  try {
    await fsys.fsync(fd);
  } finally {
    fsys.closeSync(fd);
  }
}

/** Writes all of `data` at the descriptor's position (write(2) may write fewer bytes than asked). */
export function writeAllSync(fsys: FileSystem, fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += fsys.writeSync(fd, data, done, data.length - done);
}

/** A whole file, created or truncated, written and fsynced before it is closed. */
export function writeFileDurableSync(fsys: FileSystem, path: string, data: string | Buffer): void {
  const fd = fsys.openSync(path, 'w');
  try {
    writeAllSync(fsys, fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsys.fsyncSync(fd);
  } finally {
    fsys.closeSync(fd);
  }
}

export function writeAtomicSync(fsys: FileSystem, path: string, data: string | Buffer): void {
  const tmp = `${path}.tmp`;
  writeFileDurableSync(fsys, tmp, data);
  fsys.renameSync(tmp, path);
  fsyncDirSync(fsys, dirname(path));
}

/** Writes a whole file and fsyncs it (fdatasync unless `metadata`), off the event loop. */
export async function writeFileDurable(fsys: FileSystem, path: string, data: Buffer, metadata = false): Promise<void> {
  const fd = fsys.openSync(path, 'w');
  try {
    await fsys.write(fd, data);
    await (metadata ? fsys.fsync(fd) : fsys.fdatasync(fd));
  } finally {
    fsys.closeSync(fd);
  }
}

export async function writeAtomic(fsys: FileSystem, path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFileDurable(fsys, tmp, typeof data === 'string' ? Buffer.from(data) : data, true);
  fsys.renameSync(tmp, path);
  await fsyncDir(fsys, dirname(path));
}

/** The file's bytes, or null when it does not exist. */
export function readIfExists(fsys: FileSystem, path: string): Buffer | null {
  try {
    return fsys.readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function unlinkIfExists(fsys: FileSystem, path: string): void {
  try {
    fsys.unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Reads exactly `length` bytes at `position` (pread, looping over short reads). */
export function preadFully(fsys: FileSystem, fd: number, target: Buffer, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const n = fsys.readSync(fd, target, done, length - done, position + done);
    if (n === 0) throw new Error(`unexpected end of file at ${position + done}`);
    done += n;
  }
}
