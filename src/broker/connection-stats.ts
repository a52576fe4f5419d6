/**
 * What an operator reads about the broker's connections: counters since start-up and the
 * number open now, as a plain object a metrics endpoint can export as it is; plus the log
 * lines for events a misbehaving client can repeat at will, rate-limited (one line per
 * burst, see RateLimitedLog) because their number is the client's choice, not the broker's.
 */
import { RateLimitedLog, type Logger } from '../util/log.js';

export interface ConnectionStats {
  /** Connections open now (Kafka's connection-count). */
  open: number;
  /** Connections accepted since start-up (Kafka's connection-creation-total). */
  accepted: number;
  /** Connections closed at once because max.connections were open. */
  rejected: number;
  /** Connections closed since start-up, by either side, for any reason (Kafka's connection-close-total). */
  closed: number;
  /** Closed by the broker after connections.max.idle.ms with nothing to do. */
  closedIdle: number;
  /**
   * Closed by the broker after connections.max.idle.ms holding the beginning of a request that
   * never completed (a slow-loris client: a size prefix and a few bytes, or a trickle).
   */
  closedIncompleteRequest: number;
  /** Closed by the broker for bad input: an undecodable or oversized frame, an unknown API or version. */
  closedBadInput: number;
  /**
   * Times a connection stopped reading requests because too many of its requests were in flight
   * or too many of its response bytes were unread (a client that pipelines and never reads).
   */
  throttled: number;
  /**
   * Kafka's failed-authentication-total: connections refused while authenticating. On an SSL
   * listener, a TLS handshake that failed or timed out (a plaintext client, a certificate that
   * does not verify, a client that never finishes); such a connection is never accepted. On a
   * SASL listener, a refused or timed-out SASL authentication, or a request before it.
   */
  failedAuthentication: number;
  /**
   * Closed unanswered during SASL authentication because too many password checks were
   * waiting (sasl/password-checks.ts); the client retries, as after a network error.
   */
  closedAuthenticationBusy: number;
}

/** Broker-wide connection counters and the rate-limited log lines that go with them. */
export class ConnectionMonitor {
  readonly stats: ConnectionStats = {
    open: 0, accepted: 0, rejected: 0, closed: 0, closedIdle: 0, closedIncompleteRequest: 0, closedBadInput: 0, throttled: 0,
    failedAuthentication: 0, closedAuthenticationBusy: 0,
  };
  private readonly rejectedLog: RateLimitedLog;
  private readonly idleLog: RateLimitedLog;
  private readonly badInputLog: RateLimitedLog;
  private readonly throttledLog: RateLimitedLog;
  private readonly authenticationLog: RateLimitedLog;
  private readonly authenticationBusyLog: RateLimitedLog;

  constructor(readonly log: Logger, maxConnections: number) {
    this.rejectedLog = new RateLimitedLog(log, 'warn', `refusing connections: max.connections (${maxConnections}) are open`);
    this.idleLog = new RateLimitedLog(log, 'info', 'closing idle connection');
    this.badInputLog = new RateLimitedLog(log, 'info', 'closing connection');
    this.throttledLog = new RateLimitedLog(log, 'info', 'connection throttled: not reading its requests until its responses are read');
    this.authenticationLog = new RateLimitedLog(log, 'info', 'failed authentication');
    this.authenticationBusyLog = new RateLimitedLog(log, 'warn', 'closing connection: too many password checks waiting');
  }

  accepted(): void {
    this.stats.accepted++;
    this.stats.open++;
  }

  closed(): void {
    this.stats.closed++;
    this.stats.open--;
  }

  rejected(client: string): void {
    this.stats.rejected++;
    this.rejectedLog.event({ client, rejected: this.stats.rejected });
  }

  idleClosed(fields: { client: string; idleMs: number; incompleteRequestBytes: number }): void {
    if (fields.incompleteRequestBytes > 0) this.stats.closedIncompleteRequest++;
    else this.stats.closedIdle++;
    this.idleLog.event(fields);
  }

  badInputClosed(fields: { client: string; reason: string }): void {
    this.stats.closedBadInput++;
    this.badInputLog.event(fields);
  }

  throttled(fields: { client: string; inFlight: number; unwrittenBytes: number }): void {
    this.stats.throttled++;
    this.throttledLog.event(fields);
  }

  authenticationFailed(fields: { client: string; listener: string; reason: string }): void {
    this.stats.failedAuthentication++;
    this.authenticationLog.event(fields);
  }

  authenticationBusy(fields: { client: string; listener: string }): void {
    this.stats.closedAuthenticationBusy++;
    this.authenticationBusyLog.event(fields);
  }
}

/** What the broker knows about one connection (read-only; `Broker.connectionInfo()`). */
export interface ConnectionInfo {
  /** The client's address as Kafka writes it ("/127.0.0.1") and its port. */
  readonly client: string;
  readonly clientPort: number;
  /** The listener it came in on (Kafka's listener name). */
  readonly listener: string;
  /**
   * Who the client is, as Kafka's default principal builder says it: `User:` and the subject
   * of a verified client certificate on an SSL listener (`User:CN=...`), else `User:ANONYMOUS`.
   */
  readonly principal: string;
  /** Requests read whose responses are not yet handed to the socket (parked ones included). */
  readonly inFlight: number;
  /** The size of those requests. */
  readonly inFlightRequestBytes: number;
  /** Response bytes handed to the socket that the kernel has not taken yet. */
  readonly unwrittenBytes: number;
  /** Bytes received from the client so far (read from the socket, handled or not). */
  readonly bytesRead: number;
  /** Request bytes received and not yet handled: a request still arriving, or requests held while throttled. */
  readonly bufferedRequestBytes: number;
  /** Reading stopped: until the client reads its responses, or until a request it must wait for is done. */
  readonly readingPaused: boolean;
  /** Times this connection stopped reading. */
  readonly throttled: number;
  /** The most of each seen at once. */
  readonly peakInFlight: number;
  readonly peakInFlightRequestBytes: number;
  readonly peakUnwrittenBytes: number;
  readonly peakBufferedRequestBytes: number;
}
