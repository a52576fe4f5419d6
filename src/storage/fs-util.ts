/**
 * Small file-system helpers of the file engine: atomic replacement of small files (write a
 * temporary, fsync, rename, fsync the directory, so a crash leaves the old or the new
 * content, never a mix) and directory fsync (so created, renamed and deleted names survive).
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';

export function fsyncDirSync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function writeAtomicSync(path: string, data: string | Buffer): void {
  const tmp = `${path}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
  fsyncDirSync(dirname(path));
}

export async function writeAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp`;
  const handle = await fs.promises.open(tmp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(tmp, path);
  const dir = await fs.promises.open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** The file's bytes, or null when it does not exist. */
export function readIfExists(path: string): Buffer | null {
  try {
    return fs.readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function unlinkIfExists(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Reads exactly `length` bytes at `position` (pread, looping over short reads). */
export function preadFully(fd: number, target: Buffer, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, target, done, length - done, position + done);
    if (n === 0) throw new Error(`unexpected end of file at ${position + done}`);
    done += n;
  }
}
