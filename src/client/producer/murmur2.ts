/**
 * Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2), bit for bit: the hash the
 * Java producer's default partitioner applies to key bytes. 32-bit multiplications wrap as
 * Java ints do (Math.imul); `>>>` is Java's unsigned shift.
 */
const SEED = 0x9747b28c;
const M = 0x5bd1e995;

export function murmur2(data: Uint8Array, start = 0, end = data.length): number {
  const length = end - start;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = start + i * 4;
    let k = data[i4]! | (data[i4 + 1]! << 8) | (data[i4 + 2]! << 16) | (data[i4 + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  const tail = start + (length & ~3);
  const rest = length & 3;
  if (rest >= 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Utils.toPositive: clears the sign bit (not Math.abs, which differs for MIN_VALUE). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** BuiltInPartitioner.partitionForKey: the partition Java's producer picks for these key bytes. */
export function partitionForKey(keyBytes: Uint8Array, numPartitions: number, start = 0, end = keyBytes.length): number {
  return toPositive(murmur2(keyBytes, start, end)) % numPartitions;
}
