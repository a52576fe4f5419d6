/**
 * Stability of a consumer group from its members' own events (GroupEvent): the group is
 * stable when every live member has reported its owned partitions since it started, the owned
 * sets are disjoint and together cover every partition, and (when there are at least as many
 * partitions as members) every live member owns at least one. The same rule for every client.
 */
import type { GroupEvent } from '../clients/types.js';

/**
 * The members' owned partitions as the events say, with what stability needs kept up to
 * date as each event applies: the check is then O(1), not a walk over every member and
 * partition. (The group scenario checks after every event it receives; with 1,000 members
 * in the bench's own process a walk per event took most of that process's CPU, the CPU the
 * in-process clients under test needed.)
 */
class Ownership {
  /** Live members -> owned partitions (undefined: not reported yet). */
  private readonly owned = new Map<number, readonly number[] | undefined>();
  /** Owners per partition number reported. */
  private readonly owners = new Map<number, number>();
  private unreported = 0;
  private empty = 0;
  private total = 0;

  constructor(private readonly partitions: number) {}

  has(member: number): boolean {
    return this.owned.has(member);
  }

  set(member: number, partitions: readonly number[] | undefined): void {
    // A member already live keeps its place in the map's order.
    if (this.owned.has(member)) this.forget(this.owned.get(member));
    this.owned.set(member, partitions);
    if (partitions === undefined) {
      this.unreported++;
      return;
    }
    if (partitions.length === 0) this.empty++;
    this.total += partitions.length;
    for (const p of partitions) this.owners.set(p, (this.owners.get(p) ?? 0) + 1);
  }

  delete(member: number): void {
    if (!this.owned.has(member)) return;
    this.forget(this.owned.get(member));
    this.owned.delete(member);
  }

  /** Takes a member's report out of the counts. */
  private forget(partitions: readonly number[] | undefined): void {
    if (partitions === undefined) {
      this.unreported--;
      return;
    }
    if (partitions.length === 0) this.empty--;
    this.total -= partitions.length;
    for (const p of partitions) {
      const n = this.owners.get(p)! - 1;
      if (n === 0) this.owners.delete(p);
      else this.owners.set(p, n);
    }
  }

  /**
   * Every live member reported; none reported nothing while members are no more than
   * partitions; each partition owned once (as many owned as partitions, all different).
   */
  get stable(): boolean {
    return this.unreported === 0 && (this.empty === 0 || this.owned.size > this.partitions)
      && this.total === this.partitions && this.owners.size === this.partitions;
  }

  /** The owner of every partition. */
  snapshot(): Map<number, number> {
    const owners = new Map<number, number>();
    for (const [m, ps] of this.owned) for (const p of ps ?? []) owners.set(p, m);
    return owners;
  }

  /** Applies one event; false for an event that changed nothing it tracks (a member not live reporting too). */
  apply(e: GroupEvent): boolean {
    if (e.ev === 'owned') {
      if (!this.has(e.m)) return false;
      this.set(e.m, e.p);
    } else if (e.ev === 'join') {
      this.set(e.m, undefined);
    } else if (e.ev === 'leave') {
      this.delete(e.m);
    } else {
      return false;
    }
    return true;
  }
}

/** The events in time order, and a fresh Ownership with the initial members (not reported yet). */
function replay(events: readonly GroupEvent[], initialMembers: number, partitions: number): { ordered: GroupEvent[]; ownership: Ownership } {
  const ownership = new Ownership(partitions);
  for (let m = 0; m < initialMembers; m++) ownership.set(m, undefined);
  // Nearly in order already (each client's events come in time order): a cheap sort.
  return { ordered: [...events].sort((a, b) => a.t - b.t), ownership };
}

/**
 * Replays events in time order. Members are live from their start (the initial members from
 * 'start', later ones from 'join') until 'leave'. Returns the first time (epoch us) at or
 * after `fromUs` when the group is stable, with the owner of every partition then; null when
 * it never is within the events so far.
 */
export function firstStable(events: readonly GroupEvent[], initialMembers: number, partitions: number, fromUs: number): { atUs: number; owners: Map<number, number> } | null {
  const { ordered, ownership } = replay(events, initialMembers, partitions);
  for (const e of ordered) {
    ownership.apply(e);
    if (e.t >= fromUs && ownership.stable) return { atUs: e.t, owners: ownership.snapshot() };
  }
  return null;
}

/**
 * The start of the stable stretch the events end in: replaying them, the last time at or
 * after `fromUs` when the group became stable and stayed so up to the last event; null when
 * it is not stable at the end. A rebalance can pass through states that look stable (a
 * joining member reports its first, empty assignment while the partitions it is to get are
 * still being revoked elsewhere, as the consumer protocol and cooperative rebalances do);
 * the rebalance scenario takes this one, once no event came for a while.
 */
export function lastStable(events: readonly GroupEvent[], initialMembers: number, partitions: number, fromUs: number): { atUs: number; owners: Map<number, number> } | null {
  const { ordered, ownership } = replay(events, initialMembers, partitions);
  let since: { atUs: number; owners: Map<number, number> } | null = null;
  for (const e of ordered) {
    if (!ownership.apply(e)) continue;
    if (e.t < fromUs) continue;
    if (!ownership.stable) since = null;
    else if (since === null) since = { atUs: e.t, owners: ownership.snapshot() };
  }
  return since;
}

/** Partitions whose owner differs between two stable states. */
export function moved(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let n = 0;
  for (const [p, m] of after) if (before.get(p) !== m) n++;
  return n;
}
