/**
 * One client connection: cuts frames, decodes headers and bodies, runs handlers, and writes
 * responses in request order (clients match responses to requests by order as well as by
 * correlation id). Requests are processed as they arrive, so a parked request (a long-poll
 * fetch) does not stop later ones from being worked on; and once a later response is ready,
 * the parked request is told to answer now (`answerSoon`), so it does not hold it back.
 * Kafka reads a connection's next request only after answering the previous one, so there a
 * Heartbeat, JoinGroup or Metadata request that a client sends on the connection where its
 * Fetch is long-polling waits up to fetch.max.wait.ms; here the Fetch comes back early,
 * possibly empty, and the client simply fetches again. A handler that has to wait before it
 * acts (a transaction-version-2 Produce whose partitions join the transaction first) holds
 * the later requests back until it has acted (`RequestContext.holdLaterRequests`), so a
 * producer's pipelined requests still append in order.
 *
 * Bad input never escapes: an undecodable frame, an unknown API or an unsupported version
 * closes this connection with a log line (ApiVersions answers UNSUPPORTED_VERSION instead,
 * as Kafka does, so clients can fall back). As in Kafka, which handles one request at a time
 * per connection, the requests that came before the bad input are still answered first;
 * nothing after it is read.
 *
 * Abusive clients cost bounded memory and do not slow the others down:
 * - A client that pipelines requests and never reads its responses: requests are taken one
 *   frame at a time, and reading stops (counted, logged) while MAX_IN_FLIGHT requests await
 *   their responses or MAX_UNWRITTEN_BYTES of responses wait for the client to read them;
 *   the frames already received stay unparsed in the decoder until then.
 * - A request's bytes are held as they arrive (FrameDecoder), never a buffer of the size it
 *   announces, and at most socket.request.max.bytes of them.
 * - Before authentication (a SASL listener), requests are taken one at a time, as Kafka does:
 *   reading stops while one is worked on (PLAIN's password check) or while 64 KiB of answers
 *   are unread, so a client flooding the broker meanwhile fills its own socket buffers, not
 *   the broker's memory. Such a connection holds at most one frame of sasl.server.max.receive.size
 *   and the read that brought it; should it hold 1 MiB more, reading did not stop, and it closes.
 * - A Produce holding the later requests back (`holdLaterRequests`) stops reading too while
 *   bytes wait behind it; otherwise requests are pipelined (taken as they arrive), within
 *   the limits above.
 * - connections.max.idle.ms closes a connection with nothing in flight, no complete request
 *   and no progress writing its responses for that long. Unlike Kafka, whose Selector counts
 *   any bytes read as activity, the bytes of a request that has not completed do not count:
 *   a client trickling one byte a second (slow-loris) is closed like an idle one instead of
 *   holding its connection and buffer for as long as it likes. No client sends a request
 *   for that long (request.timeout.ms is 30 s) so no well-behaved one is affected.
 */
import type { ConnectionSocket } from './connection-socket.js';
import { FrameDecoder, FrameTooLargeError, UnknownApiError, decodeRequestHeader, encodeResponse } from '../protocol/frame.js';
import { ProtocolDecodeError } from '../protocol/primitives/decode-error.js';
import type { ApiCodecs } from '../protocol/messages/index.js';
import type { BrokerContext } from './broker-context.js';
import { NO_RESPONSE, UnparsableRequestError, type RequestContext } from './handler.js';
import { unsupportedApiVersionsResponse } from './handlers/api-versions.js';
import type { ConnectionInfo, ConnectionMonitor } from './connection-stats.js';
import { newResponseSlot, ResponseQueue, type ResponseSlot } from './response-queue.js';
import type { SaslAuthenticator } from './sasl/sasl-authenticator.js';
import { handshakeTimeoutMs } from './ssl-config.js';

/** Stop reading from a client with this many requests awaiting their responses. */
export const MAX_IN_FLIGHT = 100;
/** Stop reading while this many response bytes wait for a slow reader. */
export const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;
/**
 * Stop reading while the requests awaiting their responses add up to this many bytes (an
 * acks=all Produce holds its request until the append is durable). One request may be larger
 * (up to socket.request.max.bytes): the limit is checked before each request is taken.
 */
export const MAX_IN_FLIGHT_REQUEST_BYTES = 16 * 1024 * 1024;
/**
 * Before authentication, stop reading while this many response bytes are unread (Kafka reads
 * nothing more until its answer is sent). At least the socket's writableHighWaterMark (16 KiB),
 * so that 'drain' comes when the client catches up.
 */
export const MAX_UNWRITTEN_BYTES_BEFORE_AUTHENTICATION = 64 * 1024;
/**
 * Before authentication, what a connection may hold beyond one frame of
 * sasl.server.max.receive.size (and its size prefix): reading stops while a request is worked
 * on, so only the rest of the read that brought it is held (libuv reads 64 KiB at a time).
 * More than this means reading did not stop: the connection closes.
 */
export const MAX_READ_AHEAD_BEFORE_AUTHENTICATION = 1024 * 1024;
/** The idle check never runs more often than this (connections.max.idle.ms of 0 or 1). */
const MIN_IDLE_CHECK_MS = 10;

type CloseKind = 'idle' | 'badInput' | 'error' | 'shutdown' | 'authentication';

/** Who the connection is: its listener, its principal so far, and its SASL state on a SASL listener. */
export interface ConnectionIdentity {
  readonly listener: string;
  readonly principal: string;
  readonly sasl: SaslAuthenticator | null;
}

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly queue = new ResponseQueue();
  private readonly abort = new AbortController();
  private readonly clientHost: string;
  private readingPaused = false;
  /** A SASL listener's connection that has not authenticated yet (one request at a time, tighter bounds). */
  private unauthenticated: boolean;
  /** MAX_UNWRITTEN_BYTES, or MAX_UNWRITTEN_BYTES_BEFORE_AUTHENTICATION until authenticated. */
  private maxUnwrittenBytes: number;
  /** The most an unauthenticated connection may hold (see MAX_READ_AHEAD_BEFORE_AUTHENTICATION). */
  private readonly maxBufferedBeforeAuthentication: number;
  /** Set while frames are being taken from the decoder (a response written meanwhile must not start another loop). */
  private processing = false;
  /** A handler's wait that later requests must not overtake (`RequestContext.holdLaterRequests`). */
  private holding: Promise<unknown> | null = null;
  private closed = false;
  /** Set by bad input: the connection closes once the responses before it are written. */
  private closingReason: string | null = null;
  private closingKind: CloseKind = 'badInput';
  private readonly idleMs: number;
  // The idle, SASL and close timers keep real time (performance.now, Node's timers), not the
  // broker's clock: they bound socket I/O, which a manual test clock does not move.
  private idleTimer: NodeJS.Timeout | null = null;
  /** performance.now() of the last complete request, response or write progress. */
  private lastActiveMs = performance.now();
  /** Bytes the kernel had taken at the last idle check (write progress counts as activity). */
  private sentAtLastCheck = 0;
  private throttledCount = 0;
  private peakUnwrittenBytes = 0;
  private peakBufferedRequestBytes = 0;
  /** `User:ANONYMOUS`, an mTLS client's DN, or `User:<name>` once SASL authentication completes. */
  private principal: string;
  private readonly sasl: SaslAuthenticator | null;
  private authenticationTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly socket: ConnectionSocket,
    private readonly broker: BrokerContext,
    private readonly monitor: ConnectionMonitor,
    private readonly identity: ConnectionIdentity,
    private readonly onClose: (c: Connection) => void,
  ) {
    this.principal = identity.principal;
    this.sasl = identity.sasl;
    // Before authentication, Kafka's sasl.server.max.receive.size bounds a frame: a client
    // that has not said who it is cannot make the broker hold socket.request.max.bytes.
    this.decoder = new FrameDecoder(this.sasl === null ? broker.config.maxRequestBytes : Math.min(broker.config.saslServerMaxReceiveSize, broker.config.maxRequestBytes));
    this.unauthenticated = this.sasl !== null;
    this.maxUnwrittenBytes = this.unauthenticated ? MAX_UNWRITTEN_BYTES_BEFORE_AUTHENTICATION : MAX_UNWRITTEN_BYTES;
    this.maxBufferedBeforeAuthentication = 4 + this.decoder.maxFrameBytes + MAX_READ_AHEAD_BEFORE_AUTHENTICATION;
    this.clientHost = `/${socket.remoteAddress ?? 'unknown'}`;
    // Kafka: a negative connections.max.idle.ms turns idle expiry off.
    this.idleMs = broker.config.connectionsMaxIdleMs;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => {
      this.lastActiveMs = performance.now();
      this.maybeResume();
    });
    socket.on('error', (err) => this.broker.log.debug('connection error', { client: this.clientHost, err }));
    socket.on('close', () => {
      this.closed = true;
      this.clearIdleTimer();
      this.clearAuthenticationTimer();
      this.abort.abort();
      this.onClose(this);
    });
    if (this.idleMs >= 0) this.armIdleTimer(this.idleMs);
    if (this.sasl !== null) {
      // As long as a TLS handshake may take (ssl-config.ts): a real client authenticates in milliseconds.
      const limitMs = handshakeTimeoutMs(this.idleMs);
      this.authenticationTimer = setTimeout(() => {
        this.authenticationTimer = null;
        if (this.closed || this.sasl!.state === 'complete') return;
        this.monitor.authenticationFailed({ client: this.clientHost, listener: this.identity.listener, reason: `SASL authentication not completed within ${limitMs} ms` });
        this.close('SASL authentication timed out', 'authentication');
      }, limitMs);
      this.authenticationTimer.unref();
    }
  }

  /** Counters and levels of this connection (for operators and tests). */
  info(): ConnectionInfo {
    return {
      client: this.clientHost,
      clientPort: this.socket.remotePort ?? 0,
      listener: this.identity.listener,
      principal: this.principal,
      inFlight: this.queue.length,
      inFlightRequestBytes: this.queue.inFlightRequestBytes,
      unwrittenBytes: this.socket.writableLength,
      bytesRead: this.socket.bytesRead,
      bufferedRequestBytes: this.decoder.buffered,
      readingPaused: this.readingPaused,
      throttled: this.throttledCount,
      peakInFlight: this.queue.peakInFlight,
      peakInFlightRequestBytes: this.queue.peakInFlightRequestBytes,
      peakUnwrittenBytes: this.peakUnwrittenBytes,
      peakBufferedRequestBytes: this.peakBufferedRequestBytes,
    };
  }

  /** Closes the connection (log line included); pending responses are dropped. */
  close(reason: string, kind: CloseKind = 'shutdown'): void {
    if (this.closed) return;
    this.closed = true;
    this.clearIdleTimer();
    this.clearAuthenticationTimer();
    // Idle closes are logged (rate-limited) by the monitor; a shutdown closes every connection.
    if (kind === 'error') this.broker.log.info('closing connection', { client: this.clientHost, reason });
    else if (kind === 'shutdown') this.broker.log.debug('closing connection', { client: this.clientHost, reason });
    this.abort.abort();
    this.queue.hurryAll();
    this.socket.destroy();
  }

  /**
   * Bad input: every request before it still gets its response, then the connection closes
   * (Kafka reads a connection's next request only once the previous one is answered).
   */
  private closeAfterPending(reason: string, kind: CloseKind = 'badInput'): void {
    if (this.closed || this.closingReason !== null) return;
    this.closingReason = reason;
    this.closingKind = kind;
    if (kind === 'badInput') this.monitor.badInputClosed({ client: this.clientHost, reason });
    // Keep draining (and ignoring) what the client sends: closing a socket with unread bytes
    // resets it, which can destroy the responses on their way to the client.
    if (this.readingPaused) {
      this.readingPaused = false;
      this.socket.resume();
    }
    this.flush();
  }

  private finishClosing(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearIdleTimer();
    this.clearAuthenticationTimer();
    // Bad input and failed authentication are logged, rate-limited, by the monitor.
    if (this.closingKind !== 'badInput' && this.closingKind !== 'authentication') this.broker.log.info('closing connection', { client: this.clientHost, reason: this.closingReason });
    this.abort.abort();
    // end() writes what is still corked, then FIN; destroy once it is handed to the kernel.
    const timer = setTimeout(() => this.socket.destroy(), 5_000);
    timer.unref();
    this.socket.end(() => {
      clearTimeout(timer);
      this.socket.destroy();
    });
  }

  private onData(chunk: Buffer): void {
    if (this.closed || this.closingReason !== null) return;
    this.decoder.append(chunk);
    if (this.decoder.buffered > this.peakBufferedRequestBytes) {
      this.peakBufferedRequestBytes = this.decoder.buffered;
      if (this.unauthenticated && this.decoder.buffered > this.maxBufferedBeforeAuthentication) {
        this.monitor.authenticationFailed({ client: this.clientHost, listener: this.identity.listener, reason: `${this.decoder.buffered} bytes held before authentication` });
        this.close('too much received before authentication', 'authentication');
        return;
      }
    }
    this.processFrames();
  }

  /**
   * Handles the requests received, one frame at a time, until none is complete, the next may
   * not be taken yet (`mustWait`), or the connection has too much in flight or unwritten: then
   * reading stops, and what was received stays in the decoder (at most what one read brought)
   * until the client catches up or the request it waits for is done.
   *
   * After a request whose handler answered with a promise, the next one is taken in a
   * microtask: a promise already settled (a Fetch that found its data) has then written its
   * response, so the unwritten-bytes limit sees it before another request is handled and is
   * passed by at most one response, not by one per request a read brought.
   */
  private processFrames(): void {
    if (this.processing) return;
    this.processing = true;
    try {
      let handled = false;
      while (!this.closed && this.closingReason === null) {
        if (this.mustWait()) {
          // Bytes that cannot be taken now wait in the kernel (TCP's window), not here. Reading
          // stops only once some arrive, so a request that is quickly done costs nothing.
          if (this.decoder.buffered > 0) this.pause(false);
          break;
        }
        if (this.overLimits()) {
          this.pause(true);
          break;
        }
        let frame: Buffer | null;
        try {
          frame = this.decoder.next();
        } catch (err) {
          // The complete requests before the bad size prefix were handled already.
          this.closeAfterPending(err instanceof FrameTooLargeError ? err.message : `bad frame: ${(err as Error).message}`);
          break;
        }
        if (frame === null) {
          this.resume();
          break;
        }
        handled = true;
        if (this.onFrame(frame)) {
          queueMicrotask(() => this.processFrames());
          break;
        }
      }
      if (handled) this.lastActiveMs = performance.now();
    } finally {
      this.processing = false;
    }
  }

  /**
   * The next request must wait for one in flight: a Produce that holds the later ones back
   * (`holdLaterRequests`), or, before authentication, any request (Kafka reads nothing more
   * until it has answered; a SaslAuthenticate whose password check runs or waits its turn may
   * complete the authentication, which what follows must see). Whoever ends the wait takes up
   * the requests again: the hold's release, or the response's write (`flush`).
   */
  private mustWait(): boolean {
    return this.holding !== null || (this.unauthenticated && this.queue.length > 0);
  }

  private overLimits(): boolean {
    return this.queue.length >= MAX_IN_FLIGHT
      || this.queue.inFlightRequestBytes >= MAX_IN_FLIGHT_REQUEST_BYTES
      || this.socket.writableLength >= this.maxUnwrittenBytes;
  }

  /** Stops reading; `throttled`: because of the client (its answers unread), counted and logged. */
  private pause(throttled: boolean): void {
    if (this.readingPaused) return;
    this.readingPaused = true;
    if (throttled) {
      this.throttledCount++;
      this.monitor.throttled({ client: this.clientHost, inFlight: this.queue.length, unwrittenBytes: this.socket.writableLength });
    }
    this.socket.pause();
  }

  private resume(): void {
    if (!this.readingPaused) return;
    this.readingPaused = false;
    this.socket.resume();
  }

  private armIdleTimer(delayMs: number): void {
    this.idleTimer = setTimeout(() => this.checkIdle(), Math.max(delayMs, MIN_IDLE_CHECK_MS));
    this.idleTimer.unref();
  }

  private clearAuthenticationTimer(): void {
    if (this.authenticationTimer !== null) clearTimeout(this.authenticationTimer);
    this.authenticationTimer = null;
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /**
   * Kafka's idle expiry (connections.max.idle.ms): closes the connection if, for that long,
   * no request completed, nothing was in flight (a parked long-poll Fetch is not idle) and
   * the kernel took none of its response bytes.
   */
  private checkIdle(): void {
    this.idleTimer = null;
    if (this.closed || this.closingReason !== null) return;
    const now = performance.now();
    if (this.queue.length > 0) {
      this.lastActiveMs = now;
    } else {
      // bytesWritten counts what Node still holds too; minus that, what the kernel has taken.
      const sent = (this.socket.bytesWritten ?? 0) - this.socket.writableLength;
      if (sent !== this.sentAtLastCheck) {
        this.sentAtLastCheck = sent;
        this.lastActiveMs = now;
      }
    }
    const idleFor = now - this.lastActiveMs;
    if (idleFor < this.idleMs) {
      this.armIdleTimer(this.idleMs - idleFor);
      return;
    }
    const incompleteRequestBytes = this.decoder.midFrame ? this.decoder.buffered : 0;
    this.monitor.idleClosed({ client: this.clientHost, idleMs: Math.round(idleFor), incompleteRequestBytes });
    this.close('idle', 'idle');
  }

  /** Handles one request; true when its answer is a promise (see processFrames). */
  private onFrame(frame: Buffer): boolean {
    const sasl = this.sasl;
    if (sasl !== null && sasl.rawTokens && sasl.state === 'authenticate') return this.onRawSaslToken(sasl, frame);
    let decoded;
    try {
      decoded = decodeRequestHeader(frame);
    } catch (err) {
      if (err instanceof UnknownApiError) this.closeAfterPending(`unknown API key ${err.apiKey}`);
      else this.closeAfterPending(`undecodable request header: ${(err as Error).message}`);
      return false;
    }
    const { header, api, body } = decoded;
    const version = header.requestApiVersion;
    if (sasl !== null && sasl.state !== 'complete' && !sasl.allowsBeforeAuthentication(api.apiKey)) {
      // Kafka's IllegalSaslStateException: no answer, the connection closes.
      this.authenticationFailed(`unexpected ${api.name} request during SASL ${sasl.state === 'handshake' ? 'handshake' : 'authentication'}`);
      return false;
    }
    const handler = this.broker.handlers.get(api.apiKey);
    if (handler === undefined) {
      this.closeAfterPending(`API ${api.name} is not served by this broker`);
      return false;
    }
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (api.name === 'ApiVersions') {
        // Kafka answers a too-new ApiVersions with v0, UNSUPPORTED_VERSION and ApiVersions' own range.
        this.enqueue(api, 0, header.correlationId, unsupportedApiVersionsResponse());
      } else {
        this.closeAfterPending(`unsupported version ${version} of ${api.name}`);
      }
      return false;
    }
    let request: unknown;
    try {
      request = api.request.read(body, version);
    } catch (err) {
      if (err instanceof ProtocolDecodeError) this.closeAfterPending(`malformed ${api.name} v${version}: ${err.message}`);
      else this.closeAfterPending(`failed to read ${api.name} v${version}: ${(err as Error).message}`);
      return false;
    }
    const slot = newResponseSlot(frame.length);
    const metrics = this.broker.metrics.request(api.apiKey) ?? null;
    if (metrics !== null) {
      metrics.count++;
      slot.metrics = metrics;
      slot.startedMs = performance.now();
    }
    const ctx: RequestContext = {
      broker: this.broker,
      header,
      apiVersion: version,
      clientHost: this.clientHost,
      principal: this.principal,
      sasl,
      authorization: handler.authorization,
      signal: this.abort.signal,
      get mustAnswerSoon(): boolean {
        return slot.hurried;
      },
      whenAnswerSoon(wake: () => void): void {
        if (slot.hurried) wake();
        else slot.hurry = wake;
      },
      onResponseWritten(callback: () => void): void {
        (slot.written ??= []).push(callback);
      },
      holdLaterRequests: (done: Promise<unknown>): void => this.holdUntil(done),
    };
    let result;
    try {
      const controls = this.broker.controls;
      result = controls.active
        ? controls.intercept(
          { api, header, body: request, clientHost: this.clientHost, listener: this.identity.listener, broker: `${this.broker.advertisedHost}:${this.broker.advertisedPort}` },
          (r) => handler.handle(ctx, r),
          () => this.close(`injected fault: ${api.name} dropped the connection`, 'error'),
        )
        : handler.handle(ctx, request);
    } catch (err) {
      if (err instanceof UnparsableRequestError) {
        this.closeAfterPending(`invalid ${api.name} v${version}: ${err.message}`);
        return false;
      }
      this.broker.log.error('handler failed', { api: api.name, version, err });
      this.close(`internal error in ${api.name}`, 'error');
      return false;
    }
    if (result === NO_RESPONSE) {
      metrics?.duration.observe((performance.now() - slot.startedMs) / 1000);
      return false;
    }
    this.enqueue(api, version, header.correlationId, result, slot);
    return result instanceof Promise;
  }

  private holdUntil(done: Promise<unknown>): void {
    this.holding = done;
    const release = (): void => {
      if (this.holding !== done) return;
      this.holding = null;
      queueMicrotask(() => this.processFrames());
    };
    done.then(release, release);
  }

  private enqueue(api: ApiCodecs, version: number, correlationId: number, result: unknown, slot: ResponseSlot = newResponseSlot()): void {
    this.enqueueEncoded(api.name, (body) => encodeResponse(api, version, correlationId, body), result, slot);
  }

  /**
   * A raw SASL token after a SaslHandshake v0: answered with a raw token (size prefix, bytes),
   * or, when authentication fails, by closing the connection (the raw exchange has no way to
   * say why, as in Kafka).
   */
  private onRawSaslToken(sasl: SaslAuthenticator, frame: Buffer): boolean {
    const slot = newResponseSlot(frame.length);
    const result = sasl.authenticate(frame, this.abort.signal);
    const raw = (r: unknown): unknown => {
      const step = r as { errorCode: number; challenge: Buffer };
      if (step.errorCode !== 0) return null;
      return step.challenge;
    };
    const answer = result instanceof Promise ? result.then(raw) : raw(result);
    this.enqueueEncoded('SASL token', (token) => {
      if (token === null) return [];
      const size = Buffer.allocUnsafe(4);
      size.writeInt32BE((token as Buffer).length, 0);
      return [size, token as Buffer];
    }, answer, slot);
    return answer instanceof Promise;
  }

  /** A failed authentication: counted, logged (rate-limited), and the connection closes after its pending answers. */
  private authenticationFailed(reason: string): void {
    this.monitor.authenticationFailed({ client: this.clientHost, listener: this.identity.listener, reason });
    this.closeAfterPending(reason, 'authentication');
  }

  /** After each response of a SASL listener's connection: the outcome of the authentication so far. */
  private afterSaslStep(): void {
    const sasl = this.sasl;
    if (sasl === null || this.closingReason !== null) return;
    if (sasl.state === 'failed') {
      this.authenticationFailed(sasl.failure ?? 'SASL authentication failed');
    } else if (sasl.state === 'complete' && this.principal !== sasl.principal) {
      this.principal = sasl.principal!;
      this.unauthenticated = false;
      this.decoder.maxFrameBytes = this.broker.config.maxRequestBytes;
      this.maxUnwrittenBytes = MAX_UNWRITTEN_BYTES;
      this.clearAuthenticationTimer();
      this.broker.log.debug('authenticated', { client: this.clientHost, listener: this.identity.listener, mechanism: sasl.mechanismName, principal: this.principal });
      // Requests sent during PLAIN's password check are taken up now (reading stopped meanwhile).
      queueMicrotask(() => this.processFrames());
    }
  }

  private enqueueEncoded(what: string, encode: (body: unknown) => Buffer[], result: unknown, slot: ResponseSlot): void {
    this.queue.push(slot);
    const complete = (body: unknown): void => {
      if (this.closed) return;
      try {
        slot.chunks = encode(body);
      } catch (err) {
        this.broker.log.error('response could not be encoded', { api: what, err });
        this.close(`internal error encoding ${what}`, 'error');
        return;
      }
      slot.done = true;
      if (this.sasl !== null && this.sasl.state !== 'authenticate') this.afterSaslStep();
      slot.metrics?.duration.observe((performance.now() - slot.startedMs) / 1000);
      if (!this.queue.isHead(slot)) this.queue.hurryAheadOf(slot);
      this.flush();
    };
    if (result instanceof Promise) {
      result.then(complete, (err: unknown) => {
        if (this.closed) return;
        if ((err as { code?: unknown }).code === 'ERR_ACKS_ZERO_PRODUCE_FAILED') {
          // No response for this request, none for the ones after it (Kafka would not have
          // read them); the ones before it are still written.
          this.queue.dropFrom(slot);
          this.closeAfterPending('acks=0 produce failed', 'error');
          return;
        }
        if ((err as { code?: unknown }).code === 'ERR_PASSWORD_CHECKS_BUSY') {
          // Unanswered, as Kafka when it cannot authenticate now: the client retries.
          this.queue.dropFrom(slot);
          this.monitor.authenticationBusy({ client: this.clientHost, listener: this.identity.listener });
          this.closeAfterPending('too many password checks waiting', 'authentication');
          return;
        }
        this.broker.log.error('handler failed', { api: what, err });
        this.close(`internal error in ${what}`, 'error');
      });
    } else {
      complete(result);
    }
  }

  /** Writes every response at the head of the queue that is ready, in order. */
  private flush(): void {
    if (this.queue.writeReady(this.socket)) {
      this.lastActiveMs = performance.now();
      if (this.socket.writableLength > this.peakUnwrittenBytes) this.peakUnwrittenBytes = this.socket.writableLength;
    }
    if (this.closingReason !== null) {
      if (this.queue.length === 0) this.finishClosing();
      return;
    }
    this.maybeResume();
  }

  /** Reading stopped at a limit: takes up the requests already received, then reads again. */
  private maybeResume(): void {
    if (!this.readingPaused || this.closed || this.overLimits()) return;
    this.processFrames();
  }
}
