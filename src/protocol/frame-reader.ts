/**
 * Cuts a byte stream into frames (size prefix, then that many bytes) for a socket that
 * reads into memory the caller provides (Node's `onread`), so that bytes land where the
 * frames will live. A large frame, once its size prefix is in, gets a buffer of its own and
 * every later read goes straight into it: a multi-megabyte Fetch response is neither
 * gathered as chunks nor joined by a copy (FrameDecoder does both). Small frames share a
 * scratch buffer and are handed out as views of it; bytes handed out are never written
 * again (a used-up scratch buffer is replaced, not reused), so the views stay valid for as
 * long as their holders keep them (a consumer's records are views of their response).
 *
 * Sans-I/O: the caller reads into readBuffer(), then reports the byte count to received().
 */
import { DEFAULT_MAX_FRAME_BYTES, FrameTooLargeError } from './frame.js';

const SIZE_PREFIX = 4;
/** The scratch buffer for small frames and size prefixes. */
const SCRATCH_BYTES = 64 * 1024;
/** Below this much room a scratch buffer is replaced: tiny reads cost a syscall each. */
const MIN_READ_BYTES = 4 * 1024;
/** Frames (with prefix) above this get their own buffer instead of waiting in scratch. */
const OWN_BUFFER_ABOVE = SCRATCH_BYTES / 4;

export class FrameReader {
  private scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  /** End of the bytes received into scratch. */
  private writeAt = 0;
  /** Start of the first scratch byte not yet handed out in a frame. */
  private frameStart = 0;
  /** The incomplete large frame being read into its own buffer, and how much of it is in. */
  private large: Buffer | null = null;
  private largeFilled = 0;

  constructor(private readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {}

  /** Where the next read must put its bytes (never empty; may be smaller than what is pending). */
  readBuffer(): Buffer {
    if (this.large !== null) return this.large.subarray(this.largeFilled);
    const incomplete = this.writeAt - this.frameStart;
    const needed = incomplete >= SIZE_PREFIX ? SIZE_PREFIX + this.scratch.readInt32BE(this.frameStart) : SIZE_PREFIX;
    if (this.scratch.length - this.writeAt < MIN_READ_BYTES || this.scratch.length - this.frameStart < needed) {
      // The incomplete frame (at most OWN_BUFFER_ABOVE bytes) moves to the front of a new one.
      const next = Buffer.allocUnsafe(SCRATCH_BYTES);
      this.scratch.copy(next, 0, this.frameStart, this.writeAt);
      this.scratch = next;
      this.frameStart = 0;
      this.writeAt = incomplete;
    }
    return this.scratch.subarray(this.writeAt);
  }

  /**
   * `n` bytes were read into the buffer the last readBuffer() returned; returns the frames
   * now complete (size prefixes removed). Throws FrameTooLargeError for a size prefix
   * outside 0..maxFrameBytes, before anything is allocated for it.
   */
  received(n: number): Buffer[] {
    if (this.large !== null) {
      this.largeFilled += n;
      if (this.largeFilled < this.large.length) return [];
      const frame = this.large;
      this.large = null;
      return [frame];
    }
    this.writeAt += n;
    const frames: Buffer[] = [];
    for (;;) {
      const available = this.writeAt - this.frameStart;
      if (available < SIZE_PREFIX) break;
      const size = this.scratch.readInt32BE(this.frameStart);
      if (size < 0 || size > this.maxFrameBytes) throw new FrameTooLargeError(size, this.maxFrameBytes, frames);
      const bodyStart = this.frameStart + SIZE_PREFIX;
      if (available - SIZE_PREFIX >= size) {
        frames.push(this.scratch.subarray(bodyStart, bodyStart + size));
        this.frameStart = bodyStart + size;
        continue;
      }
      if (SIZE_PREFIX + size > OWN_BUFFER_ABOVE) {
        // Everything received after the prefix belongs to this frame; the scratch bytes it
        // occupied were never handed out, so the next small frame may reuse them.
        this.large = Buffer.allocUnsafe(size);
        this.largeFilled = this.scratch.copy(this.large, 0, bodyStart, this.writeAt);
        this.writeAt = this.frameStart;
      }
      break;
    }
    return frames;
  }
}
