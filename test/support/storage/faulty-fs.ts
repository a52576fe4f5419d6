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
 *
 * The same faults reach the log cleaner's worker thread: `forThread()` hands it the rules
 * and a SharedArrayBuffer holding each rule's hit count and removed/released flags, from
 * which the thread builds its own FaultyFileSystem (`fileSystemFor`). So `times`, `hits`,
 * `remove()` and `release()` are one state for both threads (a held fsync there waits on the
 * shared flag). Only `calls` is this thread's alone.
 */
import { isMainThread } from 'node:worker_threads';
import { nodeFileSystem, type FileStat, type FileSystem, type ThreadFileSystem } from '../../../src/storage/file-system.js';

export type FaultOp = 'open' | 'write' | 'fdatasync' | 'fsync' | 'ftruncate' | 'rename' | 'unlink' | 'read' | 'utimes';

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
  /** Let this many matching calls through before it applies (the k-th rename of a swap: `skip: k`). */
  readonly skip?: number;
  /**
   * As a directory without write permission (chmod a-w) fails: only opens that would create
   * a file (flags other than 'r', the file absent) and renames or unlinks of existing files;
   * the files in it stay readable and writable.
   */
  readonly directoryReadOnly?: boolean;
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

const ERRNOS: Record<string, number> = { ENOSPC: -28, EIO: -5, EDQUOT: -122, EROFS: -30, EMFILE: -24, EACCES: -13 };

function errnoError(errno: string, syscall: string, path: string): NodeJS.ErrnoException {
  const err = new Error(`${errno}: injected failure, ${syscall} '${path}'`) as NodeJS.ErrnoException;
  err.code = errno;
  err.errno = ERRNOS[errno] ?? -5;
  err.syscall = syscall;
  err.path = path;
  return err;
}

/** Per rule, in the shared state: hits, removed, released, matching calls seen (for `skip`). */
const SLOTS = 4;
const HITS = 0;
const REMOVED = 1;
const RELEASED = 2;
const SEEN = 3;
const MAX_RULES = 1024;

interface ActiveFault {
  readonly rule: FaultRule;
  /** Its slots in the shared state. */
  readonly at: number;
  /** This thread's held async fsyncs. */
  readonly held: (() => void)[];
  /** hit(n) callers in this thread: resolved when the rule's hits reach their n. */
  readonly hitWaiters: { n: number; resolve: () => void }[];
}

/** What crosses to another thread (FileSystem.forThread). */
interface ThreadData {
  readonly rules: readonly { readonly rule: FaultRule; readonly at: number }[];
  readonly state: SharedArrayBuffer;
}

export class FaultyFileSystem implements FileSystem {
  private readonly faults: ActiveFault[] = [];
  private readonly state: Int32Array;
  private nextSlot = 0;
  /** Descriptor → the path it was opened with. */
  private readonly paths = new Map<number, string>();
  /** Every operation made in this thread, for tests that check what was attempted. */
  readonly calls: { op: FaultOp | 'other'; path: string }[] = [];

  constructor(private readonly inner: FileSystem = nodeFileSystem, shared?: ThreadData) {
    this.state = new Int32Array(shared?.state ?? new SharedArrayBuffer(MAX_RULES * SLOTS * 4));
    for (const { rule, at } of shared?.rules ?? []) this.faults.push({ rule, at, held: [], hitWaiters: [] });
  }

  inject(rule: FaultRule): Fault {
    if (this.nextSlot >= MAX_RULES) throw new Error(`at most ${MAX_RULES} rules`);
    const active: ActiveFault = { rule, at: this.nextSlot++ * SLOTS, held: [], hitWaiters: [] };
    this.faults.push(active);
    const state = this.state;
    return {
      get hits() {
        return Atomics.load(state, active.at + HITS);
      },
      hit: (n = 1) => this.hitWaiter(active, n),
      remove: () => {
        Atomics.store(state, active.at + REMOVED, 1);
        this.releaseHeld(active);
      },
      release: () => this.releaseHeld(active),
    };
  }

  /** Removes every fault (and releases held fsyncs). */
  clear(): void {
    for (const f of this.faults) {
      Atomics.store(this.state, f.at + REMOVED, 1);
      this.releaseHeld(f);
    }
    this.faults.length = 0;
  }

  /** The worker thread's copy: the rules in force and the shared state (node:fs underneath only). */
  forThread(): ThreadFileSystem | null {
    if (this.inner !== nodeFileSystem) throw new Error('a FaultyFileSystem over another file system cannot cross threads');
    const rules = this.faults.filter((f) => !this.removed(f)).map(({ rule, at }) => ({ rule, at }));
    return { module: import.meta.url, data: { rules, state: this.state.buffer as SharedArrayBuffer } satisfies ThreadData };
  }

  private removed(f: ActiveFault): boolean {
    return Atomics.load(this.state, f.at + REMOVED) !== 0;
  }

  private releaseHeld(f: ActiveFault): void {
    Atomics.store(this.state, f.at + RELEASED, 1);
    Atomics.notify(this.state, f.at + RELEASED);
    for (const go of f.held.splice(0)) go();
  }

  private match(op: FaultOp, path: string, flags?: string): ActiveFault | null {
    this.calls.push({ op, path });
    for (const f of this.faults) {
      if (this.removed(f)) continue;
      const ops = typeof f.rule.op === 'string' ? [f.rule.op] : f.rule.op;
      if (!ops.includes(op)) continue;
      const p = f.rule.path;
      if (p !== undefined && !(typeof p === 'string' ? path.includes(p) : p.test(path))) continue;
      if (f.rule.directoryReadOnly && (op === 'open' ? flags === 'r' || this.inner.existsSync(path) : !this.inner.existsSync(path))) continue;
      // Counted in shared memory: the other thread may hit the same rule.
      if (f.rule.skip !== undefined && Atomics.add(this.state, f.at + SEEN, 1) < f.rule.skip) continue;
      const hits = Atomics.add(this.state, f.at + HITS, 1);
      if (f.rule.times !== undefined && hits >= f.rule.times) {
        Atomics.sub(this.state, f.at + HITS, 1);
        continue;
      }
      this.wakeHitWaiters(f);
      return f;
    }
    return null;
  }

  /**
   * Resolves once `f` has applied to `n` calls. Hits in this thread wake it at once; hits in
   * the cleaner's worker are seen by a 5 ms check of the shared count.
   */
  private hitWaiter(f: ActiveFault, n: number): Promise<void> {
    if (Atomics.load(this.state, f.at + HITS) >= n) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter = { n, resolve };
      f.hitWaiters.push(waiter);
      const check = (): void => {
        if (!f.hitWaiters.includes(waiter)) return;
        if (Atomics.load(this.state, f.at + HITS) >= n) this.wakeHitWaiters(f);
        else setTimeout(check, 5).unref();
      };
      setTimeout(check, 5).unref();
    });
  }

  private wakeHitWaiters(f: ActiveFault): void {
    const hits = Atomics.load(this.state, f.at + HITS);
    for (const w of f.hitWaiters.filter((x) => hits >= x.n)) {
      f.hitWaiters.splice(f.hitWaiters.indexOf(w), 1);
      w.resolve();
    }
  }

  private pathOf(fd: number): string {
    return this.paths.get(fd) ?? `fd ${fd}`;
  }

  private failIf(op: FaultOp, path: string): void {
    const f = this.match(op, path);
    if (f?.rule.errno) throw errnoError(f.rule.errno, op, path);
  }

  openSync(path: string, flags: string): number {
    const f = this.match('open', path, flags);
    if (f?.rule.errno) throw errnoError(f.rule.errno, 'open', path);
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
    this.syncWithSync('fsync', fd);
    this.inner.fsyncSync(fd);
  }

  fdatasyncSync(fd: number): void {
    this.syncWithSync('fdatasync', fd);
    this.inner.fdatasyncSync(fd);
  }

  /** A blocking fsync: held (in a worker thread; the main thread would wait for itself) until released, then fails with `errno` if set. */
  private syncWithSync(op: 'fdatasync' | 'fsync', fd: number): void {
    const path = this.pathOf(fd);
    const f = this.match(op, path);
    if (f?.rule.hold && !isMainThread) Atomics.wait(this.state, f.at + RELEASED, 0);
    if (f?.rule.errno) throw errnoError(f.rule.errno, op, path);
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
    if (f?.rule.hold && Atomics.load(this.state, f.at + RELEASED) === 0) await new Promise<void>((resolve) => f.held.push(resolve));
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
    this.failIf('utimes', path);
    this.inner.utimesSync(path, atime, mtime);
  }
}

/** The log cleaner's worker thread builds its FaultyFileSystem here (FileSystem.forThread). */
export function fileSystemFor(data: unknown): FileSystem {
  return new FaultyFileSystem(nodeFileSystem, data as ThreadData);
}
