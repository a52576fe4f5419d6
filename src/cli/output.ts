/**
 * Buffered stdout for commands that print a lot (`consume`): records are formatted straight
 * into a byte buffer (UTF-8 keys and values are copied, never decoded to strings) and
 * written in large chunks, one write per poll or per 256 KiB. A chunk written to stdout goes
 * back to a small free list once written, so a long run allocates a few chunks, not one per
 * flush. The writer waits for 'drain'
 * when the stream's buffer is full, and a reader that went away (`brook consume | head`:
 * EPIPE) ends the output quietly instead of crashing the process: `closed` turns true and
 * the command stops as after its last record.
 */
import type { Writable } from 'node:stream';
import type { RecordSink } from './record-format.js';

const CHUNK_BYTES = 256 * 1024;
const NEARLY_FULL = CHUNK_BYTES - 16 * 1024;
/** Written chunks kept for reuse (more are in the stream's hands only while it is backed up). */
const SPARE_CHUNKS = 4;
/** Up to this length, ascii() copies characters itself. */
const SMALL = 24;

export class BufferedOutput implements RecordSink {
  /** Filled chunks not yet written. */
  private filled: Buffer[] = [];
  private buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private readonly spare: Buffer[] = [];
  private used = 0;
  private readerGone = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  /**
   * Whether the stream is done with a chunk's bytes when its write callback runs: true of
   * stdout (a file, pipe or TTY: the bytes are in the kernel), not of every Writable (a
   * PassThrough hands the very Buffer on).
   */
  private readonly reuseChunks: boolean;

  constructor(private readonly stream: Writable = process.stdout) {
    this.reuseChunks = stream === process.stdout;
    stream.on('error', this.onError);
  }

  /** The reader closed the pipe: nothing more will be written. */
  get closed(): boolean {
    return this.readerGone;
  }

  /**
   * A chunk is full or nearly (another record may not fit): the caller should flush before
   * formatting more. Flushing a little early keeps records from spilling into a next chunk
   * that would be written almost empty.
   */
  get full(): boolean {
    return this.filled.length > 0 || this.used >= NEARLY_FULL;
  }

  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.reserve(s.length * 3);
    this.used += this.buffer.write(s, this.used);
  }

  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    // Short strings (a newline, a number) byte by byte: cheaper than a call into C++.
    if (n <= SMALL) {
      const buf = this.buffer;
      let at = this.used;
      for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
      this.used = at;
    } else {
      this.used += this.buffer.write(s, this.used, 'latin1');
    }
  }

  bytes(buf: Buffer, start: number, length: number): void {
    this.reserve(length);
    // Short fields byte by byte, as ascii(): cheaper than a call into C++.
    if (length <= SMALL) {
      const out = this.buffer;
      let at = this.used;
      for (let i = start, end = start + length; i < end; i++) out[at++] = buf[i]!;
      this.used = at;
    } else {
      this.used += buf.copy(this.buffer, this.used, start, start + length);
    }
  }

  integer(n: number): void {
    if (!Number.isSafeInteger(n)) {
      this.ascii(String(n));
      return;
    }
    // Digits written in place: no string per number.
    this.reserve(17);
    const buf = this.buffer;
    let at = this.used;
    if (n < 0) {
      buf[at++] = 0x2d;
      n = -n;
    }
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    const end = at + digits;
    for (let i = end - 1; i >= at; i--) {
      const q = Math.floor(n / 10);
      buf[i] = 0x30 + (n - q * 10);
      n = q;
    }
    this.used = end;
  }

  /** Writes what is buffered; resolves once the stream can take more (or the reader is gone). */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.used > 0) this.filled.push(this.buffer.subarray(0, this.used));
    const chunks = this.filled;
    // Written chunks belong to the stream until its callback says it is done with them.
    this.filled = [];
    if (this.used > 0) {
      this.buffer = this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
      this.used = 0;
    }
    if (chunks.length === 0 || this.readerGone) return;
    let ok = true;
    for (const chunk of chunks) ok = this.stream.write(chunk, () => this.recycle(chunk));
    if (ok) return;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      this.stream.once('drain', this.onDrain);
    });
    if (this.failure) throw this.failure;
  }

  /** Stops listening to the stream (after the last flush); a late EPIPE still must not crash the process. */
  close(): void {
    this.stream.off('drain', this.onDrain);
    this.stream.off('error', this.onError);
    this.stream.on('error', ignoreEpipe);
  }

  private reserve(n: number): void {
    if (this.used + n <= this.buffer.length) return;
    if (this.used > 0) this.filled.push(this.buffer.subarray(0, this.used));
    this.buffer = (n <= CHUNK_BYTES ? this.spare.pop() : undefined) ?? Buffer.allocUnsafe(Math.max(CHUNK_BYTES, n));
    this.used = 0;
  }

  private recycle(chunk: Buffer): void {
    if (!this.reuseChunks || chunk.byteOffset !== 0 || chunk.buffer.byteLength !== CHUNK_BYTES || this.spare.length >= SPARE_CHUNKS) return;
    this.spare.push(Buffer.from(chunk.buffer, 0, CHUNK_BYTES));
  }

  private readonly onDrain = (): void => {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  };

  private readonly onError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') this.readerGone = true;
    else this.failure ??= err;
    this.onDrain();
  };
}

function ignoreEpipe(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE') throw err;
}

