/**
 * A connection's requests awaiting their responses, in request order: clients match
 * responses to requests by order as well as by correlation id, so a response that is ready
 * waits until every one before it is written. Each slot holds its request's size until its
 * response is handed to the socket (an acks=all Produce holds its request until the append is
 * durable), which the connection's limits read.
 */
import type { ConnectionSocket } from './connection-socket.js';
import type { RequestMetrics } from './metrics/broker-metrics.js';

/** One request awaiting its response. */
export interface ResponseSlot {
  done: boolean;
  /** The request's size: it is held until its response is written. */
  requestBytes: number;
  chunks: Buffer[] | null;
  /** Set once the request must answer now (`mustAnswerSoon`); `hurry` is then called, once. */
  hurried: boolean;
  hurry: (() => void) | null;
  /** Run when the response has been handed to the kernel (`onResponseWritten`). */
  written: (() => void)[] | null;
  /** The request's API counters, and when its frame was taken up (performance.now()). */
  metrics: RequestMetrics | null;
  startedMs: number;
}

export function newResponseSlot(requestBytes = 0): ResponseSlot {
  return { done: false, requestBytes, chunks: null, hurried: false, hurry: null, written: null, metrics: null, startedMs: 0 };
}

function hurry(slot: ResponseSlot): void {
  slot.hurried = true;
  const wake = slot.hurry;
  slot.hurry = null;
  wake?.();
}

export class ResponseQueue {
  private readonly slots: ResponseSlot[] = [];
  /** The size of the requests awaiting their responses. */
  inFlightRequestBytes = 0;
  /** The most of each seen at once. */
  peakInFlight = 0;
  peakInFlightRequestBytes = 0;

  /** Requests read whose responses are not yet handed to the socket (parked ones included). */
  get length(): number {
    return this.slots.length;
  }

  push(slot: ResponseSlot): void {
    this.slots.push(slot);
    this.inFlightRequestBytes += slot.requestBytes;
    if (this.slots.length > this.peakInFlight) this.peakInFlight = this.slots.length;
    if (this.inFlightRequestBytes > this.peakInFlightRequestBytes) this.peakInFlightRequestBytes = this.inFlightRequestBytes;
  }

  isHead(slot: ResponseSlot): boolean {
    return this.slots[0] === slot;
  }

  /** Forgets `slot` and every slot after it: none of them will be answered. */
  dropFrom(slot: ResponseSlot): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    for (const dropped of this.slots.splice(at)) this.inFlightRequestBytes -= dropped.requestBytes;
  }

  /** `slot`'s response is ready but waits behind unanswered ones: parked ones answer now (null: every one). */
  hurryAheadOf(slot: ResponseSlot | null): void {
    for (const s of this.slots) {
      if (s === slot) return;
      if (!s.done && !s.hurried) hurry(s);
    }
  }

  /** The connection closes: every parked request stops waiting. */
  hurryAll(): void {
    this.hurryAheadOf(null);
  }

  /**
   * Writes every response at the head of the queue that is ready, in order, in one corked
   * write; true when it wrote any.
   */
  writeReady(socket: ConnectionSocket): boolean {
    let wrote = false;
    while (this.slots.length > 0 && this.slots[0]!.done) {
      const slot = this.slots.shift()!;
      this.inFlightRequestBytes -= slot.requestBytes;
      if (!wrote) socket.cork();
      wrote = true;
      const chunks = slot.chunks!;
      const written = slot.written;
      if (written === null) {
        for (const chunk of chunks) socket.write(chunk);
      } else {
        // Node calls a write's callback once that write reached the kernel (or failed).
        for (let i = 0; i < chunks.length - 1; i++) socket.write(chunks[i]!);
        socket.write(chunks[chunks.length - 1]!, () => {
          for (const callback of written) callback();
        });
      }
    }
    if (wrote) process.nextTick(() => socket.uncork());
    return wrote;
  }
}
