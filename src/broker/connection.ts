/**
 * One client connection: cuts frames, decodes headers and bodies, runs handlers, and writes
 * responses in request order (clients match responses to requests by order as well as by
 * correlation id). Requests are processed as they arrive, so a parked request (a long-poll
 * fetch) does not stop later ones from being worked on; and once a later response is ready,
 * the parked request is told to answer now (`answerSoon`), so it does not hold it back.
 * Kafka reads a connection's next request only after answering the previous one, so there a
 * Heartbeat, JoinGroup or Metadata request that a client sends on the connection where its
 * Fetch is long-polling waits up to fetch.max.wait.ms; here the Fetch comes back early,
 * possibly empty, and the client simply fetches again.
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
 * - connections.max.idle.ms closes a connection with nothing in flight, no complete request
 *   and no progress writing its responses for that long. Unlike Kafka, whose Selector counts
 *   any bytes read as activity, the bytes of a request that has not completed do not count:
 *   a client trickling one byte a second (slow-loris) is closed like an idle one instead of
 *   holding its connection and buffer for as long as it likes. No client sends a request
 *   for that long (request.timeout.ms is 30 s) so no well-behaved one is affected.
 */
import type { Socket } from 'node:net';
import { FrameDecoder, FrameTooLargeError, UnknownApiError, decodeRequestHeader, encodeResponse } from '../protocol/frame.js';
import { ProtocolDecodeError } from '../protocol/primitives/decode-error.js';
import type { ApiCodecs } from '../protocol/messages/index.js';
import type { BrokerContext } from './broker-context.js';
import { NO_RESPONSE, UnparsableRequestError, type RequestContext } from './handler.js';
import { unsupportedApiVersionsResponse } from './handlers/api-versions.js';
import type { ConnectionMonitor } from './connection-stats.js';
import type { RequestMetrics } from './metrics/broker-metrics.js';

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
/** The idle check never runs more often than this (connections.max.idle.ms of 0 or 1). */
const MIN_IDLE_CHECK_MS = 10;

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
  /** Request bytes received and not yet handled: a request still arriving, or requests held while throttled. */
  readonly bufferedRequestBytes: number;
  /** Reading stopped until the client reads its responses. */
  readonly readingPaused: boolean;
  /** Times this connection stopped reading. */
  readonly throttled: number;
  /** The most of each seen at once. */
  readonly peakInFlight: number;
  readonly peakInFlightRequestBytes: number;
  readonly peakUnwrittenBytes: number;
  readonly peakBufferedRequestBytes: number;
}

interface Slot {
  done: boolean;
  /** The request's size: it is held until its response is written. */
  requestBytes: number;
  chunks: Buffer[] | null;
  /** Created when the handler looked at `answerSoon` (parked requests do). */
  hurry: AbortController | null;
  /** Run when the response has been handed to the kernel (`onResponseWritten`). */
  written: (() => void)[] | null;
  /** The request's API counters, and when its frame was taken up (performance.now()). */
  metrics: RequestMetrics | null;
  startedMs: number;
}

function newSlot(): Slot {
  return { done: false, requestBytes: 0, chunks: null, hurry: null, written: null, metrics: null, startedMs: 0 };
}

type CloseKind = 'idle' | 'badInput' | 'error' | 'shutdown';

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly queue: Slot[] = [];
  private readonly abort = new AbortController();
  private readonly clientHost: string;
  private readingPaused = false;
  /** Set while frames are being taken from the decoder (a response written meanwhile must not start another loop). */
  private processing = false;
  private closed = false;
  /** Set by bad input: the connection closes once the responses before it are written. */
  private closingReason: string | null = null;
  private closingKind: CloseKind = 'badInput';
  private readonly idleMs: number;
  private idleTimer: NodeJS.Timeout | null = null;
  /** performance.now() of the last complete request, response or write progress. */
  private lastActiveMs = performance.now();
  /** Bytes the kernel had taken at the last idle check (write progress counts as activity). */
  private sentAtLastCheck = 0;
  private inFlightRequestBytes = 0;
  private throttledCount = 0;
  private peakInFlight = 0;
  private peakInFlightRequestBytes = 0;
  private peakUnwrittenBytes = 0;
  private peakBufferedRequestBytes = 0;

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerContext,
    private readonly monitor: ConnectionMonitor,
    private readonly identity: { readonly listener: string; readonly principal: string },
    private readonly onClose: (c: Connection) => void,
  ) {
    this.decoder = new FrameDecoder(broker.config.maxRequestBytes);
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
      this.abort.abort();
      this.onClose(this);
    });
    if (this.idleMs >= 0) this.armIdleTimer(this.idleMs);
  }

  /** Counters and levels of this connection (for operators and tests). */
  info(): ConnectionInfo {
    return {
      client: this.clientHost,
      clientPort: this.socket.remotePort ?? 0,
      listener: this.identity.listener,
      principal: this.identity.principal,
      inFlight: this.queue.length,
      inFlightRequestBytes: this.inFlightRequestBytes,
      unwrittenBytes: this.socket.writableLength,
      bufferedRequestBytes: this.decoder.buffered,
      readingPaused: this.readingPaused,
      throttled: this.throttledCount,
      peakInFlight: this.peakInFlight,
      peakInFlightRequestBytes: this.peakInFlightRequestBytes,
      peakUnwrittenBytes: this.peakUnwrittenBytes,
      peakBufferedRequestBytes: this.peakBufferedRequestBytes,
    };
  }

  /** Closes the connection (log line included); pending responses are dropped. */
  close(reason: string, kind: CloseKind = 'shutdown'): void {
    if (this.closed) return;
    this.closed = true;
    this.clearIdleTimer();
    // Idle closes are logged (rate-limited) by the monitor; a shutdown closes every connection.
    if (kind === 'error') this.broker.log.info('closing connection', { client: this.clientHost, reason });
    else if (kind === 'shutdown') this.broker.log.debug('closing connection', { client: this.clientHost, reason });
    this.abort.abort();
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
    if (this.closingKind !== 'badInput') this.broker.log.info('closing connection', { client: this.clientHost, reason: this.closingReason });
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
    if (this.decoder.buffered > this.peakBufferedRequestBytes) this.peakBufferedRequestBytes = this.decoder.buffered;
    this.processFrames();
  }

  /**
   * Handles the requests received, one frame at a time, until none is complete or the
   * connection has too much in flight or unwritten: then reading stops, and what was received
   * stays in the decoder (at most what one read brought) until the client catches up.
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
        if (this.overLimits()) {
          this.pause();
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

  private overLimits(): boolean {
    return this.queue.length >= MAX_IN_FLIGHT
      || this.inFlightRequestBytes >= MAX_IN_FLIGHT_REQUEST_BYTES
      || this.socket.writableLength >= MAX_UNWRITTEN_BYTES;
  }

  private pause(): void {
    if (this.readingPaused) return;
    this.readingPaused = true;
    this.throttledCount++;
    this.monitor.throttled({ client: this.clientHost, inFlight: this.queue.length, unwrittenBytes: this.socket.writableLength });
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
    const slot: Slot = newSlot();
    slot.requestBytes = frame.length;
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
      principal: this.identity.principal,
      signal: this.abort.signal,
      get answerSoon(): AbortSignal {
        slot.hurry ??= new AbortController();
        return slot.hurry.signal;
      },
      onResponseWritten(callback: () => void): void {
        (slot.written ??= []).push(callback);
      },
    };
    let result;
    try {
      result = handler.handle(ctx, request);
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

  private enqueue(api: ApiCodecs, version: number, correlationId: number, result: unknown, slot: Slot = newSlot()): void {
    this.queue.push(slot);
    this.inFlightRequestBytes += slot.requestBytes;
    if (this.queue.length > this.peakInFlight) this.peakInFlight = this.queue.length;
    if (this.inFlightRequestBytes > this.peakInFlightRequestBytes) this.peakInFlightRequestBytes = this.inFlightRequestBytes;
    const complete = (body: unknown): void => {
      if (this.closed) return;
      try {
        slot.chunks = encodeResponse(api, version, correlationId, body);
      } catch (err) {
        this.broker.log.error('response could not be encoded', { api: api.name, version, err });
        this.close(`internal error encoding ${api.name}`, 'error');
        return;
      }
      slot.done = true;
      slot.metrics?.duration.observe((performance.now() - slot.startedMs) / 1000);
      if (this.queue[0] !== slot) this.hurryAheadOf(slot);
      this.flush();
    };
    if (result instanceof Promise) {
      result.then(complete, (err: unknown) => {
        if (this.closed) return;
        if ((err as { code?: unknown }).code === 'ERR_ACKS_ZERO_PRODUCE_FAILED') {
          // No response for this request, none for the ones after it (Kafka would not have
          // read them); the ones before it are still written.
          const at = this.queue.indexOf(slot);
          if (at >= 0) {
            for (const dropped of this.queue.splice(at)) this.inFlightRequestBytes -= dropped.requestBytes;
          }
          this.closeAfterPending('acks=0 produce failed', 'error');
          return;
        }
        this.broker.log.error('handler failed', { api: api.name, version, err });
        this.close(`internal error in ${api.name}`, 'error');
      });
    } else {
      complete(result);
    }
  }

  /** `slot`'s response is ready but waits behind unanswered ones: parked ones answer now. */
  private hurryAheadOf(slot: Slot): void {
    for (const s of this.queue) {
      if (s === slot) return;
      if (!s.done && s.hurry !== null && !s.hurry.signal.aborted) s.hurry.abort();
    }
  }

  /** Writes every response at the head of the queue that is ready, in order. */
  private flush(): void {
    let wrote = false;
    while (this.queue.length > 0 && this.queue[0]!.done) {
      const slot = this.queue.shift()!;
      this.inFlightRequestBytes -= slot.requestBytes;
      if (!wrote) this.socket.cork();
      wrote = true;
      const chunks = slot.chunks!;
      const written = slot.written;
      if (written === null) {
        for (const chunk of chunks) this.socket.write(chunk);
      } else {
        // Node calls a write's callback once that write reached the kernel (or failed).
        for (let i = 0; i < chunks.length - 1; i++) this.socket.write(chunks[i]!);
        this.socket.write(chunks[chunks.length - 1]!, () => {
          for (const callback of written) callback();
        });
      }
    }
    if (wrote) {
      process.nextTick(() => this.socket.uncork());
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
