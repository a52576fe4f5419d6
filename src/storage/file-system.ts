/**
 * The file-system calls the file engine makes, as one interface: the engine never imports
 * `node:fs` itself, so a test can hand it a file system that fails a write with ENOSPC or
 * EIO, writes short, fails an fsync or makes it slow (test/support/storage/faulty-fs.ts),
 * and drive every fault deterministically. `nodeFileSystem` is the real one.
 */
import * as fs from 'node:fs';

export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
}

export interface FileSystem {
  /** Flags as node:fs: 'r', 'w', 'wx' (create, fail if it exists), 'a+' (append and read). */
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  /** One write(2) at the descriptor's position (the end, for 'a+'); returns the bytes written, possibly fewer. */
  writeSync(fd: number, data: Buffer, offset: number, length: number): number;
  /** Writes all of `data` at the descriptor's position, off the event loop. */
  write(fd: number, data: Buffer): Promise<void>;
  /** One pread(2); returns the bytes read (0 at the end of the file). */
  readSync(fd: number, target: Buffer, offset: number, length: number, position: number): number;
  fstatSync(fd: number): FileStat;
  ftruncateSync(fd: number, length: number): void;
  fsyncSync(fd: number): void;
  /** fdatasync(2), off the event loop. */
  fdatasync(fd: number): Promise<void>;
  /** fsync(2), off the event loop (directories need it: their entries are metadata). */
  fsync(fd: number): Promise<void>;
  readFileSync(path: string): Buffer;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  /** Creates the directory and its parents; an existing one is fine. */
  mkdirSync(path: string): void;
  readdirSync(path: string): string[];
  /** Removes a file or a directory tree; a missing one is fine. */
  rmSync(path: string): void;
  isDirectory(path: string): boolean;
  existsSync(path: string): boolean;
  realpathSync(path: string): string;
  utimesSync(path: string, atime: Date, mtime: Date): void;
}

function callback(run: (done: (err: NodeJS.ErrnoException | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((err) => (err ? reject(err) : resolve())));
}

export const nodeFileSystem: FileSystem = {
  openSync: (path, flags) => fs.openSync(path, flags),
  closeSync: (fd) => fs.closeSync(fd),
  writeSync: (fd, data, offset, length) => fs.writeSync(fd, data, offset, length),
  async write(fd, data) {
    let done = 0;
    while (done < data.length) {
      done += await new Promise<number>((resolve, reject) => fs.write(fd, data, done, data.length - done, null, (err, n) => (err ? reject(err) : resolve(n))));
    }
  },
  readSync: (fd, target, offset, length, position) => fs.readSync(fd, target, offset, length, position),
  fstatSync: (fd) => fs.fstatSync(fd),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fdatasync: (fd) => callback((done) => fs.fdatasync(fd, done)),
  fsync: (fd) => callback((done) => fs.fsync(fd, done)),
  readFileSync: (path) => fs.readFileSync(path),
  renameSync: (from, to) => fs.renameSync(from, to),
  unlinkSync: (path) => fs.unlinkSync(path),
  mkdirSync: (path) => { fs.mkdirSync(path, { recursive: true }); },
  readdirSync: (path) => fs.readdirSync(path),
  rmSync: (path) => fs.rmSync(path, { recursive: true, force: true }),
  isDirectory: (path) => fs.statSync(path).isDirectory(),
  existsSync: (path) => fs.existsSync(path),
  realpathSync: (path) => fs.realpathSync(path),
  utimesSync: (path, atime, mtime) => fs.utimesSync(path, atime, mtime),
};
