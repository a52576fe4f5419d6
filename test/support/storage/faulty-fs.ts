/**
 * A FileSystem for the file engine that does what node:fs does until a test says
 * otherwise: fail a write with ENOSPC or EIO, write short, fail an fsync, or hold an fsync
 * until the test releases it. Rules match the operation and the path (for calls on a
 * descriptor, the path it was opened with), apply a number of times (default: until
 * removed) and count their hits.
 *
 *   const faults = new FaultyFileSystem();
 *   const storage = await openFileStorage(dir, { fileSystem: faults });
 *   const full = faults.inject({ op: 'write', path: /orders-0/, errno: 'ENOSPC' });
 *   ...; full.remove();                                  // space is back
 *   faults.inject({ op: 'fdatasync', path: /\.log$/, errno: 'EIO', times: 1 });
 *   const slow = faults.inject({ op: 'fdatasync', hold: true }); ...; slow.release();
 */
import { nodeFileSystem, type FileStat, type FileSystem } from '../../../src/storage/file-system.js';

export type FaultOp = 'open' | 'write' | 'fdatasync' | 'fsync' | 'ftruncate' | 'rename' | 'unlink' | 'read';

export interface FaultRule {
  readonly op: FaultOp | readonly FaultOp[];
  /** Matched against the path (a substring or a pattern); absent: every path. */
  readonly path?: string | RegExp;
  /** Fail with this errno ('ENOSPC', 'EIO', ...). */
  readonly errno?: string;
  /** Writes only: write this many bytes (at most) and return, as a short write(2) does. */
  readonly shortTo?: number;
  /** fsyncs only: wait until the fault's release() (then fail with `errno` or succeed). */
  readonly hold?: boolean;
  /** How many calls it applies to (default: all, until removed). */
  readonly times?: number;
}

export interface Fault {
  /** Calls it applied to so far. */
  readonly hits: number;
  /** Resolves once it has applied to `n` calls (at once if it already has). */
  hit(n?: number): Promise<void>;
  remove(): void;
  /** Held fsyncs (rule `hold`): let them go on. */
  release(): void;
}

const ERRNOS: Record<string, number> = { ENOSPC: -28, EIO: -5, EDQUOT: -122, EROFS: -30, EMFILE: -24 };

function errnoError(errno: string, syscall: string, path: string): NodeJS.ErrnoException {
  const err = new Error(`${errno}: injected failure, ${syscall} '${path}'`) as NodeJS.ErrnoException;
  err.code = errno;
  err.errno = ERRNOS[errno] ?? -5;
  err.syscall = syscall;
  err.path = path;
  return err;
}

interface ActiveFault {
  readonly rule: FaultRule;
  hits: number;
  removed: boolean;
  readonly held: (() => void)[];
  released: boolean;
  /** hit(n) callers: resolved when `hits` reaches their n. */
  readonly hitWaiters: { n: number; resolve: () => void }[];
}

export class FaultyFileSystem implements FileSystem {
  private readonly faults: ActiveFault[] = [];
  /** Descriptor → the path it was opened with. */
  private readonly paths = new Map<number, string>();
  /** Every operation made, for tests that check what was attempted. */
  readonly calls: { op: FaultOp | 'other'; path: string }[] = [];

  constructor(private readonly inner: FileSystem = nodeFileSystem) {}

  inject(rule: FaultRule): Fault {
    const active: ActiveFault = { rule, hits: 0, removed: false, held: [], released: false, hitWaiters: [] };
    this.faults.push(active);
    return {
      get hits() {
        return active.hits;
      },
      hit: (n = 1) => (active.hits >= n ? Promise.resolve() : new Promise<void>((resolve) => active.hitWaiters.push({ n, resolve }))),
      remove: () => {
        active.removed = true;
        this.releaseHeld(active);
      },
      release: () => this.releaseHeld(active),
    };
  }

  /** Removes every fault (and releases held fsyncs). */
  clear(): void {
    for (const f of this.faults) {
      f.removed = true;
      this.releaseHeld(f);
    }
    this.faults.length = 0;
  }

  private releaseHeld(f: ActiveFault): void {
    f.released = true;
    for (const go of f.held.splice(0)) go();
  }

  private match(op: FaultOp, path: string): ActiveFault | null {
    this.calls.push({ op, path });
    for (const f of this.faults) {
      if (f.removed) continue;
      const ops = typeof f.rule.op === 'string' ? [f.rule.op] : f.rule.op;
      if (!ops.includes(op)) continue;
      const p = f.rule.path;
      if (p !== undefined && !(typeof p === 'string' ? path.includes(p) : p.test(path))) continue;
      if (f.rule.times !== undefined && f.hits >= f.rule.times) continue;
      f.hits++;
      for (const w of f.hitWaiters.filter((x) => f.hits >= x.n)) {
        f.hitWaiters.splice(f.hitWaiters.indexOf(w), 1);
        w.resolve();
      }
      return f;
    }
    return null;
  }

  private pathOf(fd: number): string {
    return this.paths.get(fd) ?? `fd ${fd}`;
  }

  private failIf(op: FaultOp, path: string): void {
    const f = this.match(op, path);
    if (f?.rule.errno) throw errnoError(f.rule.errno, op, path);
  }

  openSync(path: string, flags: string): number {
    this.failIf('open', path);
    const fd = this.inner.openSync(path, flags);
    this.paths.set(fd, path);
    return fd;
  }

  closeSync(fd: number): void {
    this.paths.delete(fd);
    this.inner.closeSync(fd);
  }

  writeSync(fd: number, data: Buffer, offset: number, length: number): number {
    const path = this.pathOf(fd);
    const f = this.match('write', path);
    if (f?.rule.shortTo !== undefined) return this.inner.writeSync(fd, data, offset, Math.min(length, f.rule.shortTo));
    if (f?.rule.errno) throw errnoError(f.rule.errno, 'write', path);
    return this.inner.writeSync(fd, data, offset, length);
  }

  async write(fd: number, data: Buffer): Promise<void> {
    this.failIf('write', this.pathOf(fd));
    return this.inner.write(fd, data);
  }

  readSync(fd: number, target: Buffer, offset: number, length: number, position: number): number {
    this.failIf('read', this.pathOf(fd));
    return this.inner.readSync(fd, target, offset, length, position);
  }

  fstatSync(fd: number): FileStat {
    return this.inner.fstatSync(fd);
  }

  ftruncateSync(fd: number, length: number): void {
    this.failIf('ftruncate', this.pathOf(fd));
    this.inner.ftruncateSync(fd, length);
  }

  fsyncSync(fd: number): void {
    this.failIf('fsync', this.pathOf(fd));
    this.inner.fsyncSync(fd);
  }

  fdatasync(fd: number): Promise<void> {
    return this.syncWith('fdatasync', fd, () => this.inner.fdatasync(fd));
  }

  fsync(fd: number): Promise<void> {
    return this.syncWith('fsync', fd, () => this.inner.fsync(fd));
  }

  private async syncWith(op: 'fdatasync' | 'fsync', fd: number, run: () => Promise<void>): Promise<void> {
    const path = this.pathOf(fd);
    const f = this.match(op, path);
    if (f?.rule.hold && !f.released) await new Promise<void>((resolve) => f.held.push(resolve));
    if (f?.rule.errno) throw errnoError(f.rule.errno, op, path);
    return run();
  }

  readFileSync(path: string): Buffer {
    return this.inner.readFileSync(path);
  }

  renameSync(from: string, to: string): void {
    this.failIf('rename', from);
    this.inner.renameSync(from, to);
  }

  unlinkSync(path: string): void {
    this.failIf('unlink', path);
    this.inner.unlinkSync(path);
  }

  mkdirSync(path: string): void {
    this.inner.mkdirSync(path);
  }

  readdirSync(path: string): string[] {
    return this.inner.readdirSync(path);
  }

  rmSync(path: string): void {
    this.inner.rmSync(path);
  }

  isDirectory(path: string): boolean {
    return this.inner.isDirectory(path);
  }

  existsSync(path: string): boolean {
    return this.inner.existsSync(path);
  }

  realpathSync(path: string): string {
    return this.inner.realpathSync(path);
  }

  utimesSync(path: string, atime: Date, mtime: Date): void {
    this.inner.utimesSync(path, atime, mtime);
  }
}
