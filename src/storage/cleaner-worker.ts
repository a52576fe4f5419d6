/**
 * The log cleaner's worker thread (started by cleaner-thread.ts; the protocol is there):
 * builds the offset map of a dirty section and filters groups of sealed segments through it
 * into cleaned segments, the same per-batch code as the in-thread cleaner (cleaner-filter.ts,
 * Segment's index bookkeeping).
 *
 * This thread does its own file I/O, through the storage's FileSystem rebuilt here from the
 * request (`FileSystem.forThread`: a module and data; node:fs itself when a request carries
 * none, so nothing is added to the hot loop): it opens the sealed segments by path and reads
 * them; it writes, fsyncs and sets the mtime of `<stem>.log.cleaned`, `.index.cleaned` and
 * `.timeindex.cleaned`; and it removes the `.deleted` files of a swap once the main thread has
 * closed them. So a test's disk faults reach this thread as they reach the event loop.
 * Everything after that (opening the result, the swap, removing leftovers) is the main
 * thread's.
 *
 * Sealed segments never change, so reading them by path is safe: a segment deleted meanwhile
 * (retention, topic deletion) fails to open or is read whole from its open descriptor, and
 * the main thread drops the result because the segment is no longer in the log. A failure
 * answers the request with the error and removes this request's partial `.cleaned` files;
 * the storage closing (a flag in shared memory, checked between batches) answers "aborted".
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LAST_OFFSET_DELTA_OFFSET, LENGTH_OFFSET, LOG_OVERHEAD, MAX_TIMESTAMP_OFFSET, MIN_BATCH_LENGTH } from '../protocol/records/index.js';
import { addBatchToMap, filterBatch, OffsetMap, type FilterContext } from './cleaner-filter.js';
import { lowerThreadPriority } from './background-priority.js';
import { DutyCycle } from './duty-cycle.js';
import type { CleanerReply, CleanerRequest, GroupRequest, GroupResult, MapRequest, MapResult, SegmentRef, WorkerData } from './cleaner-thread.js';
import { CLEANED_SUFFIX } from './file-swap.js';
import { nodeFileSystem, type FileSystem, type ThreadFileSystemModule } from './file-system.js';
import { unlinkIfExists, writeAllSync } from './fs-util.js';
import { Segment } from './segment.js';
import type { LogBytes } from './segment-store.js';

const abortFlag = new Int32Array((workerData as WorkerData).abort);

/**
 * The cleaner is background work: when the cores are busy (2 of them, the broker's event
 * loop, clients, other processes), the event loop's requests should get the CPU first
 * (background-priority.ts: SCHED_IDLE on Linux, else nice 10).
 */
lowerThreadPriority();
/**
 * At most a quarter of a core: 1 ms of work, then 3 ms of sleep (duty-cycle.ts says why).
 * Measured at 1,000 commits/s while a first pass compacted ~330 MB of `__consumer_offsets` in
 * 1 MiB segments on 2 cores (BENCHMARKS.md, scenario 7b): the commit tail follows how much CPU
 * the worker takes more than its priority. Commit p99 during cleaning, medians of 6
 * interleaved runs on a tmpfs: 6.4 ms at 2 ms in 4 (nice 10), 5.0 at 1 in 4, 7.7 with
 * SCHED_IDLE and no rest; later, on a quiet host, 4.1 ms at 1 in 4 (nice 10) and 3.3 with
 * SCHED_IDLE too, against 2.8 with the cleaner off. The pass takes about 1.6 times as long as
 * at 2 in 4 (7 s for 330 MB).
 */
const WORK_MS = 1;
const REST_MS = 3;
/** The rest ends early when the storage closes (the abort flag is notified). */
const dutyCycle = new DutyCycle({ workMs: WORK_MS, restMs: REST_MS, now: () => performance.now(), sleep: (ms) => void Atomics.wait(abortFlag, 0, 0, ms) });
/** Bytes read from a segment file at a time (a batch larger than this is read whole). */
const READ_CHUNK = 1024 * 1024;
/** Bytes of cleaned batches gathered before one write(2). */
const WRITE_CHUNK = 1024 * 1024;

class Aborted extends Error {}

let map: OffsetMap | null = null;
const readBuffer = Buffer.allocUnsafe(READ_CHUNK);
/** The file system of the request being handled. */
let fs: FileSystem = nodeFileSystem;
/** Modules of the file systems requests named (FileSystem.forThread), by URL. */
const fileSystemModules = new Map<string, ThreadFileSystemModule>();

/** Calls `fn` with every whole batch of a segment file, in order (views into a reused buffer: valid during the call only). */
function forEachBatch(segment: SegmentRef, fn: (batch: Buffer) => void): void {
  const fd = fs.openSync(segment.path, 'r');
  try {
    let buf = readBuffer;
    let bufStart = 0; // file position of buf[0]
    let bufEnd = 0; // file position after the last byte in buf
    let position = 0;
    const fill = (need: number): void => {
      if (need > buf.length) buf = Buffer.allocUnsafe(need);
      const want = Math.min(buf.length, segment.size - position);
      let got = 0;
      while (got < want) {
        const n = fs.readSync(fd, buf, got, want - got, position + got);
        if (n === 0) break;
        got += n;
      }
      bufStart = position;
      bufEnd = position + got;
    };
    while (position + LOG_OVERHEAD <= segment.size) {
      dutyCycle.pace();
      if (Atomics.load(abortFlag, 0) !== 0) throw new Aborted();
      if (position + LOG_OVERHEAD > bufEnd) fill(LOG_OVERHEAD);
      if (position + LOG_OVERHEAD > bufEnd) break;
      const length = buf.readInt32BE(position - bufStart + LENGTH_OFFSET);
      if (length < MIN_BATCH_LENGTH) throw new Error(`${segment.path}: batch length ${length} at ${position}`);
      const size = LOG_OVERHEAD + length;
      if (position + size > segment.size) break;
      if (position + size > bufEnd) {
        fill(size);
        if (position + size > bufEnd) break;
      }
      fn(buf.subarray(position - bufStart, position - bufStart + size));
      position += size;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function buildMap(request: MapRequest): MapResult {
  map = new OffsetMap();
  let segments = 0;
  for (const segment of request.segments) {
    if (segments > 0 && map.size >= request.maxEntries) break;
    forEachBatch(segment, (batch) => addBatchToMap(map!, batch, request.from, request.aborted));
    segments++;
  }
  return { segments, keys: map.size };
}

/** The cleaned log file, written through a buffer; a Segment does the index bookkeeping over it. */
class CleanedLog implements LogBytes {
  private readonly buf = Buffer.allocUnsafe(WRITE_CHUNK);
  private buffered = 0;
  private written = 0;

  constructor(readonly fd: number) {}

  get size(): number {
    return this.written + this.buffered;
  }

  append(data: Buffer): void {
    if (this.buffered + data.length > this.buf.length) this.flush();
    if (data.length > this.buf.length) {
      this.writeAll(data);
      return;
    }
    data.copy(this.buf, this.buffered);
    this.buffered += data.length;
  }

  flush(): void {
    if (this.buffered === 0) return;
    this.writeAll(this.buf.subarray(0, this.buffered));
    this.buffered = 0;
  }

  private writeAll(data: Buffer): void {
    writeAllSync(fs, this.fd, data);
    this.written += data.length;
  }

  read(): Buffer {
    throw new Error('the cleaned log is write-only here');
  }

  peek(): Buffer {
    throw new Error('the cleaned log is write-only here');
  }

  truncate(): void {
    throw new Error('the cleaned log is write-only here');
  }
}

function writeDurable(path: string, data: Buffer): void {
  const fd = fs.openSync(path, 'w');
  try {
    writeAllSync(fs, fd, data);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Best effort: the request's own failure is what the caller needs; the main thread and the next open remove what is left. */
function removeCleaned(stem: string): void {
  for (const ext of ['log', 'index', 'timeindex']) {
    try {
      unlinkIfExists(fs, `${stem}.${ext}${CLEANED_SUFFIX}`);
    } catch {
      // Left for the main thread's removeCleaned, or the next open.
    }
  }
}

function cleanGroup(request: GroupRequest): GroupResult {
  if (map === null) throw new Error('no offset map: a group request before its map request');
  map.latestOffset = request.latestOffset;
  const ctx: FilterContext = { map, nowMs: request.nowMs, deleteRetentionMs: request.deleteRetentionMs, activeProducers: request.activeProducers };
  const logPath = `${request.stem}.log${CLEANED_SUFFIX}`;
  const fd = fs.openSync(logPath, 'w');
  let done = false;
  try {
    const log = new CleanedLog(fd);
    const cleaned = new Segment({
      baseOffset: request.baseOffset, log, lastModifiedMs: request.lastModifiedMs, loadOffsetIndex: () => null, loadTimeIndex: () => null, loadTxnIndex: () => null,
    }, request.nowMs);
    let removed = 0;
    let horizon = Infinity;
    for (const segment of request.segments) {
      forEachBatch(segment, (batch) => {
        const result = filterBatch(batch, ctx);
        removed += result.recordsRemoved;
        if (result.deleteHorizonMs !== null) horizon = Math.min(horizon, Number(result.deleteHorizonMs));
        if (result.bytes === null) return;
        const out = result.bytes;
        const position = log.size;
        log.append(out);
        const lastOffset = out.readBigInt64BE(0) + BigInt(out.readInt32BE(LAST_OFFSET_DELTA_OFFSET));
        cleaned.onAppended(position, out.length, lastOffset, out.readBigInt64BE(MAX_TIMESTAMP_OFFSET), request.indexIntervalBytes);
      });
    }
    log.flush();
    cleaned.finalizeTimeIndex();
    const offsetIndex = cleaned.offsetIndex.bytes();
    const timeIndex = cleaned.timeIndex.bytes();
    writeDurable(`${request.stem}.index${CLEANED_SUFFIX}`, offsetIndex);
    writeDurable(`${request.stem}.timeindex${CLEANED_SUFFIX}`, timeIndex);
    // The replaced group's modification time, as Kafka keeps it (time retention reads it).
    if (request.lastModifiedMs >= 0) fs.utimesSync(logPath, new Date(), new Date(request.lastModifiedMs));
    fs.fdatasyncSync(fd);
    done = true;
    return {
      // Copies of exactly their size: a structured clone of a view sends its whole ArrayBuffer.
      size: log.size, offsetIndex: new Uint8Array(offsetIndex), timeIndex: new Uint8Array(timeIndex), nextOffset: cleaned.nextOffset, maxTimestamp: cleaned.maxTimestamp,
      offsetOfMaxTimestamp: cleaned.offsetOfMaxTimestamp, firstBatchTimestamp: cleaned.firstBatchTimestamp, recordsRemoved: removed, horizon,
    };
  } finally {
    fs.closeSync(fd);
    if (!done) removeCleaned(request.stem);
  }
}

/** The test hook (cleanerThreadHooks.inject); true when the request gets no answer from here on. */
function misbehave(request: CleanerRequest): boolean {
  const how = request.inject!.how;
  // After part of the work, so the thread leaves what a real failure would: a partial .cleaned file.
  if (request.op === 'group') {
    const fd = fs.openSync(`${request.stem}.log${CLEANED_SUFFIX}`, 'w');
    try {
      writeAllSync(fs, fd, Buffer.alloc(100));
    } finally {
      fs.closeSync(fd);
    }
  }
  switch (how) {
    case 'exit':
      process.exit(3);
      return true;
    case 'throw':
      // Uncaught, outside the request's try: the thread dies with an 'error' event, as a bug would make it.
      setImmediate(() => {
        throw new Error('injected cleaner worker crash');
      });
      return true;
    case 'stall':
      // Then the request is handled as usual: a map or group request must notice the abort at
      // its first batch; an unlink is done (50 ms later, so a close that does not wait for it
      // would end the thread first).
      parentPort!.postMessage({ id: request.id, stalled: true } satisfies CleanerReply);
      Atomics.wait(abortFlag, 0, 0);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      return false;
    case 'hang': {
      parentPort!.postMessage({ id: request.id, stalled: true } satisfies CleanerReply);
      const until = Date.now() + 60_000;
      while (Date.now() < until) {
        // Busy, deaf to the abort flag: only terminate() ends this.
      }
      return true;
    }
  }
}

function handle(request: CleanerRequest): unknown {
  dutyCycle.begin();
  switch (request.op) {
    case 'map':
      return buildMap(request);
    case 'group':
      return cleanGroup(request);
    case 'release':
      map = null;
      return null;
    case 'unlink': {
      // Every path, even after a failure (the first one is the answer).
      let failure: unknown = null;
      for (const path of request.paths) {
        try {
          unlinkIfExists(fs, path);
        } catch (err) {
          failure ??= err;
        }
      }
      if (failure !== null) throw failure;
      return null;
    }
  }
}

function errorReply(id: number, err: unknown): CleanerReply {
  const e = err as NodeJS.ErrnoException;
  return { id, error: { message: e?.message ?? String(err), code: e?.code, syscall: e?.syscall, path: e?.path, stack: e?.stack } };
}

function serve(request: CleanerRequest): void {
  if (request.inject && misbehave(request)) return;
  let reply: CleanerReply;
  try {
    // Copied, not transferred: the indexes are small, and a Buffer may share its ArrayBuffer with others (the pool).
    const result = handle(request);
    if (request.op === 'release') return;
    reply = { id: request.id, result };
  } catch (err) {
    reply = err instanceof Aborted ? { id: request.id, aborted: true } : errorReply(request.id, err);
  }
  parentPort!.postMessage(reply);
}

/** Requests waiting for a file system's module to load (in order: later ones wait behind them). */
let backlog: Promise<void> = Promise.resolve();
let waiting = 0;

parentPort!.on('message', (request: CleanerRequest) => {
  const spec = request.fileSystem;
  // The common case, synchronous: node:fs, or a file system whose module is loaded.
  if (waiting === 0 && (spec === undefined || fileSystemModules.has(spec.module))) {
    fs = spec === undefined ? nodeFileSystem : fileSystemModules.get(spec.module)!.fileSystemFor(spec.data);
    serve(request);
    return;
  }
  waiting++;
  backlog = backlog.then(async () => {
    try {
      if (spec !== undefined && !fileSystemModules.has(spec.module)) fileSystemModules.set(spec.module, await import(spec.module) as ThreadFileSystemModule);
      fs = spec === undefined ? nodeFileSystem : fileSystemModules.get(spec.module)!.fileSystemFor(spec.data);
    } catch (err) {
      if (request.op !== 'release') parentPort!.postMessage(errorReply(request.id, err));
      return;
    } finally {
      waiting--;
    }
    serve(request);
  });
});
