/**
 * The file engine's side of log cleaning, after Kafka's LocalLog.replaceSegments and the
 * swap handling of its LogLoader. A cleaned segment is written as
 * `<base>.log.cleaned` (with `.index.cleaned`, `.timeindex.cleaned`) and fsynced; then:
 *   1. its files are renamed `.cleaned` → `.swap` (from here a restart completes the swap);
 *   2. the replaced segments' files are renamed `.deleted`;
 *   3. the `.swap` files get their live names;
 *   4. the `.deleted` files are removed.
 * Every step is a rename or unlink, so a kill -9 between any two system calls leaves a
 * directory that `completeSwaps` (run at open) turns into either the old segments or the
 * new one: `.cleaned` and `.deleted` files are removed; a `.log.swap` replaces the live
 * segments whose base offsets fall in its offset range and takes its live name; `.swap`
 * index files without their `.log.swap` are leftovers of an interrupted step 1. A rename
 * that fails is undone by renames too (swapIntoPlace), the same ones backwards, so a crash
 * during the undo leaves such a directory as well.
 *
 * No directory fsync between the steps (Kafka's LocalLog.replaceSegments has none either):
 * the cleaned files' contents are fsynced before step 1, and a journaling file system
 * (ext4, xfs) persists renames and unlinks of one directory in the order they were made, so
 * after a power loss too the directory holds a prefix of the steps, which completeSwaps
 * handles as above (the renames inside one step already relied on that order). The caller
 * has the directory fsynced afterwards, off the event loop. The swap runs on the event loop
 * between appends, where three synchronous directory fsyncs per swap held it for several ms,
 * and the first clean of a large log swaps hundreds of groups.
 */
import { join } from 'node:path';
import { LAST_OFFSET_DELTA_OFFSET, LENGTH_OFFSET, LOG_OVERHEAD, MIN_BATCH_LENGTH } from '../protocol/records/index.js';
import type { FileSystem } from './file-system.js';
import { fsyncDirSync, unlinkIfExists } from './fs-util.js';

export const CLEANED_SUFFIX = '.cleaned';
export const SWAP_SUFFIX = '.swap';
export const DELETED_SUFFIX = '.deleted';
const EXTS = ['log', 'index', 'timeindex'] as const;
const SWAP_LOG = /^(\d{20})\.log\.swap$/;
const LIVE_LOG = /^(\d{20})\.log$/;

/**
 * Test hook: called after each step of a replacement with the step's name
 * ('cleaned', 'swap', 'deleted', 'live', 'done'), and when a rename failed, before ('failed')
 * and after ('undone') its undo; crash tests copy the directory there.
 */
export const swapSteps: { onStep: ((step: string, dir: string) => void) | null } = { onStep: null };

/**
 * A swap whose rename failed and whose undo failed too: the directory holds some prefix of
 * the steps (which completeSwaps resolves into the old or the new segments), and nothing may
 * change in it before that is done: the file engine reopens the partition.
 */
export class SwapIncompleteError extends Error {
  readonly code = 'ERR_SWAP_INCOMPLETE' as const;
  constructor(message: string, readonly undoFailure: unknown, options: { cause: unknown }) {
    super(message, options);
  }
}

/** The `.deleted` names step 2 gives the files of `oldStems`. */
export function deletedPaths(oldStems: readonly string[]): string[] {
  return oldStems.flatMap((stem) => EXTS.map((ext) => `${stem}.${ext}${DELETED_SUFFIX}`));
}

/**
 * Steps 1-4 above; the caller fsyncs `dir` afterwards. `cleanedStem` and `oldStems` are paths
 * without extension. `unlinkDeleted` false leaves step 4 to the caller (deletedPaths): the
 * log cleaner has its worker thread unlink them, after the old descriptors are closed, as
 * freeing a segment's blocks is the slow part of a swap (Kafka deletes them asynchronously).
 *
 * A rename that fails (steps 1-3) is undone: the renames made so far are reversed, newest
 * first, and its error is thrown, the directory as it was before (the old segments live, the
 * `.cleaned` files for the caller to remove), so the log serves on from the old segments and
 * a later clean starts afresh. Without the undo, a `.log.swap` left behind would replace, at
 * the next open, whatever segments hold its offsets by then (a later clean's or retention's
 * work). When the undo fails too, SwapIncompleteError. A failed unlink of step 4 is left to
 * the next open (the swap is complete; only space is held).
 */
export function swapIntoPlace(fs: FileSystem, dir: string, cleanedStem: string, oldStems: readonly string[], unlinkDeleted = true): void {
  const renamed: [from: string, to: string][] = [];
  const rename = (from: string, to: string, mayBeMissing = false): void => {
    try {
      fs.renameSync(from, to);
    } catch (err) {
      if (mayBeMissing && (err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    renamed.push([from, to]);
  };
  swapSteps.onStep?.('cleaned', dir);
  try {
    for (const ext of ['index', 'timeindex', 'log']) rename(`${cleanedStem}.${ext}${CLEANED_SUFFIX}`, `${cleanedStem}.${ext}${SWAP_SUFFIX}`);
    swapSteps.onStep?.('swap', dir);
    for (const stem of oldStems) for (const ext of EXTS) rename(`${stem}.${ext}`, `${stem}.${ext}${DELETED_SUFFIX}`, true);
    swapSteps.onStep?.('deleted', dir);
    for (const ext of EXTS) rename(`${cleanedStem}.${ext}${SWAP_SUFFIX}`, `${cleanedStem}.${ext}`);
  } catch (err) {
    swapSteps.onStep?.('failed', dir);
    try {
      for (let i = renamed.length - 1; i >= 0; i--) fs.renameSync(renamed[i]![1], renamed[i]![0]);
    } catch (undo) {
      throw new SwapIncompleteError(`swapping ${cleanedStem} in failed and undoing it failed too (${(undo as Error).message})`, undo, { cause: err });
    }
    swapSteps.onStep?.('undone', dir);
    throw err;
  }
  swapSteps.onStep?.('live', dir);
  if (unlinkDeleted) {
    for (const path of deletedPaths(oldStems)) {
      try {
        unlinkIfExists(fs, path);
      } catch {
        // Removed at the next open (completeSwaps).
      }
    }
  }
  swapSteps.onStep?.('done', dir);
}

function renameIfExists(fs: FileSystem, from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The offset after the last whole batch of a log file (its base offset + 1 when it holds none). */
function nextOffsetOf(fs: FileSystem, path: string, baseOffset: bigint): bigint {
  const fd = fs.openSync(path, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const header = Buffer.alloc(LAST_OFFSET_DELTA_OFFSET + 4);
    let next = baseOffset + 1n;
    let position = 0;
    while (position + header.length <= size) {
      if (fs.readSync(fd, header, 0, header.length, position) < header.length) break;
      const length = header.readInt32BE(LENGTH_OFFSET);
      if (length < MIN_BATCH_LENGTH || position + LOG_OVERHEAD + length > size) break;
      next = header.readBigInt64BE(0) + BigInt(header.readInt32BE(LAST_OFFSET_DELTA_OFFSET)) + 1n;
      position += LOG_OVERHEAD + length;
    }
    return next;
  } finally {
    fs.closeSync(fd);
  }
}

/** Finishes or undoes a replacement interrupted by a crash (see the module comment). Returns whether anything was done. */
export function completeSwaps(fs: FileSystem, dir: string): boolean {
  let changed = false;
  const names = fs.readdirSync(dir);
  for (const name of names) {
    if (name.endsWith(CLEANED_SUFFIX) || name.endsWith(DELETED_SUFFIX)) {
      unlinkIfExists(fs, join(dir, name));
      changed = true;
    }
  }
  const live = names.map((n) => LIVE_LOG.exec(n)?.[1]).filter((s): s is string => s !== undefined);
  for (const name of names) {
    const m = SWAP_LOG.exec(name);
    if (!m) continue;
    const stem = join(dir, m[1]!);
    const base = BigInt(m[1]!);
    const next = nextOffsetOf(fs, `${stem}.log${SWAP_SUFFIX}`, base);
    for (const other of live) {
      const offset = BigInt(other);
      if (offset >= base && offset < next) for (const ext of EXTS) unlinkIfExists(fs, join(dir, `${other}.${ext}`));
    }
    for (const ext of ['index', 'timeindex']) renameIfExists(fs, `${stem}.${ext}${SWAP_SUFFIX}`, `${stem}.${ext}`);
    fs.renameSync(`${stem}.log${SWAP_SUFFIX}`, `${stem}.log`);
    changed = true;
  }
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith(SWAP_SUFFIX)) {
      unlinkIfExists(fs, join(dir, name));
      changed = true;
    }
  }
  if (changed) fsyncDirSync(fs, dir);
  return changed;
}
