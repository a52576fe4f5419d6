import { constants as bufferConstants } from 'node:buffer';
import { gunzip, gunzipSync, gzip, gzipSync, type ZlibOptions } from 'node:zlib';
import { ProtocolEncodeError } from '../primitives/decode-error.js';
import { CorruptRecordError } from './errors.js';
import { compressLz4, compressLz4Async, decompressLz4, decompressLz4Async } from './lz4.js';
import { compressSnappyRaw, decompressSnappy } from './snappy.js';
import { compressZstd, decompressZstd } from './zstd.js';

/** Bits 0-2 of a batch's attributes. */
export enum CompressionType {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

/** What one batch may decompress to unless the caller says otherwise. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

export interface CompressOptions {
  /** gzip (1-9) or zstd (negative to 22) level; the codec's default when absent. */
  level?: number;
}

export interface DecompressOptions {
  /** Refuse (with CorruptRecordError 'decompressed-too-large') output larger than this. */
  maxDecompressedBytes?: number;
}

export function compressionTypeFromId(id: number, at = 0): CompressionType {
  if (id >= CompressionType.None && id <= CompressionType.Zstd && Number.isInteger(id)) return id as CompressionType;
  throw new CorruptRecordError('unknown-compression', `unknown compression type ${id}`, at);
}

function gzipOptions(options: CompressOptions | undefined): ZlibOptions {
  return options?.level === undefined ? {} : { level: options.level };
}

export function compress(type: CompressionType, data: Buffer, options?: CompressOptions): Buffer {
  switch (type) {
    case CompressionType.None:
      return data;
    case CompressionType.Gzip:
      return gzipSync(data, gzipOptions(options));
    case CompressionType.Snappy:
      // Raw, not Java's framing: see snappy.ts.
      return compressSnappyRaw(data);
    case CompressionType.Lz4:
      return compressLz4(data);
    case CompressionType.Zstd:
      return compressZstd(data, options?.level);
  }
  throw new ProtocolEncodeError(`unknown compression type ${String(type)}`);
}

/** Off the main thread where the binding allows it (gzip, lz4); snappy and zstd are fast enough inline. */
export function compressAsync(type: CompressionType, data: Buffer, options?: CompressOptions): Promise<Buffer> {
  switch (type) {
    case CompressionType.Gzip:
      return new Promise((resolve, reject) => {
        gzip(data, gzipOptions(options), (err, out) => (err ? reject(err) : resolve(out)));
      });
    case CompressionType.Lz4:
      return compressLz4Async(data);
    default:
      return Promise.resolve().then(() => compress(type, data, options));
  }
}

function maxBytesOf(options: DecompressOptions | undefined): number {
  return options?.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
}

/** zlib wants 1..buffer.constants.MAX_LENGTH. */
function zlibOutputLimit(maxBytes: number): number {
  return Math.min(Math.max(1, maxBytes), bufferConstants.MAX_LENGTH);
}

function gzipFailure(err: Error & { code?: string }, maxBytes: number): CorruptRecordError {
  if (err.code === 'ERR_BUFFER_TOO_LARGE') {
    return new CorruptRecordError('decompressed-too-large', `gzip output exceeds the limit of ${maxBytes} bytes`, 0);
  }
  return new CorruptRecordError('decompression-failed', `gzip: ${err.message}`, 0);
}

/**
 * Decompresses one batch's records section. Every codec refuses output above
 * `maxDecompressedBytes` before or while producing it, never after the fact; every
 * failure is a CorruptRecordError.
 */
export function decompress(type: CompressionType, data: Buffer, options?: DecompressOptions): Buffer {
  const maxBytes = maxBytesOf(options);
  switch (type) {
    case CompressionType.None:
      return data;
    case CompressionType.Gzip:
      try {
        // zlib stops inflating once the output would pass maxOutputLength.
        return gunzipSync(data, { maxOutputLength: zlibOutputLimit(maxBytes) });
      } catch (err) {
        throw gzipFailure(err as Error, maxBytes);
      }
    case CompressionType.Snappy:
      return decompressSnappy(data, maxBytes);
    case CompressionType.Lz4:
      return decompressLz4(data, maxBytes);
    case CompressionType.Zstd:
      return decompressZstd(data, maxBytes);
  }
  throw new CorruptRecordError('unknown-compression', `unknown compression type ${String(type)}`, 0);
}

export function decompressAsync(type: CompressionType, data: Buffer, options?: DecompressOptions): Promise<Buffer> {
  const maxBytes = maxBytesOf(options);
  switch (type) {
    case CompressionType.Gzip:
      return new Promise((resolve, reject) => {
        gunzip(data, { maxOutputLength: zlibOutputLimit(maxBytes) }, (err, out) =>
          err ? reject(gzipFailure(err, maxBytes)) : resolve(out),
        );
      });
    case CompressionType.Lz4:
      return decompressLz4Async(data, maxBytes);
    default:
      return Promise.resolve().then(() => decompress(type, data, options));
  }
}
