import { CorruptRecordError } from './errors.js';
import { lazyRequire } from './native-codec.js';

const snappyNapi = lazyRequire<typeof import('snappy')>('snappy');

/*
 * Kafka's Java producer wraps its batches in snappy-java's SnappyOutputStream, which
 * frames raw snappy blocks in its own (non-standard) container:
 *
 *   header: 8-byte magic "\x82SNAPPY\0", int32 version (1), int32 compatible version (1)
 *   blocks: int32 compressed length, then one raw snappy block of <= 32 KiB input
 *
 * All ints are big-endian. librdkafka and franz-go write bare raw snappy, one block for the
 * whole batch, and read both (they detect the magic); SnappyInputStream, the reader of
 * Kafka's broker and Java consumer, also falls back to raw snappy when the magic is absent.
 * Brook reads both and writes raw, as librdkafka does: its batches reach 1 MB, which the
 * framing would cut into 32 blocks, each a native call, an output buffer and a copy into
 * the joined result for every reader (Brook's broker validating a produce included).
 * compressSnappyXerial writes Java's framing for callers that want its exact bytes.
 */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_VERSION = 1;
const XERIAL_COMPATIBLE_VERSION = 1;
export const XERIAL_HEADER_SIZE = 16;
/** SnappyOutputStream.DEFAULT_BLOCK_SIZE: uncompressed bytes per framed block. */
export const XERIAL_BLOCK_SIZE = 32 * 1024;
/** The first four magic bytes as a signed int32: what a block length reads as when a
 *  second stream was appended to the first (SnappyInputStream accepts that). */
const XERIAL_MAGIC_HEAD = XERIAL_MAGIC.readInt32BE(0);

const XERIAL_HEADER = Buffer.alloc(XERIAL_HEADER_SIZE);
XERIAL_MAGIC.copy(XERIAL_HEADER, 0);
XERIAL_HEADER.writeInt32BE(XERIAL_VERSION, 8);
XERIAL_HEADER.writeInt32BE(XERIAL_COMPATIBLE_VERSION, 12);

export function isXerialFramed(data: Uint8Array): boolean {
  if (data.length < XERIAL_HEADER_SIZE) return false;
  for (let i = 0; i < XERIAL_MAGIC.length; i++) if (data[i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

/** Raw snappy (no framing), one block, as librdkafka and franz-go write it: what `compress` writes. */
export function compressSnappyRaw(data: Buffer): Buffer {
  return snappyNapi().compressSync(data);
}

/** snappy-java framing, byte-compatible with SnappyOutputStream's default settings. */
export function compressSnappyXerial(data: Buffer): Buffer {
  // SnappyOutputStream would emit a bare header for no input, which librdkafka refuses
  // ("Empty Snappy-java framed data"); raw snappy of nothing is one zero byte and both
  // SnappyInputStream (via its raw fallback) and librdkafka read it.
  if (data.length === 0) return snappyNapi().compressSync(data);
  const pieces: Buffer[] = [XERIAL_HEADER];
  let total = XERIAL_HEADER_SIZE;
  for (let at = 0; at < data.length; at += XERIAL_BLOCK_SIZE) {
    const block = snappyNapi().compressSync(data.subarray(at, Math.min(at + XERIAL_BLOCK_SIZE, data.length)));
    const length = Buffer.allocUnsafe(4);
    length.writeInt32BE(block.length, 0);
    pieces.push(length, block);
    total += 4 + block.length;
  }
  return Buffer.concat(pieces, total);
}

/**
 * The uncompressed length a raw snappy block declares in its varint preamble, read
 * without decompressing so the caller can refuse a bomb before any allocation.
 */
function rawUncompressedLength(block: Uint8Array, at: number): number {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const byte = block[i];
    if (byte === undefined) break;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) {
      if (value > 0xffffffff) break;
      return value;
    }
  }
  throw new CorruptRecordError('decompression-failed', 'invalid snappy length preamble', at);
}

function checkBound(total: number, maxBytes: number, at: number): void {
  if (total > maxBytes) {
    throw new CorruptRecordError(
      'decompressed-too-large',
      `snappy data declares ${total} uncompressed bytes, more than the limit of ${maxBytes}`,
      at,
    );
  }
}

function uncompressBlock(block: Uint8Array, expected: number, at: number): Buffer {
  let out: string | Buffer;
  try {
    out = snappyNapi().uncompressSync(block, { asBuffer: true });
  } catch (err) {
    throw new CorruptRecordError('decompression-failed', `snappy: ${(err as Error).message}`, at);
  }
  if (!Buffer.isBuffer(out) || out.length !== expected) {
    throw new CorruptRecordError('decompression-failed', 'snappy block length differs from its preamble', at);
  }
  return out;
}

/** Raw or xerial-framed snappy; every declared length is checked against `maxBytes` first. */
export function decompressSnappy(data: Buffer, maxBytes: number): Buffer {
  if (!isXerialFramed(data)) {
    const length = rawUncompressedLength(data, 0);
    checkBound(length, maxBytes, 0);
    return uncompressBlock(data, length, 0);
  }

  // First pass: find the blocks and add up their declared sizes, like librdkafka does,
  // so the output is allocated once and only if it fits.
  const blocks: { start: number; end: number; length: number }[] = [];
  let total = 0;
  let at = XERIAL_HEADER_SIZE;
  while (at < data.length) {
    if (data.length - at < 4) {
      throw new CorruptRecordError('decompression-failed', `${data.length - at} trailing bytes in snappy-java data`, at);
    }
    const blockLength = data.readInt32BE(at);
    if (blockLength === XERIAL_MAGIC_HEAD) {
      if (!isXerialFramed(data.subarray(at))) {
        throw new CorruptRecordError('decompression-failed', 'bad snappy-java header inside the stream', at);
      }
      at += XERIAL_HEADER_SIZE;
      continue;
    }
    if (blockLength < 0 || blockLength > data.length - at - 4) {
      throw new CorruptRecordError('decompression-failed', `snappy-java block of ${blockLength} bytes, ${data.length - at - 4} remain`, at);
    }
    const start = at + 4;
    const end = start + blockLength;
    const length = rawUncompressedLength(data.subarray(start, end), start);
    total += length;
    checkBound(total, maxBytes, start);
    // Every entry costs at least five input bytes, so the list is bounded by the input.
    blocks.push({ start, end, length });
    at = end;
  }

  if (blocks.length === 1) {
    const only = blocks[0]!;
    return uncompressBlock(data.subarray(only.start, only.end), only.length, only.start);
  }
  const out = Buffer.allocUnsafe(total);
  let written = 0;
  for (const block of blocks) {
    uncompressBlock(data.subarray(block.start, block.end), block.length, block.start).copy(out, written);
    written += block.length;
  }
  return out;
}
