/**
 * The file-system calls the file engine makes, as one interface: the engine never imports
 * `node:fs` itself, so a test can hand it a file system that fails a write with ENOSPC or
 * EIO, writes short, fails an fsync or makes it slow (test/support/storage/faulty-fs.ts),
 * and drive every fault deterministically. `nodeFileSystem` is the real one.
 *
 * The log cleaner's worker thread (cleaner-worker.ts) does file I/O too, and a FileSystem is
 * an object of the thread that made it: functions cannot cross to another thread. So a
 * FileSystem says how to build the same file system in another thread (`forThread`): a
 * module and data (structured-cloned, shared memory included) that the worker turns into
 * one. A FileSystem that cannot (no `forThread`) gets its log cleaning done on the event
 * loop instead, so that every call still goes through it.
 */
import * as fs from 'node:fs';

export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * How to build a file system in another thread: `module` (a URL) exports
 * `fileSystemFor(data): FileSystem`; `data` crosses by structured clone (a SharedArrayBuffer
 * in it is shared, so both threads can see the same state).
 */
export interface ThreadFileSystem {
  readonly module: string;
  readonly data: unknown;
}

/** What a ThreadFileSystem's module exports. */
export interface ThreadFileSystemModule {
  fileSystemFor(data: unknown): FileSystem;
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
  /** fdatasync(2), blocking (the cleaner's worker thread). */
  fdatasyncSync(fd: number): void;
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
  /**
   * The same file system in another thread (the log cleaner's worker), asked for each request
   * sent there: null for node:fs itself (the thread calls it directly), absent when this file
   * system cannot be rebuilt there (the cleaner then runs on the event loop).
   */
  forThread?(): ThreadFileSystem | null;
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
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
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
  forThread: () => null,
};
