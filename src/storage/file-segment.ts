/**
 * The file engine's byte storage, in Kafka's layout:
 *   <dataDir>/<topic>-<partition>/<20-digit base offset>.log | .index | .timeindex | .snapshot
 *   <dataDir>/<topic>-<partition>/partition.metadata   (the topic id, as Kafka writes it)
 * Log appends are plain writes to a descriptor opened for append (the page cache); fsyncs
 * go through the storage's group-commit scheduler. Indexes live in memory and are written
 * whole when a segment is sealed (roll, recovery) and at clean shutdown.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ioError } from './errors.js';
import type { FileSystem } from './file-system.js';
import { RESOLVED, type FlushScheduler, type SyncTarget } from './flush-scheduler.js';
import type { IoFaults } from './io-faults.js';
import { CLEANED_SUFFIX, completeSwaps, deletedPaths, SwapIncompleteError, swapIntoPlace } from './file-swap.js';
import { fsyncDirSync, preadFully, readIfExists, unlinkIfExists, writeAllSync, writeFileDurable } from './fs-util.js';
import type { CleanerFileAccess, LogBytes, PartitionState, PartitionStore, ProducerSnapshotFile, SegmentFiles } from './segment-store.js';

/** What a file tells its partition's store: a failed write (for the log line and counters), durability lost. */
export interface FileHooks {
  writeFailed(path: string, what: string, err: unknown): void;
  /** An fsync failed (or a torn write could not be undone): nothing written to the file may be trusted past `syncedLength`. */
  durabilityLost(target: SyncTarget & { readonly path: string }, err: unknown): void;
}

/** A descriptor the scheduler may fsync and then close. */
class FdTarget implements SyncTarget {
  private closed = false;
  failure: Error | null = null;
  constructor(
    private readonly fs: FileSystem, readonly fd: number, readonly path: string,
    private readonly hooks: FileHooks, private readonly directory = false,
  ) {}
  async sync(): Promise<void> {
    try {
      // Directories need fsync (their entries are metadata); data files only fdatasync.
      await (this.directory ? this.fs.fsync(this.fd) : this.fs.fdatasync(this.fd));
    } catch (err) {
      this.failure ??= err as Error;
      this.hooks.durabilityLost(this, err);
      throw err;
    }
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fs.closeSync(this.fd);
  }
}

export class FileLog implements LogBytes, SyncTarget {
  private length: number;
  private closed = false;
  /**
   * How much of the file a successful fsync covered: what is verifiably on disk. When an
   * fsync fails, the partition recovers from this point (the rest may be gone from disk).
   * At open, the whole file (it survived the last run; recovery checked its tail).
   */
  syncedLength: number;
  /** Set once an fsync failed or a torn write could not be undone. */
  failure: Error | null = null;

  /** `path` changes when a cleaned segment is swapped into place (the descriptor stays). */
  constructor(private readonly fs: FileSystem, public path: string, private readonly fd: number, public hooks: FileHooks) {
    this.length = fs.fstatSync(fd).size;
    this.syncedLength = this.length;
  }

  get size(): number {
    return this.length;
  }

  append(data: Buffer): void {
    let written = 0;
    try {
      // The descriptor is O_APPEND: each write lands at the end of the file.
      while (written < data.length) written += this.fs.writeSync(this.fd, data, written, data.length - written);
    } catch (err) {
      this.hooks.writeFailed(this.path, 'append', err);
      // Undo a partial write so the next append does not land after garbage.
      if (written > 0) {
        try {
          this.fs.ftruncateSync(this.fd, this.length);
        } catch (undo) {
          // Appending after a torn batch would corrupt the log: recover the partition instead.
          this.failure ??= undo as Error;
          this.hooks.durabilityLost(this, undo);
        }
      }
      throw ioError(`append to ${this.path} failed`, err);
    }
    this.length += data.length;
  }

  read(position: number, length: number, allocate?: (length: number) => Buffer): Buffer {
    const buf = allocate === undefined ? Buffer.allocUnsafe(length) : allocate(length);
    try {
      preadFully(this.fs, this.fd, buf, length, position);
    } catch (err) {
      throw ioError(`read of ${this.path} failed`, err);
    }
    return buf;
  }

  peek(position: number, length: number, scratch: Buffer): Buffer {
    const n = Math.min(length, scratch.length, this.length - position);
    if (n <= 0) return scratch.subarray(0, 0);
    try {
      preadFully(this.fs, this.fd, scratch, n, position);
    } catch (err) {
      throw ioError(`read of ${this.path} failed`, err);
    }
    return scratch.subarray(0, n);
  }

  truncate(size: number): void {
    try {
      this.fs.ftruncateSync(this.fd, size);
    } catch (err) {
      throw ioError(`truncation of ${this.path} failed`, err);
    }
    this.length = size;
    if (this.syncedLength > size) this.syncedLength = size;
  }

  async sync(): Promise<void> {
    const covered = this.length;
    try {
      await this.fs.fdatasync(this.fd);
    } catch (err) {
      this.failure ??= err as Error;
      this.hooks.durabilityLost(this, err);
      throw err;
    }
    if (!this.failure && covered > this.syncedLength) this.syncedLength = Math.min(covered, this.length);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fs.closeSync(this.fd);
  }
}

export function segmentName(baseOffset: bigint): string {
  return baseOffset.toString().padStart(20, '0');
}

const SEGMENT_FILE = /^(\d{20})\.(log|index|timeindex|txnindex|snapshot)$/;

class FileSegmentFiles implements SegmentFiles {
  constructor(private readonly fs: FileSystem, readonly baseOffset: bigint, readonly log: FileLog, readonly lastModifiedMs: number, readonly stem: string) {}

  loadOffsetIndex(): Buffer | null {
    return readIfExists(this.fs, `${this.stem}.index`);
  }

  loadTimeIndex(): Buffer | null {
    return readIfExists(this.fs, `${this.stem}.timeindex`);
  }

  loadTxnIndex(): Buffer | null {
    return readIfExists(this.fs, `${this.stem}.txnindex`);
  }
}

export interface FileStoreContext {
  readonly fs: FileSystem;
  readonly scheduler: FlushScheduler;
  /** The previous run of this data directory shut down cleanly. */
  readonly cleanShutdown: boolean;
  /** Persisted checkpoints of this partition (-1 when none). */
  readonly recoveryPoint: bigint;
  readonly logStartOffset: bigint;
  /** The log start offset or recovery point moved: rewrite the checkpoint files; settles when they are durable. */
  checkpointsChanged(): Promise<void>;
  /** Where write failures are logged and counted. */
  readonly faults: IoFaults;
}

export class FilePartitionStore implements PartitionStore {
  /** Segments below this base offset were fsynced with their indexes. */
  recoveryPoint: bigint;
  logStartOffset: bigint;
  private dirTarget: FdTarget | null = null;
  private readonly logs = new Set<FileLog>();
  private readonly fs: FileSystem;
  private readonly hooks: FileHooks;
  /** Told (once per failure) that this partition's durability was lost, or that it must be reopened from disk ('swap'). */
  private durabilityListener: ((path: string, err: unknown, what?: 'fsync' | 'swap') => void) | null = null;
  /** Ignores further losses until the partition recovered (a failed round reports each of its files). */
  private lost = false;
  /**
   * Cleaned segments report nothing until they are swapped in: a failed clean is only
   * abandoned (and counted and logged once, by the storage: IoFaults.cleanerFailed).
   */
  private readonly quietHooks: FileHooks;
  private cleanShutdown: boolean;
  /** Logs a recovery must cut back (path → what an fsync covered), kept until done so a failed attempt's retry knows. */
  private readonly pendingTruncations = new Map<string, number>();

  constructor(readonly dir: string, private readonly ctx: FileStoreContext) {
    this.fs = ctx.fs;
    this.recoveryPoint = ctx.recoveryPoint < 0n ? 0n : ctx.recoveryPoint;
    this.logStartOffset = ctx.logStartOffset;
    this.cleanShutdown = ctx.cleanShutdown;
    this.hooks = {
      writeFailed: (path, what, err) => ctx.faults.writeFailed(path, what, err),
      durabilityLost: (target, err) => {
        if (this.lost) return;
        this.lost = true;
        // Every file of the partition, not only this one: an append to a newer segment must
        // not be acknowledged while older data before it may be gone.
        for (const log of this.logs) log.failure ??= err as Error;
        if (this.dirTarget) this.dirTarget.failure ??= err as Error;
        this.durabilityListener?.(target.path, err);
      },
    };
    this.quietHooks = { writeFailed: () => undefined, durabilityLost: () => undefined };
  }

  onDurabilityLost(listener: (path: string, err: unknown, what?: 'fsync' | 'swap') => void): void {
    this.durabilityListener = listener;
  }

  /**
   * After a lost fsync: closes every file, cuts each log back to what a successful fsync
   * covered (nothing acknowledged lies beyond: durability waits on the fsync of every file
   * of the partition), then opens the partition again as after a crash (CRC-checked
   * recovery from the recovery point, completeSwaps first). Throws when the disk refuses
   * even that; a retry picks up where it stopped. After a swap that could not be undone,
   * the same reopen without the cut.
   */
  recover(): PartitionState {
    for (const log of this.logs) {
      // Only files an fsync failure touched (a reopen after an incomplete swap cuts nothing).
      if (!log.failure || log.syncedLength >= log.size) continue;
      this.pendingTruncations.set(log.path, log.syncedLength);
      // A cut segment is recovered (CRC-checked, indexes rebuilt) on open.
      const base = BigInt(basename(log.path).slice(0, 20));
      if (this.recoveryPoint > base) this.recoveryPoint = base;
    }
    this.close();
    for (const [path, length] of this.pendingTruncations) {
      const fd = this.fs.openSync(path, 'a+');
      try {
        if (this.fs.fstatSync(fd).size > length) this.fs.ftruncateSync(fd, length);
        this.fs.fsyncSync(fd);
      } finally {
        this.fs.closeSync(fd);
      }
      this.pendingTruncations.delete(path);
    }
    this.cleanShutdown = false;
    this.lost = false;
    return this.open();
  }

  /** Settles once every file of the partition is durable as it is now (after recovery). */
  syncAll(): Promise<void> {
    const targets: SyncTarget[] = [...this.logs];
    if (this.dirTarget) targets.push(this.dirTarget);
    for (const t of targets) this.ctx.scheduler.markDirty(t);
    return Promise.all(targets.map((t) => this.ctx.scheduler.waitFor(t))).then(() => undefined);
  }

  open(): PartitionState {
    const fs = this.fs;
    fs.mkdirSync(this.dir);
    this.dirTarget = new FdTarget(fs, fs.openSync(this.dir, 'r'), this.dir, this.hooks, true);
    // Before anything else: finish or undo a log cleaner swap a crash interrupted.
    completeSwaps(fs, this.dir);
    const names = fs.readdirSync(this.dir);
    const logs = new Set<string>();
    const snapshots: ProducerSnapshotFile[] = [];
    for (const name of names) {
      const m = SEGMENT_FILE.exec(name);
      if (m?.[2] === 'log') logs.add(m[1]!);
    }
    for (const name of names) {
      const m = SEGMENT_FILE.exec(name);
      if (!m) {
        // Leftovers of interrupted atomic writes.
        if (name.endsWith('.tmp')) unlinkIfExists(fs, join(this.dir, name));
        continue;
      }
      const path = join(this.dir, name);
      if (m[2] === 'snapshot') snapshots.push({ offset: BigInt(m[1]!), load: () => readIfExists(fs, path) });
      else if (m[2] !== 'log' && !logs.has(m[1]!)) unlinkIfExists(fs, path); // indexes of a deleted segment
    }
    const segments = [...logs].sort().map((stem) => this.openSegment(BigInt(stem), false));
    snapshots.sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
    return { segments, cleanShutdown: this.cleanShutdown, recoveryPoint: this.recoveryPoint, logStartOffset: this.logStartOffset, snapshots };
  }

  private stem(baseOffset: bigint): string {
    return join(this.dir, segmentName(baseOffset));
  }

  private openSegment(baseOffset: bigint, create: boolean): FileSegmentFiles {
    const stem = this.stem(baseOffset);
    const path = `${stem}.log`;
    const fd = this.fs.openSync(path, 'a+');
    const log = new FileLog(this.fs, path, fd, this.hooks);
    if (create && log.size > 0) log.truncate(0);
    this.logs.add(log);
    // Whole milliseconds, as Java's File.lastModified(): mtimeMs has a fraction, which the
    // cleaner's and retention's bigint arithmetic cannot take.
    return new FileSegmentFiles(this.fs, baseOffset, log, create ? -1 : Math.floor(this.fs.fstatSync(fd).mtimeMs), stem);
  }

  createSegment(baseOffset: bigint): SegmentFiles {
    try {
      const files = this.openSegment(baseOffset, true);
      // Empty index files from the start, so the directory always looks like Kafka's.
      for (const ext of ['index', 'timeindex']) this.fs.closeSync(this.fs.openSync(`${this.stem(baseOffset)}.${ext}`, 'w'));
      this.ctx.scheduler.markDirty(this.dirTarget!);
      return files;
    } catch (err) {
      this.hooks.writeFailed(`${this.stem(baseOffset)}.log`, 'create segment', err);
      throw ioError(`creating segment ${segmentName(baseOffset)} in ${this.dir} failed`, err);
    }
  }

  deleteSegment(segment: SegmentFiles): void {
    const log = (segment as FileSegmentFiles).log;
    this.logs.delete(log);
    this.ctx.scheduler.release(log);
    const stem = this.stem(segment.baseOffset);
    // The log first: an index without its log is cleaned up at the next start.
    for (const ext of ['log', 'index', 'timeindex', 'txnindex']) unlinkIfExists(this.fs, `${stem}.${ext}`);
    this.ctx.scheduler.markDirty(this.dirTarget!);
  }

  createCleanedSegment(baseOffset: bigint, lastModifiedMs: number): SegmentFiles {
    const stem = this.stem(baseOffset);
    const path = `${stem}.log${CLEANED_SUFFIX}`;
    unlinkIfExists(this.fs, path);
    return new FileSegmentFiles(this.fs, baseOffset, new FileLog(this.fs, path, this.fs.openSync(path, 'a+'), this.quietHooks), lastModifiedMs, stem);
  }

  async finishCleanedSegment(cleaned: SegmentFiles, offsetIndex: Buffer, timeIndex: Buffer): Promise<void> {
    const files = cleaned as FileSegmentFiles;
    // The replaced group's modification time, as Kafka keeps it (time retention reads it).
    try {
      if (files.lastModifiedMs >= 0) this.fs.utimesSync(files.log.path, new Date(), new Date(files.lastModifiedMs));
      // All settled before a failure is thrown: the caller then closes the log and removes the
      // files, which must not happen under an fsync still running on them.
      const results = await Promise.allSettled([
        writeFileDurable(this.fs, `${files.stem}.index${CLEANED_SUFFIX}`, offsetIndex),
        writeFileDurable(this.fs, `${files.stem}.timeindex${CLEANED_SUFFIX}`, timeIndex),
        files.log.sync(),
      ]);
      for (const r of results) if (r.status === 'rejected') throw r.reason;
    } catch (err) {
      throw ioError(`writing the cleaned segment ${files.log.path} failed`, err);
    }
  }

  replaceSegments(old: readonly SegmentFiles[], cleaned: SegmentFiles): void {
    const files = cleaned as FileSegmentFiles;
    try {
      swapIntoPlace(this.fs, this.dir, files.stem, old.map((o) => (o as FileSegmentFiles).stem), !this.deferDeletes);
    } catch (err) {
      // Undone (swapIntoPlace): the directory is as before, the old segments serve on. Not
      // undone: their descriptors still read, but the directory holds half a swap, which
      // only a reopen resolves (completeSwaps) before anything else changes in it.
      if (err instanceof SwapIncompleteError) this.durabilityListener?.(files.stem, err, 'swap');
      throw ioError(`swapping the cleaned segment ${files.stem} into place failed`, err);
    }
    for (const o of old) {
      const log = (o as FileSegmentFiles).log;
      this.logs.delete(log);
      this.ctx.scheduler.release(log);
    }
    files.log.path = `${files.stem}.log`;
    files.log.hooks = this.hooks;
    this.logs.add(files.log);
    // The renames become durable with the next round, as created and deleted segments do (file-swap.ts says why that is safe).
    this.ctx.scheduler.markDirty(this.dirTarget!);
  }

  discardCleanedSegment(cleaned: SegmentFiles): void {
    const files = cleaned as FileSegmentFiles;
    files.log.close();
    this.removeCleaned(files.stem);
  }

  /**
   * Best effort: it runs after a failure, whose error is the one to report; what a failing
   * disk keeps is overwritten by the next clean of that segment or removed at the next open.
   */
  private removeCleaned(stem: string): void {
    for (const ext of ['log', 'index', 'timeindex']) {
      try {
        unlinkIfExists(this.fs, `${stem}.${ext}${CLEANED_SUFFIX}`);
      } catch {
        // See above.
      }
    }
  }

  readonly cleanerFiles: CleanerFileAccess = {
    logPath: (segment) => (segment as FileSegmentFiles).log.path,
    cleanedStem: (baseOffset) => this.stem(baseOffset),
    openCleanedSegment: (baseOffset, lastModifiedMs) => {
      const stem = this.stem(baseOffset);
      const path = `${stem}.log${CLEANED_SUFFIX}`;
      // Read-only: a cleaned segment is never appended to, and a missing file fails here instead of being created empty.
      return new FileSegmentFiles(this.fs, baseOffset, new FileLog(this.fs, path, this.fs.openSync(path, 'r'), this.quietHooks), lastModifiedMs, stem);
    },
    removeCleaned: (baseOffset) => this.removeCleaned(this.stem(baseOffset)),
    deferDeletes: () => {
      this.deferDeletes = true;
    },
    deletedPaths: (old) => deletedPaths(old.map((o) => (o as FileSegmentFiles).stem)),
  };
  /** replaceSegments leaves the old files (renamed .deleted) to the log cleaner's worker thread. */
  private deferDeletes = false;

  /** Writes a whole file and has the next round fsync it, closing it afterwards. */
  private writeWhole(path: string, data: Buffer): void {
    let target: FdTarget;
    try {
      target = new FdTarget(this.fs, this.fs.openSync(path, 'w'), path, this.hooks);
    } catch (err) {
      this.hooks.writeFailed(path, 'create', err);
      throw ioError(`creating ${path} failed`, err);
    }
    try {
      writeAllSync(this.fs, target.fd, data);
    } catch (err) {
      target.close();
      this.hooks.writeFailed(path, 'write', err);
      throw ioError(`writing ${path} failed`, err);
    }
    this.ctx.scheduler.markDirty(target);
    this.ctx.scheduler.afterNextRound(() => this.ctx.scheduler.release(target));
  }

  sealSegment(segment: SegmentFiles, offsetIndex: Buffer, timeIndex: Buffer, nextBase: bigint): void {
    const stem = this.stem(segment.baseOffset);
    this.writeWhole(`${stem}.index`, offsetIndex);
    this.writeWhole(`${stem}.timeindex`, timeIndex);
    this.ctx.scheduler.markDirty((segment as FileSegmentFiles).log);
    this.ctx.scheduler.markDirty(this.dirTarget!);
    // Only once the segment and its indexes are on disk may a restart skip recovering it.
    this.ctx.scheduler.afterNextRound((ok) => {
      if (!ok || nextBase <= this.recoveryPoint) return;
      this.recoveryPoint = nextBase;
      this.ctx.checkpointsChanged();
    });
  }

  appended(segment: SegmentFiles): Promise<void> {
    return this.ctx.scheduler.written((segment as FileSegmentFiles).log);
  }

  durableNow(segment: SegmentFiles): Promise<void> {
    return this.ctx.scheduler.waitFor((segment as FileSegmentFiles).log);
  }

  writeTxnIndex(segment: SegmentFiles, data: Buffer): void {
    const path = `${this.stem(segment.baseOffset)}.txnindex`;
    if (data.length > 0) this.writeWhole(path, data);
    else unlinkIfExists(this.fs, path);
  }

  writeProducerSnapshot(offset: bigint, data: Buffer): void {
    this.writeWhole(`${this.stem(offset)}.snapshot`, data);
    this.ctx.scheduler.markDirty(this.dirTarget!);
  }

  deleteProducerSnapshot(offset: bigint): void {
    unlinkIfExists(this.fs, `${this.stem(offset)}.snapshot`);
    if (this.dirTarget) this.ctx.scheduler.markDirty(this.dirTarget);
  }

  logStartOffsetChanged(logStartOffset: bigint): Promise<void> {
    if (logStartOffset === this.logStartOffset) return RESOLVED;
    this.logStartOffset = logStartOffset;
    return this.ctx.checkpointsChanged();
  }

  prepareClose(active: SegmentFiles, offsetIndex: Buffer, timeIndex: Buffer): void {
    const stem = this.stem(active.baseOffset);
    this.writeWhole(`${stem}.index`, offsetIndex);
    this.writeWhole(`${stem}.timeindex`, timeIndex);
    this.ctx.scheduler.markDirty((active as FileSegmentFiles).log);
    this.ctx.scheduler.markDirty(this.dirTarget!);
    // After a clean shutdown only the active segment is recovered if the next run crashes.
    if (active.baseOffset > this.recoveryPoint) this.recoveryPoint = active.baseOffset;
  }

  close(): void {
    for (const log of this.logs) this.ctx.scheduler.release(log);
    this.logs.clear();
    if (this.dirTarget) this.ctx.scheduler.release(this.dirTarget);
    this.dirTarget = null;
  }

  /**
   * Kafka's way: rename the directory to `<topic>-<partition>.<id>-delete` first (atomic, so
   * a crash never leaves a half-deleted partition under the live name), then remove it;
   * leftovers are removed at the next open.
   */
  destroy(): void {
    this.close();
    const parent = dirname(this.dir);
    const suffix = `.${randomBytes(16).toString('hex')}-delete`;
    const name = basename(this.dir);
    const doomed = join(parent, `${name.slice(0, 255 - suffix.length)}${suffix}`);
    this.fs.renameSync(this.dir, doomed);
    fsyncDirSync(this.fs, parent);
    this.fs.rmSync(doomed);
  }
}
