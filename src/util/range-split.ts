/**
 * What Kafka's two range assignors share, without either one's data model: the order they
 * put members in and how they cut a topic's partitions into consecutive ranges. The
 * client's (src/assignors/range.ts, Java's RangeAssignor over member subscriptions and topic
 * names; roundrobin.ts uses the same order) and the server's
 * (src/coordinator/consumer/assignors/range.ts, Kafka's server-side RangeAssignor over
 * topic ids, its result in Java's hash order) differ in everything else.
 */

/** Java's String.compareTo, as a sign: both compare UTF-16 code units. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Orders entries with a key before those without: the keyed ones by key, the others by
 * id. Kafka's range and roundrobin assignors order members so, the key being the group
 * instance id: static members first, by instance id (they keep their place across
 * restarts), then dynamic members by member id.
 */
export function compareKeyedFirst(aKey: string | null, aId: string, bKey: string | null, bId: string): number {
  if (aKey !== null && bKey !== null) return compareStrings(aKey, bKey);
  if (aKey !== null) return -1;
  if (bKey !== null) return 1;
  return compareStrings(aId, bId);
}

/**
 * Where range `index` of `parts` starts when `count` items are cut into `parts` consecutive
 * ranges as evenly as possible: each range `floor(count / parts)` long, the first
 * `count % parts` of them one longer. Range `index` is [rangeStart(index), rangeStart(index + 1)).
 */
export function rangeStart(count: number, parts: number, index: number): number {
  return index * Math.floor(count / parts) + Math.min(index, count % parts);
}
