import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/**
 * CRC-32C (Castagnoli), the checksum of magic v2 record batches. The native module uses
 * the SSE4.2/ARMv8 CRC instructions, which matters: the broker checksums every produced
 * batch. Pass the previous result as `initial` to continue over several pieces.
 */
export function crc32c(data: Uint8Array, initial = 0): number {
  // Normalised to unsigned so it compares equal to a readUInt32BE of the stored CRC.
  return nativeCrc32c(data, initial) >>> 0;
}
