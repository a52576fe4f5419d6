/**
 * The requests a coordinator runtime has not answered yet, by request id: answered when
 * a result's replies are released (durable), with an error when they fail, and forgotten
 * when their connection closes.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { RequestId } from '../../coordinator/types.js';
import type { ShardReply } from './shard.js';

interface Parked {
  resolve(response: unknown): void;
  /** The request's answer with this error everywhere (append failure, internal error). */
  errorResponse(errorCode: number): unknown;
  detach(): void;
}

export class ParkedRequests {
  private readonly parked = new Map<RequestId, Parked>();
  private readonly bySignal = new WeakMap<AbortSignal, Set<RequestId>>();

  /** Parks a request until its reply; forgotten when `signal` (its connection's) aborts. */
  park(requestId: RequestId, signal: AbortSignal, resolve: (response: unknown) => void, errorResponse: (errorCode: number) => unknown): void {
    const ids = this.parkedOn(signal);
    ids.add(requestId);
    this.parked.set(requestId, { resolve, errorResponse, detach: () => ids.delete(requestId) });
    if (signal.aborted) this.take(requestId);
  }

  /** Answers the request with `errorCode` everywhere (now), if it is still parked. */
  fail(requestId: RequestId, errorCode: number): void {
    const parked = this.take(requestId);
    parked?.resolve(parked.errorResponse(errorCode));
  }

  /** Answers every parked request with `errorCode`. */
  failAll(errorCode: number): void {
    for (const requestId of [...this.parked.keys()]) this.fail(requestId, errorCode);
  }

  /** The replies as they are (errorCode NONE), or each request's answer with the error. */
  deliver(replies: readonly ShardReply[], errorCode: number): void {
    for (const reply of replies) {
      const parked = this.take(reply.requestId);
      if (parked === undefined) continue; // its connection closed
      parked.resolve(errorCode === ErrorCode.NONE ? reply.response : parked.errorResponse(errorCode));
    }
  }

  /** Removes the request and returns how to answer it (undefined: answered, or its connection closed). */
  take(requestId: RequestId): Parked | undefined {
    const parked = this.parked.get(requestId);
    if (parked === undefined) return undefined;
    this.parked.delete(requestId);
    parked.detach();
    return parked;
  }

  /**
   * The ids parked by one connection, forgotten together when it closes: one abort listener
   * per connection, not one per request (pipelined requests would pile listeners up).
   */
  private parkedOn(signal: AbortSignal): Set<RequestId> {
    let ids = this.bySignal.get(signal);
    if (ids === undefined) {
      const set = new Set<RequestId>();
      ids = set;
      this.bySignal.set(signal, set);
      signal.addEventListener('abort', () => {
        for (const id of set) this.parked.delete(id);
        set.clear();
      }, { once: true });
    }
    return ids;
  }
}
