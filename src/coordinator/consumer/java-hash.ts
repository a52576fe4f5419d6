/**
 * The iteration order of Java's HashMap and HashSet, for the few places where Kafka's
 * group coordinator lets that order decide an outcome: the uniform assignor walks members,
 * subscribed topics and a member's partitions in hash order, so which member gets an extra
 * partition, and which partitions a member over its quota keeps, follow it. Brook computes
 * the same order so that its target assignments are Kafka's (the Java oracle checks them).
 *
 * Java's rule (java.util.HashMap): a key goes to bucket `spread(hashCode) & (capacity - 1)`,
 * with `spread(h) = h ^ (h >>> 16)`; iteration walks the buckets in index order and each
 * bucket in insertion order (a resize splits buckets without reordering, a removed key that
 * comes back goes last). The capacity is a power of two that doubles when the size exceeds
 * three quarters of it; where it starts depends on the constructor, hence the factories below.
 * Buckets of 8 or more keys become trees in Java, whose order differs: with the small groups
 * and hashes here that does not happen in practice, and it is not modelled.
 */

/** Topic ids' hashes: there are few topics, and the assignors hash their ids over and over. */
const uuidHashes = new Map<string, number>();
const MAX_CACHED_UUID_HASHES = 100_000;

/** Kafka's Uuid.hashCode for a topic id in its base64url text form. */
export function uuidHash(id: string): number {
  let h = uuidHashes.get(id);
  if (h === undefined) {
    const b = uuidBytes(id);
    h = b.readInt32BE(0) ^ b.readInt32BE(8) ^ b.readInt32BE(4) ^ b.readInt32BE(12);
    // Bounded (ids of deleted topics): forgotten all at once, recomputed on demand.
    if (uuidHashes.size >= MAX_CACHED_UUID_HASHES) uuidHashes.clear();
    uuidHashes.set(id, h);
  }
  return h;
}

/** Kafka's Uuid.compareTo: most significant bits, then least, both as signed longs. */
export function compareUuids(a: string, b: string): number {
  const x = uuidBytes(a);
  const y = uuidBytes(b);
  const hi = compareBig(x.readBigInt64BE(0), y.readBigInt64BE(0));
  return hi !== 0 ? hi : compareBig(x.readBigInt64BE(8), y.readBigInt64BE(8));
}

/** Integer.hashCode. */
export function intHash(n: number): number {
  return n | 0;
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function uuidBytes(id: string): Buffer {
  const b = Buffer.from(id, 'base64url');
  if (b.length !== 16) throw new Error(`not a topic id: ${id}`);
  return b;
}

/** Up to this many keys, `values` sorts by insertion; beyond, by an index sort. */
const SMALL_SET = 32;

/** HashMap.tableSizeFor: the smallest power of two >= n (1 for n <= 1). */
function tableSizeFor(n: number): number {
  let cap = 1;
  while (cap < n) cap *= 2;
  return cap;
}

/** The ranks `values` sorts by: one buffer for every call (values never runs inside another). */
let ranks = new Float64Array(64);

function rankScratch(n: number): Float64Array {
  if (ranks.length < n) ranks = new Float64Array(Math.max(n, ranks.length * 2));
  return ranks;
}

/** A slot whose key was deleted (JavaHashSet keeps slots in insertion order). */
const HOLE: unique symbol = Symbol('deleted');

/** Keys found by a scan of the slots up to this many; beyond, through a Map built then. */
const SCANNED_KEYS = 16;

/**
 * A Java HashSet (or the key set of a HashMap) reduced to what decides its order: the table
 * size, and each key's place in its bucket's chain. `add` is HashMap.put (resize after
 * inserting, new keys at the tail of their bucket); `addFirst` is HashMap.computeIfAbsent
 * (resize before inserting, new keys at the head of their bucket). A resize keeps the
 * relative order of keys within a bucket, so one position per key, smaller at the head,
 * larger at the tail, orders every bucket.
 *
 * The keys and their positions sit in two arrays (a deleted key leaves a hole, compacted
 * away once holes outnumber keys); most sets are a member's few partitions or topics, found
 * by a scan, and a Map index is built only for larger ones. A Map per set, with an entry
 * per key, made the assignors spend most of their time in Map operations.
 */
export class JavaHashSet<T> {
  private keys: (T | typeof HOLE)[] = [];
  private places: number[] = [];
  /** Key → slot, once the set holds more than SCANNED_KEYS keys. */
  private index: Map<T, number> | null = null;
  private live = 0;
  private holes = 0;
  private nextTail = 0;
  private nextHead = -1;
  private sorted: T[] | null = null;
  private capacity = 0;

  private constructor(
    private readonly hash: (t: T) => number,
    /** The table size the first insertion allocates (the constructor's). */
    private readonly initialCapacity: number,
  ) {}

  /** `new HashSet<>()` / `new HashMap<>()`: a table of 16 at the first insertion. */
  static empty<T>(hash: (t: T) => number): JavaHashSet<T> {
    return new JavaHashSet(hash, 16);
  }

  /** `new HashSet<>(n)` / `new HashMap<>(n)`. */
  static withCapacity<T>(hash: (t: T) => number, initialCapacity: number): JavaHashSet<T> {
    return new JavaHashSet(hash, tableSizeFor(initialCapacity));
  }

  /** `new HashSet<>(collection)`: room for the collection, at least 16, then addAll. */
  static copyOf<T>(hash: (t: T) => number, items: Iterable<T>): JavaHashSet<T> {
    const list = Array.isArray(items) ? (items as readonly T[]) : [...items];
    const set = new JavaHashSet(hash, tableSizeFor(Math.max(Math.floor(list.length / 0.75) + 1, 16)));
    for (const item of list) set.add(item);
    return set;
  }

  /** `new HashMap<>(map)`: putMapEntries sizes the table for the map, then puts. */
  static copyOfMap<T>(hash: (t: T) => number, keys: Iterable<T>): JavaHashSet<T> {
    const list = Array.isArray(keys) ? (keys as readonly T[]) : [...keys];
    const set = new JavaHashSet(hash, tableSizeFor(Math.floor(list.length / 0.75 + 1)));
    for (const key of list) set.add(key);
    return set;
  }

  get size(): number {
    return this.live;
  }

  has(t: T): boolean {
    return this.slotOf(t) >= 0;
  }

  /** HashMap.put of a new key (an existing key keeps its place); false when present. */
  add(t: T): boolean {
    if (this.slotOf(t) >= 0) return false;
    if (this.capacity === 0) this.resize();
    this.insert(t, this.nextTail++);
    if (this.live > this.threshold()) this.resize();
    return true;
  }

  /**
   * HashMap.computeIfAbsent; false when the key is present. Every call, even for a present
   * key, first resizes a table grown past its threshold by the previous call.
   */
  addFirst(t: T): boolean {
    if (this.capacity === 0 || this.live > this.threshold()) {
      this.resize();
      this.sorted = null;
    }
    if (this.slotOf(t) >= 0) return false;
    this.insert(t, this.nextHead--);
    return true;
  }

  delete(t: T): boolean {
    const slot = this.slotOf(t);
    if (slot < 0) return false;
    this.keys[slot] = HOLE;
    this.index?.delete(t);
    this.live--;
    this.holes++;
    this.sorted = null;
    if (this.holes > SCANNED_KEYS && this.holes > this.live) this.compact();
    return true;
  }

  /** The elements in Java's iteration order. */
  values(): readonly T[] {
    if (this.sorted !== null) return this.sorted;
    // Each key hashed once (a comparator hashing both sides would hash each key log n times),
    // into one number per key that sorts as (bucket, place in the bucket) does: places are
    // below 2^31 in magnitude.
    const mask = this.capacity - 1;
    const n = this.live;
    const sorted = new Array<T>(n);
    const order = rankScratch(n);
    const keys = this.keys;
    const places = this.places;
    let i = 0;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot]!;
      if (key === HOLE) continue;
      const h = this.hash(key);
      const rank = ((h ^ (h >>> 16)) & mask) * 2 ** 32 + places[slot]!;
      let j = i++;
      if (n > SMALL_SET) {
        sorted[j] = key;
        order[j] = rank;
        continue;
      }
      // Insertion sort: most sets are a member's few partitions or topics.
      while (j > 0 && order[j - 1]! > rank) {
        sorted[j] = sorted[j - 1]!;
        order[j] = order[j - 1]!;
        j--;
      }
      sorted[j] = key;
      order[j] = rank;
    }
    if (n > SMALL_SET) {
      const byRank = Array.from({ length: n }, (_, k) => k).sort((a, b) => order[a]! - order[b]!);
      this.sorted = byRank.map((k) => sorted[k]!);
    } else {
      this.sorted = sorted;
    }
    // A later change builds a new array: one handed out is never changed.
    return this.sorted;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.values()[Symbol.iterator]();
  }

  private slotOf(t: T): number {
    if (this.index !== null) return this.index.get(t) ?? -1;
    const keys = this.keys;
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] === t) return slot;
    return -1;
  }

  private insert(t: T, place: number): void {
    const slot = this.keys.length;
    this.keys.push(t);
    this.places.push(place);
    this.live++;
    this.sorted = null;
    if (this.index !== null) this.index.set(t, slot);
    else if (this.live > SCANNED_KEYS) this.buildIndex();
  }

  private buildIndex(): void {
    const index = new Map<T, number>();
    const keys = this.keys;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot]!;
      if (key !== HOLE) index.set(key, slot);
    }
    this.index = index;
  }

  /** Drops the holes, keeping the keys' order. */
  private compact(): void {
    const keys: (T | typeof HOLE)[] = [];
    const places: number[] = [];
    for (let slot = 0; slot < this.keys.length; slot++) {
      const key = this.keys[slot]!;
      if (key === HOLE) continue;
      keys.push(key);
      places.push(this.places[slot]!);
    }
    this.keys = keys;
    this.places = places;
    this.holes = 0;
    if (this.index !== null) this.buildIndex();
  }

  private threshold(): number {
    return Math.floor(this.capacity * 0.75);
  }

  private resize(): void {
    this.capacity = this.capacity === 0 ? this.initialCapacity : this.capacity * 2;
  }
}

/** Member ids in a fixed order (code units), for javaPutOrder's ties within a bucket. */
export { compareStrings as compareIds } from '../../util/range-split.js';

/**
 * The order Java iterates a `new HashMap<>()` (or `new HashSet<>()`) in after `keys` were
 * put in `compare`'s order, then `last` (unless already among them: it keeps its place),
 * then `removed` taken out: JavaHashSet's order for that sequence, computed at once, with
 * one hash per key and without first sorting every key by `compare` (only keys sharing a
 * bucket are compared). The group's target assignment builds such a map of every member on
 * each computation.
 */
export function javaPutOrder<T>(hash: (t: T) => number, keys: Iterable<T>, compare: (a: T, b: T) => number, last?: T, removed?: T): T[] {
  const list: T[] = [];
  let lastIsNew = last !== undefined;
  for (const key of keys) {
    list.push(key);
    if (key === last) lastIsNew = false;
  }
  if (lastIsNew) list.push(last!);
  // The table as `add` grows it: 16 at the first put, doubled whenever the size passes three
  // quarters of it (a removal never shrinks it).
  let capacity = 16;
  while (list.length > Math.floor(capacity * 0.75)) capacity *= 2;
  const mask = capacity - 1;
  const buckets = new Int32Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const h = hash(list[i]!);
    buckets[i] = (h ^ (h >>> 16)) & mask;
  }
  const lastIndex = lastIsNew ? list.length - 1 : -1;
  const index = Array.from({ length: list.length }, (_, i) => i).filter((i) => removed === undefined || list[i] !== removed);
  index.sort((a, b) => buckets[a]! - buckets[b]! || (a === lastIndex ? 1 : b === lastIndex ? -1 : compare(list[a]!, list[b]!)));
  return index.map((i) => list[i]!);
}

/** The order Java iterates `new HashSet<>(items)` in. */
export function javaSetOrder<T>(hash: (t: T) => number, items: Iterable<T>): T[] {
  return [...JavaHashSet.copyOf(hash, items).values()];
}
