/**
 * The coordinator's state is made of timeline structures, Brook's counterparts of Kafka's
 * TimelineHashMap, TimelineHashSet and TimelineObject over its SnapshotRegistry: each records
 * how to undo its own changes in the running operation's journal (journal.ts), so an operation
 * whose records fail is undone by one mechanism, not by each store. Outside an operation
 * (replay at load, a revert running the undo itself) nothing is recorded. A TimelineMap is a
 * Map and a TimelineSet a Set, so whatever reads them reads them; only their writes differ.
 *
 * What a change costs is what it changes: `set` records the key's previous value (a new key
 * is removed again: it came last, so the order is what it was), never a copy of the map. A
 * removal from an `ordered` map (one whose order is listed: ListGroups, members in join
 * order, OffsetFetch) records, once per operation, the map's entries before it, so the undo
 * puts them back in order; an unordered map records the removed entry alone. A `tracked` map
 * also tells the journal which keys it changed, for what follows a revert (the timer table:
 * the runtime's timers must follow its restored entries).
 */
import type { Journal } from './journal.js';

export class TimelineMap<K, V> extends Map<K, V> {
  constructor(
    private readonly journal: Journal,
    /** Its order is listed: a removal's undo puts every entry back in order. */
    private readonly ordered = false,
    /** The journal keeps the keys it changed (Changes.touchedKeys). */
    private readonly tracked = false,
  ) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.journal.recording) {
      // The undos write through Map's own methods: an undo run inside an operation (a
      // savepoint's rollback) must not record again.
      if (super.has(key)) {
        const previous = super.get(key) as V;
        this.journal.record(() => super.set(key, previous));
      } else {
        this.journal.record(() => super.delete(key));
      }
      if (this.tracked) this.journal.touch(this, key);
    }
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (!super.has(key)) return false;
    if (this.journal.recording) {
      if (!this.ordered) {
        const previous = super.get(key) as V;
        this.journal.record(() => super.set(key, previous));
      } else {
        this.keepOrder();
      }
      if (this.tracked) this.journal.touch(this, key);
    }
    return super.delete(key);
  }

  override clear(): void {
    if (super.size === 0) return;
    if (this.journal.recording) {
      this.keepOrder();
      if (this.tracked) for (const key of super.keys()) this.journal.touch(this, key);
    }
    super.clear();
  }

  /** Once per operation: the entries as they are, put back in order by the undo. */
  private keepOrder(): void {
    if (!this.journal.once(this)) return;
    const entries = [...super.entries()];
    this.journal.record(() => {
      super.clear();
      for (const [k, v] of entries) super.set(k, v);
    });
  }
}

/**
 * A set whose additions and removals the running operation records in the journal, for
 * sets whose order decides nothing (tested and counted, never listed): an id put back by
 * the undo may come last.
 */
export class TimelineSet<T> extends Set<T> {
  constructor(private readonly journal: Journal) {
    super();
  }

  override add(value: T): this {
    if (super.has(value)) return this;
    if (this.journal.recording) this.journal.record(() => super.delete(value));
    return super.add(value);
  }

  override delete(value: T): boolean {
    if (!super.delete(value)) return false;
    if (this.journal.recording) this.journal.record(() => super.add(value));
    return true;
  }

  override clear(): void {
    if (super.size === 0) return;
    if (this.journal.recording) {
      const values = [...super.values()];
      this.journal.record(() => {
        for (const v of values) super.add(v);
      });
    }
    super.clear();
  }
}

/**
 * One value whose changes the running operation records in the journal (Kafka's
 * TimelineObject, TimelineInteger, TimelineLong): a scalar field of a group or member
 * (a classic group's state, generation or leader; a member's parked request). Setting the
 * value it holds records nothing.
 */
export class TimelineValue<T> {
  constructor(private readonly journal: Journal, private value: T) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    const previous = this.value;
    if (value === previous) return;
    if (this.journal.recording) this.journal.record(() => (this.value = previous));
    this.value = value;
  }
}
