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
 */
import type { Socket } from 'node:net';
import { FrameDecoder, FrameTooLargeError, UnknownApiError, decodeRequestHeader, encodeResponse } from '../protocol/frame.js';
import { ProtocolDecodeError } from '../protocol/primitives/decode-error.js';
import type { ApiCodecs } from '../protocol/messages/index.js';
import type { BrokerContext } from './broker-context.js';
import { NO_RESPONSE, type RequestContext } from './handler.js';
import { unsupportedApiVersionsResponse } from './handlers/api-versions.js';

/** Stop reading from a client with this many requests awaiting their responses. */
const MAX_IN_FLIGHT = 100;
/** Stop reading while this many response bytes wait for a slow reader. */
const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;

interface Slot {
  done: boolean;
  chunks: Buffer[] | null;
  /** Created when the handler looked at `answerSoon` (parked requests do). */
  hurry: AbortController | null;
  /** Run when the response has been handed to the kernel (`onResponseWritten`). */
  written: (() => void)[] | null;
}

function newSlot(): Slot {
  return { done: false, chunks: null, hurry: null, written: null };
}

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly queue: Slot[] = [];
  private readonly abort = new AbortController();
  private readonly clientHost: string;
  private readingPaused = false;
  private closed = false;
  /** Set by bad input: the connection closes once the responses before it are written. */
  private closingReason: string | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerContext,
    private readonly onClose: (c: Connection) => void,
  ) {
    this.decoder = new FrameDecoder(broker.config.maxRequestBytes);
    this.clientHost = `/${socket.remoteAddress ?? 'unknown'}`;
    socket.setNoDelay(true);
    socket.setTimeout(broker.config.connectionsMaxIdleMs, () => {
      if (this.queue.length === 0) this.close('idle timeout');
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.maybeResume());
    socket.on('error', (err) => this.broker.log.debug('connection error', { client: this.clientHost, err }));
    socket.on('close', () => {
      this.closed = true;
      this.abort.abort();
      this.onClose(this);
    });
  }

  /** Closes the connection (log line included); pending responses are dropped. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.broker.log.info('closing connection', { client: this.clientHost, reason });
    this.abort.abort();
    this.socket.destroy();
  }

  /**
   * Bad input: every request before it still gets its response, then the connection closes
   * (Kafka reads a connection's next request only once the previous one is answered).
   */
  private closeAfterPending(reason: string): void {
    if (this.closed || this.closingReason !== null) return;
    this.closingReason = reason;
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
    this.broker.log.info('closing connection', { client: this.clientHost, reason: this.closingReason });
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
    let frames: Buffer[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      const reason = err instanceof FrameTooLargeError ? err.message : `bad frame: ${(err as Error).message}`;
      // The complete requests before the bad size prefix are handled first.
      for (const frame of err instanceof FrameTooLargeError ? err.frames : []) {
        if (this.closed || this.closingReason !== null) break;
        this.onFrame(frame);
      }
      this.closeAfterPending(reason);
      return;
    }
    for (const frame of frames) {
      if (this.closed || this.closingReason !== null) return;
      this.onFrame(frame);
    }
    this.maybePause();
  }

  private onFrame(frame: Buffer): void {
    let decoded;
    try {
      decoded = decodeRequestHeader(frame);
    } catch (err) {
      if (err instanceof UnknownApiError) this.closeAfterPending(`unknown API key ${err.apiKey}`);
      else this.closeAfterPending(`undecodable request header: ${(err as Error).message}`);
      return;
    }
    const { header, api, body } = decoded;
    const version = header.requestApiVersion;
    const handler = this.broker.handlers.get(api.apiKey);
    if (handler === undefined) {
      this.closeAfterPending(`API ${api.name} is not served by this broker`);
      return;
    }
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (api.name === 'ApiVersions') {
        // Kafka answers a too-new ApiVersions with v0, UNSUPPORTED_VERSION and ApiVersions' own range.
        this.enqueue(api, 0, header.correlationId, unsupportedApiVersionsResponse());
      } else {
        this.closeAfterPending(`unsupported version ${version} of ${api.name}`);
      }
      return;
    }
    let request: unknown;
    try {
      request = api.request.read(body, version);
    } catch (err) {
      if (err instanceof ProtocolDecodeError) this.closeAfterPending(`malformed ${api.name} v${version}: ${err.message}`);
      else this.closeAfterPending(`failed to read ${api.name} v${version}: ${(err as Error).message}`);
      return;
    }
    const slot: Slot = newSlot();
    const ctx: RequestContext = {
      broker: this.broker,
      header,
      apiVersion: version,
      clientHost: this.clientHost,
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
      this.broker.log.error('handler failed', { api: api.name, version, err });
      this.close(`internal error in ${api.name}`);
      return;
    }
    if (result === NO_RESPONSE) return;
    this.enqueue(api, version, header.correlationId, result, slot);
  }

  private enqueue(api: ApiCodecs, version: number, correlationId: number, result: unknown, slot: Slot = newSlot()): void {
    this.queue.push(slot);
    const complete = (body: unknown): void => {
      if (this.closed) return;
      try {
        slot.chunks = encodeResponse(api, version, correlationId, body);
      } catch (err) {
        this.broker.log.error('response could not be encoded', { api: api.name, version, err });
        this.close(`internal error encoding ${api.name}`);
        return;
      }
      slot.done = true;
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
          if (at >= 0) this.queue.length = at;
          this.closeAfterPending('acks=0 produce failed');
          return;
        }
        this.broker.log.error('handler failed', { api: api.name, version, err });
        this.close(`internal error in ${api.name}`);
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
    if (wrote) process.nextTick(() => this.socket.uncork());
    if (this.closingReason !== null) {
      if (this.queue.length === 0) this.finishClosing();
      return;
    }
    this.maybeResume();
  }

  private maybePause(): void {
    if (this.readingPaused || this.closed || this.closingReason !== null) return;
    if (this.queue.length >= MAX_IN_FLIGHT || this.socket.writableLength >= MAX_UNWRITTEN_BYTES) {
      this.readingPaused = true;
      this.socket.pause();
    }
  }

  private maybeResume(): void {
    if (!this.readingPaused || this.closed) return;
    if (this.queue.length < MAX_IN_FLIGHT && this.socket.writableLength < MAX_UNWRITTEN_BYTES) {
      this.readingPaused = false;
      this.socket.resume();
    }
  }
}
