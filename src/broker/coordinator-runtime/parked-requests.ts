/**
 * The requests a coordinator runtime has not answered yet, by request id: answered when
 * a result's replies are released (durable), with an error when they fail, and forgotten
 * when their connection closes.
 *
 * Most requests are answered by their own result at once (a heartbeat that writes nothing):
 * the one `submit` is running is held in a slot of its own (`expect`), and parked only when
 * its result did not answer it. A park per request would cost a map entry, a set entry and
 * their removal (which shrinks and reallocates the tables), for an answer due in the same
 * turn.
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
  /** The request being run (expect), until it is answered or parked; -1: none. */
  private expectedId: RequestId = -1;
  private expectedResolve: ((response: unknown) => void) | null = null;
  private expectedError: ((errorCode: number) => unknown) | null = null;
  private expectedSignal: AbortSignal | null = null;

  /** The request about to run: answered by `deliver` or `fail` without a park, until `parkExpected`. */
  expect(requestId: RequestId, signal: AbortSignal, resolve: (response: unknown) => void, errorResponse: (errorCode: number) => unknown): void {
    // One submitted while another ran (from a hook of its result): the earlier one waits parked.
    this.parkExpected();
    this.expectedId = requestId;
    this.expectedSignal = signal;
    this.expectedResolve = resolve;
    this.expectedError = errorResponse;
  }

  /** Parks the expected request if it is not answered yet (its answer comes in a later result). */
  parkExpected(): void {
    if (this.expectedId === -1) return;
    const requestId = this.expectedId;
    const signal = this.expectedSignal!;
    const resolve = this.expectedResolve!;
    const errorResponse = this.expectedError!;
    this.clearExpected();
    this.park(requestId, signal, resolve, errorResponse);
  }

  /** Parks a request until its reply; forgotten when `signal` (its connection's) aborts. */
  park(requestId: RequestId, signal: AbortSignal, resolve: (response: unknown) => void, errorResponse: (errorCode: number) => unknown): void {
    if (signal.aborted) return;
    const ids = this.parkedOn(signal);
    ids.add(requestId);
    this.parked.set(requestId, { resolve, errorResponse, detach: () => ids.delete(requestId) });
  }

  /** Answers the request with `errorCode` everywhere (now), if it is still parked. */
  fail(requestId: RequestId, errorCode: number): void {
    if (requestId === this.expectedId) return this.answerExpected(null, errorCode, true);
    const parked = this.take(requestId);
    parked?.resolve(parked.errorResponse(errorCode));
  }

  /** Answers every parked request with `errorCode`. */
  failAll(errorCode: number): void {
    if (this.expectedId !== -1) this.fail(this.expectedId, errorCode);
    for (const requestId of [...this.parked.keys()]) this.fail(requestId, errorCode);
  }

  /** The replies as they are (errorCode NONE), or each request's answer with the error. */
  deliver(replies: readonly ShardReply[], errorCode: number): void {
    for (const reply of replies) {
      if (reply.requestId === this.expectedId) {
        this.answerExpected(reply.response, errorCode);
        continue;
      }
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

  /** Answers the expected request: `response` (errorCode NONE), else (or `asError`) its answer with the error. */
  private answerExpected(response: unknown, errorCode: number, asError = errorCode !== ErrorCode.NONE): void {
    const resolve = this.expectedResolve!;
    const errorResponse = this.expectedError!;
    this.clearExpected();
    resolve(asError ? errorResponse(errorCode) : response);
  }

  private clearExpected(): void {
    this.expectedId = -1;
    this.expectedResolve = null;
    this.expectedError = null;
    this.expectedSignal = null;
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
