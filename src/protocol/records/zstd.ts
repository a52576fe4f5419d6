import { CorruptRecordError } from './errors.js';
import { lazyRequire } from './native-codec.js';

const zstdNapi = lazyRequire<typeof import('zstd-napi')>('zstd-napi');
// The low-level binding exposes streaming decompression into buffers we size ourselves;
// the high-level `decompress` trusts the frame's declared size and has no output limit.
type ZstdBinding = typeof import('zstd-napi/binding.js');
const zstdBinding = lazyRequire<ZstdBinding>('zstd-napi/binding');

/** ZSTD_WINDOWLOG_LIMIT_DEFAULT: the largest window any mainstream decoder accepts. */
const MAX_WINDOW_LOG = 27;
/** 8 MiB holds the window of every level up to 19, including zstd-jni streams of unknown size. */
const MIN_WINDOW_LOG = 23;

let dctx: InstanceType<ZstdBinding['DCtx']> | undefined;

export function compressZstd(data: Buffer, level?: number): Buffer {
  return zstdNapi().compress(data, level === undefined ? {} : { compressionLevel: level });
}

function isSingleFrame(binding: ZstdBinding, data: Buffer): boolean {
  try {
    return binding.findFrameCompressedSize(data) === data.length;
  } catch {
    return false;
  }
}

/**
 * One call into an exactly sized buffer: the common case (zstd-napi, librdkafka and
 * one-shot encoders record the content size). A frame that holds more than it declares
 * fails with "destination buffer too small" rather than growing anything.
 */
function decompressKnownSize(context: InstanceType<ZstdBinding['DCtx']>, data: Buffer, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let written: number;
  try {
    written = context.decompress(out, data);
  } catch (err) {
    fail('decompression-failed', (err as Error).message);
  }
  if (written !== size) fail('decompression-failed', `frame declared ${size} bytes but held ${written}`);
  return out;
}

function fail(reason: 'decompression-failed' | 'decompressed-too-large', message: string): never {
  throw new CorruptRecordError(reason, `zstd: ${message}`, 0);
}

/**
 * Streams the frame(s) out in chunks and stops as soon as the output passes `maxBytes`,
 * so neither a lying content size nor a bomb without one gets further than the limit.
 * The window the decoder allocates is also capped near the limit (never below 8 MiB).
 */
export function decompressZstd(data: Buffer, maxBytes: number): Buffer {
  const binding = zstdBinding();
  let declared: number | null;
  try {
    declared = binding.getFrameContentSize(data);
  } catch (err) {
    fail('decompression-failed', (err as Error).message);
  }
  if (declared !== null && declared > maxBytes) {
    fail('decompressed-too-large', `frame declares ${declared} bytes, more than the limit of ${maxBytes}`);
  }

  dctx ??= new binding.DCtx();
  if (declared !== null && isSingleFrame(binding, data)) return decompressKnownSize(dctx, data, declared);

  const windowLog = Math.min(MAX_WINDOW_LOG, Math.max(MIN_WINDOW_LOG, Math.ceil(Math.log2(Math.max(maxBytes, 1)))));
  const chunks: Buffer[] = [];
  let total = 0;
  let input = data;
  try {
    dctx.reset(binding.ResetDirective.sessionAndParameters);
    dctx.setParameter(binding.DParameter.windowLogMax, windowLog);
    for (;;) {
      // One byte more than the limit allows is enough to tell "too large" from "exactly full".
      const out = Buffer.allocUnsafe(Math.min(binding.dStreamOutSize(), maxBytes - total + 1));
      const [hint, produced, consumed] = dctx.decompressStream(out, input);
      total += produced;
      if (total > maxBytes) fail('decompressed-too-large', `output exceeds the limit of ${maxBytes} bytes`);
      if (produced > 0) chunks.push(out.subarray(0, produced));
      input = input.subarray(consumed);
      if (hint === 0 && input.length === 0) break;
      if (produced === 0 && consumed === 0) fail('decompression-failed', 'truncated frame');
    }
  } catch (err) {
    if (err instanceof CorruptRecordError) throw err;
    fail('decompression-failed', (err as Error).message);
  } finally {
    // A failed frame leaves the shared context mid-stream.
    dctx.reset(binding.ResetDirective.sessionOnly);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
