/**
 * Buffers for log reads that are written to a socket and then dropped (Fetch responses).
 *
 * Each read used to be its own `Buffer.allocUnsafe`: at several hundred MB/s of fetches that
 * churn of large buffers outside V8's heap made it run full collections, which took as much
 * CPU as the reads themselves (profile in BENCHMARKS.md, scenario 3). Reads are carved from
 * a few large slabs instead. A lease collects the reads of one response; once the response
 * has been handed to the kernel the lease is released, and a slab whose reads are all
 * released is reused. A lease that is never released (its connection died first) only keeps
 * its slabs out of the pool: they are then collected like any other buffer.
 *
 * The memory is shared (SharedArrayBuffer): the broker's socket thread writes a response's
 * reads from it as they are, without a copy, and the lease is released once the kernel has
 * them, as on the event loop.
 */

/** A buffer over shared memory of its own. */
function sharedBuffer(length: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(length));
}

const MiB = 1024 * 1024;

class Slab {
  readonly bytes: Buffer;
  /** Bytes handed out from the start. */
  used = 0;
  /** Reads handed out and not yet released. */
  live = 0;

  constructor(size: number) {
    // Not from Node's 8 KiB pool: a slab is reused, never sliced by others.
    this.bytes = sharedBuffer(size);
  }
}

export interface ReadBufferPoolOptions {
  /** Size of one slab (default 8 MiB). */
  readonly slabBytes?: number;
  /** Released slabs kept for reuse (default 4); more are left to the garbage collector. */
  readonly maxFreeSlabs?: number;
}

export class ReadBufferPool {
  readonly slabBytes: number;
  /** Reads larger than this get a buffer of their own (default a quarter slab). */
  readonly maxPooledRead: number;
  private readonly maxFreeSlabs: number;
  private readonly free: Slab[] = [];
  private current: Slab | null = null;
  /** Slabs allocated since start (for tests and diagnostics). */
  slabsCreated = 0;

  constructor(options: ReadBufferPoolOptions = {}) {
    this.slabBytes = options.slabBytes ?? 8 * MiB;
    this.maxFreeSlabs = options.maxFreeSlabs ?? 4;
    this.maxPooledRead = Math.floor(this.slabBytes / 4);
  }

  lease(): ReadLease {
    return new ReadLease(this);
  }

  /** @internal */
  take(length: number): { slab: Slab | null; buffer: Buffer } {
    if (length > this.maxPooledRead) return { slab: null, buffer: sharedBuffer(length) };
    let slab = this.current;
    if (slab === null || slab.used + length > slab.bytes.length) {
      slab = this.free.pop() ?? this.newSlab();
      this.current = slab;
    }
    const buffer = slab.bytes.subarray(slab.used, slab.used + length);
    slab.used += length;
    slab.live++;
    return { slab, buffer };
  }

  /** @internal */
  give(slab: Slab): void {
    if (--slab.live > 0) return;
    slab.used = 0;
    // The current slab simply starts over; a retired one goes back to the free list. (A slab
    // is retired only when full, so with reads still live: it reaches here once per use.)
    if (slab !== this.current && this.free.length < this.maxFreeSlabs) this.free.push(slab);
  }

  private newSlab(): Slab {
    this.slabsCreated++;
    return new Slab(this.slabBytes);
  }
}

/** The reads of one response: `allocate` hands out buffers, `release` returns them all. */
export class ReadLease {
  private slabs: Slab[] = [];

  constructor(private readonly pool: ReadBufferPool) {}

  /** A buffer of exactly `length` bytes, untouched by anyone else until `release`. */
  readonly allocate = (length: number): Buffer => {
    const { slab, buffer } = this.pool.take(length);
    if (slab !== null) this.slabs.push(slab);
    return buffer;
  };

  /** The caller is done with every buffer this lease handed out (idempotent). */
  release(): void {
    const slabs = this.slabs;
    this.slabs = [];
    for (const slab of slabs) this.pool.give(slab);
  }
}
