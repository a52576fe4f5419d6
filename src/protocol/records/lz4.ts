import { CorruptRecordError } from './errors.js';
import { lazyRequire } from './native-codec.js';

const lz4Napi = lazyRequire<typeof import('lz4-napi')>('lz4-napi');

/*
 * Magic v2 batches carry a standard LZ4 frame (https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md).
 * Kafka's Java reader (Lz4BlockInputStream) implements only part of it: version 1,
 * independent blocks, no preset dictionary, block size ids 4..7, a correct header
 * checksum (only magic v0/v1 tolerate the old broken one). lz4-napi's frame encoder
 * (lz4_flex) writes FLG 0x60 (version 1, independent blocks, no checksums, no content
 * size), the shape Kafka's Lz4BlockOutputStream and librdkafka (LZ4F, blockIndependent)
 * write. Its block size grows with the input (BD 0x40 up to 64 KiB, then 256 KiB, 1 MiB,
 * 4 MiB) where Kafka always writes 64 KiB blocks; Kafka's and librdkafka's readers accept
 * every size (checked against Kafka's classes in test/interop/records-conformance).
 */
export const LZ4_FRAME_MAGIC = 0x184d2204;

const FLG_VERSION_SHIFT = 6;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
const FLG_DICT_ID = 0x01;
const BLOCK_UNCOMPRESSED = 0x80000000;
/**
 * An LZ4 block cannot expand more than 255-fold: the best case is a match whose length
 * takes one extension byte per 255 bytes of output.
 */
const MAX_LZ4_EXPANSION = 255;

export function compressLz4(data: Buffer): Buffer {
  return lz4Napi().compressFrameSync(data);
}

export function compressLz4Async(data: Buffer): Promise<Buffer> {
  return lz4Napi().compressFrame(data);
}

function fail(message: string, at: number): never {
  throw new CorruptRecordError('decompression-failed', `lz4: ${message}`, at);
}

/**
 * Walks the first frame's block headers without decompressing anything and returns
 * where the frame ends. Throws if the frame could produce more than `maxBytes`:
 * the bound is the declared content size when present, else the sum over blocks of
 * min(block maximum, 255 × compressed size), which overestimates by less than one block
 * since encoders fill every block but the last. The decoder is then never asked to
 * build more than that.
 */
function frameEnd(data: Buffer, maxBytes: number): number {
  if (data.length < 7) fail(`frame of ${data.length} bytes is shorter than its header`, 0);
  if (data.readUInt32LE(0) !== LZ4_FRAME_MAGIC) fail('not an LZ4 frame (bad magic)', 0);
  const flg = data[4]!;
  const bd = data[5]!;
  if (flg >>> FLG_VERSION_SHIFT !== 1) fail(`unsupported frame version ${flg >>> FLG_VERSION_SHIFT}`, 4);
  const blockSizeId = (bd >>> 4) & 7;
  if (blockSizeId < 4) fail(`invalid block size id ${blockSizeId}`, 5);
  const blockMax = 1 << (2 * blockSizeId + 8);

  let at = 6;
  if (flg & FLG_CONTENT_SIZE) {
    if (data.length - at < 8) fail('truncated frame header', at);
    const declared = data.readUInt32LE(at) + data.readUInt32LE(at + 4) * 2 ** 32;
    if (declared > maxBytes) tooLarge(declared, maxBytes, at);
    at += 8;
  }
  if (flg & FLG_DICT_ID) at += 4;
  at += 1; // header checksum, verified by the decoder
  const blockTrailer = flg & FLG_BLOCK_CHECKSUM ? 4 : 0;

  let bound = 0;
  for (;;) {
    if (data.length - at < 4) fail('frame ends before its end mark', at);
    const word = data.readUInt32LE(at);
    at += 4;
    if (word === 0) break;
    const size = (word & ~BLOCK_UNCOMPRESSED) >>> 0;
    if (size > blockMax) fail(`block of ${size} bytes exceeds the frame's ${blockMax}-byte maximum`, at - 4);
    if (data.length - at < size + blockTrailer) fail(`block of ${size} bytes, ${data.length - at} remain`, at);
    bound += word & BLOCK_UNCOMPRESSED ? size : Math.min(blockMax, size * MAX_LZ4_EXPANSION);
    if (bound > maxBytes) tooLarge(bound, maxBytes, at);
    at += size + blockTrailer;
  }
  if (flg & FLG_CONTENT_CHECKSUM) {
    if (data.length - at < 4) fail('frame ends before its content checksum', at);
    at += 4;
  }
  return at;
}

function tooLarge(bound: number, maxBytes: number, at: number): never {
  throw new CorruptRecordError(
    'decompressed-too-large',
    `lz4 frame may decompress to ${bound} bytes, more than the limit of ${maxBytes}`,
    at,
  );
}

function checkOutput(out: Buffer, maxBytes: number): Buffer {
  if (out.length > maxBytes) tooLarge(out.length, maxBytes, 0);
  return out;
}

/**
 * Decodes the first frame; bytes after its end mark are ignored, as Kafka's reader does.
 */
export function decompressLz4(data: Buffer, maxBytes: number): Buffer {
  const frame = data.subarray(0, frameEnd(data, maxBytes));
  let out: Buffer;
  try {
    out = lz4Napi().decompressFrameSync(frame);
  } catch (err) {
    fail((err as Error).message, 0);
  }
  return checkOutput(out, maxBytes);
}

export async function decompressLz4Async(data: Buffer, maxBytes: number): Promise<Buffer> {
  const frame = data.subarray(0, frameEnd(data, maxBytes));
  let out: Buffer;
  try {
    out = await lz4Napi().decompressFrame(frame);
  } catch (err) {
    fail((err as Error).message, 0);
  }
  return checkOutput(out, maxBytes);
}
