/**
 * A broker-wide bound on SASL/PLAIN password checks. Each one is a PBKDF2 (plain-password.ts)
 * in libuv's thread pool (4 threads by default), which the storage's fdatasyncs share: without
 * a bound, a flood of login attempts (anyone can send them, unknown users cost as much as known
 * ones) queues hundreds of checks in the pool, first come first served, ahead of the fsyncs an
 * acks=all Produce waits for. Here at most MAX_RUNNING_PASSWORD_CHECKS run at once and
 * MAX_WAITING_PASSWORD_CHECKS wait, in arrival order; beyond that a check fails at once
 * (PasswordChecksBusyError), and the connection closes without an answer: what Kafka does when
 * it cannot authenticate now (a retriable Kerberos error is handled as an I/O error), which
 * clients retry after their reconnect backoff, where SASL_AUTHENTICATION_FAILED would be final.
 * A check whose connection closes while it waits is dropped.
 *
 * SCRAM's checks are not queued: the server side is a few HMACs on the event loop (the client
 * does the PBKDF2), cheaper than the request around them.
 */

/**
 * Password checks running at once. One PBKDF2 of PLAIN_ITERATIONS rounds is a few milliseconds:
 * one at a time is hundreds of logins a second, and leaves three of the pool's four threads
 * to the storage. Kept internal (no Kafka setting bounds this: Kafka's PLAIN compares
 * passwords in clear).
 */
export const MAX_RUNNING_PASSWORD_CHECKS = 1;
/**
 * Checks that may wait: at a few milliseconds each, well under a second of waiting, far
 * below any client's timeout, and a connection that waits holds little (it reads nothing).
 */
export const MAX_WAITING_PASSWORD_CHECKS = 128;

/** Too many password checks are waiting: this one was not started. */
export class PasswordChecksBusyError extends Error {
  readonly code = 'ERR_PASSWORD_CHECKS_BUSY';
  constructor() {
    super(`${MAX_WAITING_PASSWORD_CHECKS} password checks are already waiting`);
    this.name = 'PasswordChecksBusyError';
  }
}

interface Waiting {
  start(): void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

export class PasswordCheckQueue {
  private runningCount = 0;
  private readonly queue: Waiting[] = [];
  /** Checks refused because the queue was full (since start-up). */
  refused = 0;

  constructor(
    private readonly maxRunning = MAX_RUNNING_PASSWORD_CHECKS,
    private readonly maxWaiting = MAX_WAITING_PASSWORD_CHECKS,
  ) {}

  get running(): number {
    return this.runningCount;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `check` once a slot is free; rejects at once with PasswordChecksBusyError when the
   * queue is full, and with the signal's reason when it aborts before the check started.
   */
  run<T>(check: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (this.runningCount < this.maxRunning) return this.started(check);
    if (this.queue.length >= this.maxWaiting) {
      this.refused++;
      return Promise.reject(new PasswordChecksBusyError());
    }
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener('abort', entry.onAbort);
          this.started(check).then(resolve, reject);
        },
        signal,
        onAbort: () => {
          const at = this.queue.indexOf(entry);
          if (at >= 0) this.queue.splice(at, 1);
          reject(signal!.reason as Error);
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private started<T>(check: () => Promise<T>): Promise<T> {
    this.runningCount++;
    let result: Promise<T>;
    try {
      result = check();
    } catch (err) {
      result = Promise.reject(err as Error);
    }
    const finished = (): void => {
      this.runningCount--;
      this.queue.shift()?.start();
    };
    result.then(finished, finished);
    return result;
  }
}
