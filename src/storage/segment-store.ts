/**
 * The small byte-storage abstraction under the partition log. All Kafka logic (validation,
 * offsets, indexes, producer state, roll, retention, recovery) lives in PartitionLogImpl;
 * an engine only stores bytes: `file-segment.ts` in Kafka's on-disk layout,
 * `memory-segment.ts` in buffers. So the memory engine runs the same log code as the file one.
 */

/** A segment's log: bytes appended at the end, read at any position. */
export interface LogBytes {
  readonly size: number;
  /** Appends all of `data`. On failure the size is unchanged and StorageError(KAFKA_STORAGE_ERROR) is thrown. */
  append(data: Buffer): void;
  /**
   * Exactly the bytes [position, position + length), in one buffer (a copy, into
   * `allocate(length)` when given, or an immutable view).
   */
  read(position: number, length: number, allocate?: (length: number) => Buffer): Buffer;
  /**
   * Up to `length` bytes from `position` (fewer at the end of the log), possibly in
   * `scratch`: valid until the next call. For walking batch headers without allocating.
   */
  peek(position: number, length: number, scratch: Buffer): Buffer;
  /** Drops everything from `size` on (recovery of a torn tail). */
  truncate(size: number): void;
}

/** One segment's persisted pieces, named by its base offset. */
export interface SegmentFiles {
  readonly baseOffset: bigint;
  readonly log: LogBytes;
  /** When the log was last written (file mtime when loaded; -1 for a new segment), for time retention of segments without timestamps. */
  readonly lastModifiedMs: number;
  /** The stored offset / time index (Kafka's file format), or null when missing. */
  loadOffsetIndex(): Buffer | null;
  loadTimeIndex(): Buffer | null;
  /** The stored aborted-transaction index (Kafka's `.txnindex`), or null when missing. */
  loadTxnIndex(): Buffer | null;
}

/** What an engine found when it opened a partition. */
export interface PartitionState {
  /** Segments oldest first (by base offset). */
  readonly segments: SegmentFiles[];
  /** The previous run closed cleanly: every segment and index can be trusted. */
  readonly cleanShutdown: boolean;
  /** Segments below this base offset were fsynced with their indexes (Kafka's recovery point). */
  readonly recoveryPoint: bigint;
  /** The persisted log start offset, or -1 when none. */
  readonly logStartOffset: bigint;
  /** Producer state snapshots by offset, newest last. */
  readonly snapshots: readonly ProducerSnapshotFile[];
}

export interface ProducerSnapshotFile {
  readonly offset: bigint;
  load(): Buffer | null;
}

/**
 * What the log cleaner's worker thread (cleaner-worker.ts) needs of a partition whose
 * segments are files: it reads the sealed segments and writes the cleaned one itself, by
 * path, through the engine's FileSystem rebuilt in its thread; the main thread then opens
 * the result and swaps it in through the store.
 */
export interface CleanerFileAccess {
  /** The path of a live segment's log file. */
  logPath(segment: SegmentFiles): string;
  /** The cleaned segment for `baseOffset` without extension: the worker writes `<stem>.log.cleaned`, `.index.cleaned`, `.timeindex.cleaned`. */
  cleanedStem(baseOffset: bigint): string;
  /**
   * Opens the cleaned segment the worker wrote (complete and fsynced) for replaceSegments;
   * `lastModifiedMs` as createCleanedSegment's. discardCleanedSegment undoes it.
   */
  openCleanedSegment(baseOffset: bigint, lastModifiedMs: number): SegmentFiles;
  /** Removes whatever a failed or abandoned worker left of the cleaned segment for `baseOffset`. */
  removeCleaned(baseOffset: bigint): void;
  /**
   * From now on replaceSegments leaves the replaced segments' files renamed `.deleted` (and
   * their descriptors closed) for the caller to remove, at `deletedPaths` (a crash or close
   * before that leaves them to the next open, which removes them).
   */
  deferDeletes(): void;
  deletedPaths(old: readonly SegmentFiles[]): string[];
}

/** One partition's storage: segments plus the small files that let a restart skip work. */
export interface PartitionStore {
  /** Present when the log cleaner may clean this partition in its worker thread (file engine). */
  readonly cleanerFiles?: CleanerFileAccess;
  open(): PartitionState;
  createSegment(baseOffset: bigint): SegmentFiles;
  deleteSegment(segment: SegmentFiles): void;
  /**
   * A segment stopped being active (roll) or was recovered: persist its final indexes,
   * fsync it, and only then let restarts skip it by moving the recovery point to `nextBase`.
   */
  sealSegment(segment: SegmentFiles, offsetIndex: Buffer, timeIndex: Buffer, nextBase: bigint): void;
  /**
   * Log cleaner, step one: a segment for a cleaned group, outside the live set (Kafka's
   * `.cleaned` files); `lastModifiedMs` is the replaced group's, as Kafka keeps it.
   */
  createCleanedSegment(baseOffset: bigint, lastModifiedMs: number): SegmentFiles;
  /** Step two: persist the cleaned segment's indexes and make it all durable. */
  finishCleanedSegment(cleaned: SegmentFiles, offsetIndex: Buffer, timeIndex: Buffer): Promise<void>;
  /**
   * Step three: `cleaned` takes the place of `old` (which it may share a base offset with),
   * so that a crash at any moment leaves either the old or the new segments. `cleaned`
   * becomes a live segment; the old ones are closed and removed.
   */
  replaceSegments(old: readonly SegmentFiles[], cleaned: SegmentFiles): void;
  /** The cleaning was abandoned: remove the cleaned segment's files. */
  discardCleanedSegment(cleaned: SegmentFiles): void;
  /** Durability of what was appended to `segment` so far, under the flush policy. */
  appended(segment: SegmentFiles): Promise<void>;
  /** Settles when everything appended to `segment` so far is durable, whatever the policy. */
  durableNow(segment: SegmentFiles): Promise<void>;
  /**
   * Persists a segment's aborted-transaction index whole (empty: removes it), before
   * sealSegment or prepareClose, whose flush round makes it durable with the segment.
   */
  writeTxnIndex(segment: SegmentFiles, data: Buffer): void;
  writeProducerSnapshot(offset: bigint, data: Buffer): void;
  deleteProducerSnapshot(offset: bigint): void;
  /** Persists the log start offset (file engine: its checkpoint); settles when that is durable, rejects when the write failed. */
  logStartOffsetChanged(logStartOffset: bigint): Promise<void>;
  /** Clean shutdown, step one: persist the active segment's indexes (synced by the storage's final flush). */
  prepareClose(active: SegmentFiles, offsetIndex: Buffer, timeIndex: Buffer): void;
  /** Closes every file (after the final flush). */
  close(): void;
  /**
   * `listener` is told, once per failure, that an fsync of the partition's files failed (its
   * data is not known durable), or ('swap') that a log cleaner swap failed half way and could
   * not be undone: either way the partition must be reopened from disk (recover()).
   */
  onDurabilityLost(listener: (path: string, err: unknown, what?: 'fsync' | 'swap') => void): void;
  /**
   * After a lost fsync: closes everything, drops what no successful fsync covered, and opens
   * the partition again as after a crash. Throws when the disk refuses.
   */
  recover(): PartitionState;
  /** Settles once every file of the partition is durable as it is now. */
  syncAll(): Promise<void>;
  /** The topic was deleted: close and remove everything. */
  destroy(): void;
}
