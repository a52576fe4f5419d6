/**
 * Java's String.hashCode (over UTF-16 code units, 32-bit overflow): Kafka partitions a
 * coordinator key by it (`abs(hashCode) % partitions`, `__transaction_state`) and iterates
 * Java hash sets of strings in its order (consumer-group assignors).
 */
export function stringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
