/**
 * Time limits for client operations (Java's default.api.timeout.ms and the per-call
 * timeouts): the operation runs with a signal that aborts at its deadline, and the call
 * settles by then even if some step inside does not listen to the signal. Timers run on
 * the injected Scheduler, so tests move a manual clock instead of waiting.
 */
import type { Scheduler } from '../util/clock.js';
import { TimeoutError } from './errors.js';

export interface TimeLimit {
  /** What the error message calls the operation, e.g. "commitSync". */
  readonly what: string;
  readonly timeoutMs: number;
  /** The caller's signals (undefined entries are ignored): aborting one ends the operation with `aborted(reason)`. */
  readonly signals?: readonly (AbortSignal | undefined)[];
  /** The error for a caller's abort (default: the signal's reason). */
  readonly aborted?: (reason: unknown) => unknown;
}

export async function withTimeLimit<T>(scheduler: Scheduler, limit: TimeLimit, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { timeoutMs } = limit;
  const signals = (limit.signals ?? []).filter((s): s is AbortSignal => s !== undefined);
  const aborted = limit.aborted ?? ((reason: unknown) => reason);
  const already = signals.find((s) => s.aborted);
  if (already) throw aborted(already.reason);
  const controller = new AbortController();
  let rejectEarly!: (err: unknown) => void;
  const early = new Promise<never>((_, reject) => { rejectEarly = reject; });
  const timer = scheduler.schedule(timeoutMs, () => {
    const err = new TimeoutError(`${limit.what} did not complete within ${timeoutMs} ms`);
    controller.abort(err);
    rejectEarly(err);
  });
  let abortedBy: AbortSignal | null = null;
  const onAbort = (event: Event): void => {
    abortedBy = event.target as AbortSignal;
    controller.abort(abortedBy.reason);
    rejectEarly(aborted(abortedBy.reason));
  };
  // Listeners are removed when the call ends: long-lived signals (a client's own) do not collect them.
  for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  const running = operation(controller.signal);
  // Whatever the operation does after the deadline, its failure is nobody's to handle.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, early]);
  } catch (err) {
    // Steps that listen to the signal fail in their own words; the caller learns why.
    if (controller.signal.reason instanceof TimeoutError) throw controller.signal.reason;
    if (abortedBy !== null) throw aborted((abortedBy as AbortSignal).reason);
    throw err;
  } finally {
    timer.cancel();
    for (const s of signals) s.removeEventListener('abort', onAbort);
  }
}

/**
 * A signal that aborts when any of `signals` does, released by `dispose()`. Node 20's
 * AbortSignal.any keeps a reference in every source for good, so a long-lived source (a
 * client's own signal, combined once per poll) would grow without bound.
 */
export function linkedSignal(signals: readonly (AbortSignal | undefined)[]): { readonly signal: AbortSignal; dispose(): void } {
  const sources = signals.filter((s): s is AbortSignal => s !== undefined);
  if (sources.length === 1) return { signal: sources[0]!, dispose: () => undefined };
  const controller = new AbortController();
  const onAbort = (event: Event): void => controller.abort((event.target as AbortSignal).reason);
  const dispose = (): void => { for (const s of sources) s.removeEventListener('abort', onAbort); };
  for (const s of sources) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: controller.signal, dispose };
}
