/**
 * Size-prefixed frames and the request/response headers around message bodies: what the
 * broker's connection loop and the client's connection both speak.
 *
 * Header versions follow Kafka's rule: a request header is v2 when the request version is
 * flexible and v1 otherwise; a response header is v1 when flexible and v0 otherwise, except
 * that ApiVersions responses always use v0 so a client can read them before it knows
 * which versions the broker speaks.
 */
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';
import { ProtocolDecodeError } from './primitives/decode-error.js';
import { apiCodecs, type ApiCodecs } from './messages/index.js';
import { RequestHeader, type RequestHeader as RequestHeaderData } from './messages/request-header.js';
import { ResponseHeader } from './messages/response-header.js';
import type { MessageCodec } from './messages/runtime.js';

const API_VERSIONS_KEY = 18;

/** Kafka's `socket.request.max.bytes` default. */
export const DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

function isFlexible(codec: MessageCodec<unknown>, version: number): boolean {
  return codec.flexibleFrom !== null && version >= codec.flexibleFrom;
}

export function requestHeaderVersion(api: ApiCodecs, apiVersion: number): number {
  return isFlexible(api.request, apiVersion) ? 2 : 1;
}

export function responseHeaderVersion(api: ApiCodecs, apiVersion: number): number {
  if (api.apiKey === API_VERSIONS_KEY) return 0;
  return isFlexible(api.response, apiVersion) ? 1 : 0;
}

/** Thrown for an API key Brook has no codec for; Kafka closes the connection on those. */
export class UnknownApiError extends ProtocolDecodeError {
  readonly apiKey: number;
  constructor(apiKey: number, offset: number) {
    super(`unknown API key ${apiKey}`, offset);
    this.name = 'UnknownApiError';
    this.apiKey = apiKey;
  }
}

export interface DecodedRequestHeader {
  readonly header: RequestHeaderData;
  readonly api: ApiCodecs;
  /** Reader positioned at the start of the body. */
  readonly body: Reader;
}

/**
 * Reads the request header of one frame (size prefix already removed). The API key and
 * version come first in every header version, so they decide how the rest is read.
 */
export function decodeRequestHeader(frame: Buffer): DecodedRequestHeader {
  const r = new Reader(frame);
  if (frame.length < 4) r.fail('request shorter than its api key and version');
  const apiKey = frame.readInt16BE(0);
  const apiVersion = frame.readInt16BE(2);
  const api = apiCodecs(apiKey);
  if (api === undefined) throw new UnknownApiError(apiKey, 0);
  const header = RequestHeader.read(r, requestHeaderVersion(api, apiVersion));
  return { header, api, body: r };
}

export interface DecodedRequest<T = unknown> {
  readonly header: RequestHeaderData;
  readonly api: ApiCodecs;
  readonly body: T;
}

/** Header and body of one request frame. Versions outside the codec's range are decode errors. */
export function decodeRequest(frame: Buffer): DecodedRequest {
  const { header, api, body } = decodeRequestHeader(frame);
  return { header, api, body: api.request.read(body, header.requestApiVersion) };
}

export interface RequestToEncode<T> {
  readonly api: ApiCodecs;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  readonly body: T;
}

/** A whole request frame, size prefix included, as pieces ready for writev. */
export function encodeRequest<T>(req: RequestToEncode<T>): Buffer[] {
  const w = new Writer(256);
  w.writeInt32(0);
  RequestHeader.write(w, requestHeaderVersion(req.api, req.apiVersion), {
    requestApiKey: req.api.apiKey,
    requestApiVersion: req.apiVersion,
    correlationId: req.correlationId,
    clientId: req.clientId,
  });
  req.api.request.write(w, req.apiVersion, req.body);
  w.patchInt32(0, w.length - 4);
  return w.toChunks();
}

/** A whole response frame, size prefix included, as pieces ready for writev. */
export function encodeResponse<T>(api: ApiCodecs, apiVersion: number, correlationId: number, body: T): Buffer[] {
  const w = new Writer(256);
  w.writeInt32(0);
  ResponseHeader.write(w, responseHeaderVersion(api, apiVersion), { correlationId });
  api.response.write(w, apiVersion, body);
  w.patchInt32(0, w.length - 4);
  return w.toChunks();
}

/** The correlation id that starts every response frame (size prefix removed). */
export function responseCorrelationId(frame: Buffer): number {
  if (frame.length < 4) throw new ProtocolDecodeError('response shorter than its correlation id', 0);
  return frame.readInt32BE(0);
}

/** Decodes a response frame whose API and version the caller knows from the correlation id. */
export function decodeResponse(frame: Buffer, api: ApiCodecs, apiVersion: number): { correlationId: number; body: unknown } {
  const r = new Reader(frame);
  r.nullBytesAsEmpty = true;
  const header = ResponseHeader.read(r, responseHeaderVersion(api, apiVersion));
  if (api.apiKey !== API_VERSIONS_KEY || apiVersion === 0) return { correlationId: header.correlationId, body: api.response.read(r, apiVersion) };
  // A broker that does not know this ApiVersions version (any Kafka before the schemas'
  // newest) answers UNSUPPORTED_VERSION at version 0, with its own range: read it as v0 when
  // it does not read as the version asked, as Kafka's ApiVersionsResponse.parse does.
  const start = r.offset;
  try {
    return { correlationId: header.correlationId, body: api.response.read(r, apiVersion) };
  } catch (err) {
    r.offset = start;
    try {
      return { correlationId: header.correlationId, body: api.response.read(r, 0) };
    } catch {
      throw err;
    }
  }
}

/** Thrown when a peer announces a frame larger than allowed; the connection must close. */
export class FrameTooLargeError extends Error {
  readonly code = 'ERR_FRAME_TOO_LARGE' as const;
  readonly size: number;
  /** The complete frames that came before the bad size prefix (a peer handles them first, as Kafka does). */
  readonly frames: Buffer[];
  constructor(size: number, max: number, frames: Buffer[] = []) {
    super(`frame of ${size} bytes exceeds the limit of ${max}`);
    this.name = 'FrameTooLargeError';
    this.size = size;
    this.frames = frames;
  }
}

/**
 * Chunks shorter than this are merged with a short chunk before them, so a peer that sends
 * its bytes a few at a time (a slow-loris trickle, one byte per TCP segment) costs one Buffer
 * per ~4 KiB held rather than one per byte (each Buffer costs about 100 bytes of its own).
 */
const SMALL_CHUNK = 4096;

/**
 * Cuts a byte stream into frames. The announced size is checked against the limit before
 * any buffer is allocated for it; a frame's bytes are held only as they arrive (never a
 * buffer of the announced size up front, as Kafka's NetworkReceive allocates), and a frame
 * that arrives in one chunk is returned as a view of that chunk.
 *
 * Two ways to use it: `push` returns every frame a chunk completes; `append` + `next` hand
 * them out one at a time, so a reader can stop taking frames (backpressure) while the rest
 * stay here, unparsed.
 */
export class FrameDecoder {
  /** The largest size prefix accepted; may change between frames (a SASL connection's grows once authenticated). */
  maxFrameBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes needed before the next step: 4 for a size prefix, then 4 + size for its frame. */
  private needed = 4;
  /** The size prefix at the head has been read (and checked): `needed` is its frame's. */
  private sized = false;

  constructor(maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received but not yet returned as a frame. */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** Buffers holding those bytes (bounded by the small-chunk merging: about buffered / 2 KiB). */
  get chunks(): number {
    return this.pending.length;
  }

  /** True when bytes of a frame not yet complete are held (its size prefix or part of it). */
  get midFrame(): boolean {
    return this.pendingBytes > 0 && this.pendingBytes < this.needed;
  }

  /** Adds received bytes; `next` then returns the frames they complete. */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const last = this.pending.length - 1;
    if (last >= 0 && chunk.length < SMALL_CHUNK && this.pending[last]!.length < SMALL_CHUNK) {
      // Copies at most 2 * SMALL_CHUNK bytes; also lets go of a large chunk whose short tail this was.
      this.pending[last] = Buffer.concat([this.pending[last]!, chunk]);
    } else {
      this.pending.push(chunk);
    }
    this.pendingBytes += chunk.length;
  }

  /**
   * The next complete frame (size prefix removed), or null until more bytes arrive. Throws
   * FrameTooLargeError at a bad size prefix (after the frames before it were returned).
   */
  next(): Buffer | null {
    for (;;) {
      if (this.pendingBytes < this.needed) return null;
      // A large frame arrives in many chunks: join them once, when it is complete.
      if (this.pending[0]!.length < this.needed) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
      const data = this.pending[0]!;
      if (!this.sized) {
        const size = data.readInt32BE(0);
        if (size < 0 || size > this.maxFrameBytes) throw new FrameTooLargeError(size, this.maxFrameBytes);
        this.needed = 4 + size;
        this.sized = true;
        continue;
      }
      const frame = data.subarray(4, this.needed);
      if (data.length === this.needed) this.pending.shift();
      else this.pending[0] = data.subarray(this.needed);
      this.pendingBytes -= this.needed;
      this.needed = 4;
      this.sized = false;
      return frame;
    }
  }

  /** Adds received bytes; returns every frame now complete (size prefixes removed). */
  push(chunk: Buffer): Buffer[] {
    this.append(chunk);
    const frames: Buffer[] = [];
    try {
      for (let frame = this.next(); frame !== null; frame = this.next()) frames.push(frame);
    } catch (err) {
      if (err instanceof FrameTooLargeError) throw new FrameTooLargeError(err.size, this.maxFrameBytes, frames);
      throw err;
    }
    return frames;
  }
}
