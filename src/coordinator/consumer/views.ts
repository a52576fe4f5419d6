/**
 * What a consumer group's subscriptions would be with one member replaced, added or removed
 * (Kafka's ConsumerGroup.computeSubscribedTopicNames and friends): the heartbeat and the
 * fencing compute the next state from these before any record is applied.
 */
import type { ConsumerGroup, SubscriptionCount } from './group.js';
import { JavaHashSet } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import { hasRegex, type ConsumerGroupMember } from './member.js';

function bump(counts: Map<string, number>, name: string | null | undefined, delta: number): void {
  if (name === null || name === undefined) return;
  const n = (counts.get(name) ?? 0) + delta;
  if (n <= 0) counts.delete(name);
  else counts.set(name, n);
}

/** Subscribed topic counts with `oldMember` replaced by `newMember`. */
export function computeSubscribedTopicNames(group: ConsumerGroup, oldMember: ConsumerGroupMember | undefined, newMember: ConsumerGroupMember | undefined): Map<string, SubscriptionCount> {
  const counts = new Map(group.subscribedTopicNames);
  const add = (t: string, byName: number, byRegex: number): void => {
    const c = counts.get(t) ?? { byName: 0, byRegex: 0 };
    const next = { byName: c.byName + byName, byRegex: c.byRegex + byRegex };
    if (next.byName <= 0 && next.byRegex <= 0) counts.delete(t);
    else counts.set(t, next);
  };
  for (const t of oldMember?.subscribedTopicNames ?? []) add(t, -1, 0);
  for (const t of newMember?.subscribedTopicNames ?? []) add(t, +1, 0);
  const oldRegex = oldMember?.subscribedTopicRegex ?? null;
  // The last member of a regex takes the regex's topics with it.
  if (hasRegex(oldRegex) && oldRegex !== (newMember?.subscribedTopicRegex ?? null) && group.numSubscribedMembers(oldRegex) === 1) {
    for (const t of group.resolvedRegularExpressions.get(oldRegex)?.topics ?? []) add(t, 0, -1);
  }
  return counts;
}

/** Counts without the given members and regexes (a fence). */
export function computeSubscribedTopicNamesWithout(group: ConsumerGroup, members: readonly ConsumerGroupMember[], regexes: ReadonlySet<string>): Map<string, SubscriptionCount> {
  const counts = new Map(group.subscribedTopicNames);
  const add = (t: string, byName: number, byRegex: number): void => {
    const c = counts.get(t);
    if (c === undefined) return;
    const next = { byName: c.byName + byName, byRegex: c.byRegex + byRegex };
    if (next.byName <= 0 && next.byRegex <= 0) counts.delete(t);
    else counts.set(t, next);
  };
  for (const m of members) for (const t of m.subscribedTopicNames) add(t, -1, 0);
  for (const regex of regexes) for (const t of group.resolvedRegularExpressions.get(regex)?.topics ?? []) add(t, 0, -1);
  return counts;
}

export function computeSubscribedRegularExpressions(group: ConsumerGroup, oldMember: ConsumerGroupMember | undefined, newMember: ConsumerGroupMember): Map<string, number> {
  const counts = new Map(group.subscribedRegularExpressions);
  const oldRegex = oldMember?.subscribedTopicRegex ?? null;
  const newRegex = newMember.subscribedTopicRegex;
  if (oldRegex === newRegex) return counts;
  if (hasRegex(oldRegex)) bump(counts, oldRegex, -1);
  if (hasRegex(newRegex)) bump(counts, newRegex, +1);
  return counts;
}

/**
 * The assignor most members ask for, with `oldMember` replaced by `newMember`. Kafka picks
 * the first of the most popular in its HashMap's order of the names; so does Brook.
 */
export function computePreferredServerAssignor(group: ConsumerGroup, oldMember?: ConsumerGroupMember, newMember?: ConsumerGroupMember): string | null {
  const counts = new Map(group.serverAssignors);
  bump(counts, oldMember?.serverAssignorName, -1);
  bump(counts, newMember?.serverAssignorName, +1);
  let best: string | null = null;
  let bestCount = 0;
  for (const name of JavaHashSet.copyOfMap(stringHash, counts.keys()).values()) {
    const n = counts.get(name)!;
    if (best === null || n > bestCount) {
      best = name;
      bestCount = n;
    }
  }
  return best;
}
