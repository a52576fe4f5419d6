/**
 * Checks `brook groups timeline G --json` against what the group's clients observed about
 * their own rebalances: per generation (classic) or member epoch (consumer groups) which
 * members took part and what each was assigned, as their rebalance callbacks, events or
 * logs reported it. The client observations are the independent source; the timeline must
 * agree with them on every generation they report: the same members, the same partitions
 * per member, the members that joined or left since the previous reported generation among
 * its `joined`/`left`, and the partitions whose owner changed in its `moved`.
 */
import assert from 'node:assert/strict';
import { brookCli } from './admin-fixture.js';
import type { TimelineEntry } from '../../src/broker/flight-recorder/timeline-entry.js';

/** One client's view of one generation: it was `member` in generation `gen` and owned `partitions` (of one topic). */
export interface ObservedAssignment {
  readonly gen: number;
  readonly member: string;
  readonly partitions: readonly number[];
}

/** The group's timeline entries, read by the CLI as JSON lines. */
export async function timelineOf(bootstrap: string, group: string): Promise<TimelineEntry[]> {
  const r = await brookCli(['groups', 'timeline', group, '--json', '-b', bootstrap]);
  assert.equal(r.code, 0, `groups timeline ${group}: exit ${r.code}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as TimelineEntry);
}

/** generation → member → sorted partitions; a member reporting a generation twice keeps its last report. */
export function byGeneration(observed: readonly ObservedAssignment[]): Map<number, Map<string, number[]>> {
  const out = new Map<number, Map<string, number[]>>();
  for (const o of observed) {
    if (o.gen < 0) continue;
    let members = out.get(o.gen);
    if (members === undefined) out.set(o.gen, members = new Map());
    members.set(o.member, [...o.partitions].sort((a, b) => a - b));
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

const sorted = (xs: Iterable<string>): string[] => [...xs].sort();
const generationOf = (e: TimelineEntry): number | undefined => e.generation ?? e.epoch;

/** The partitions of `topic` in an entry member's assignment (a member without them: none). */
function assigned(entry: TimelineEntry, memberId: string, topic: string): number[] {
  const m = entry.members.find((x) => x.memberId === memberId);
  return [...(m?.assignment?.[topic] ?? [])].sort((a, b) => a - b);
}

/**
 * Asserts the timeline agrees with the observations (see the file comment); returns the
 * generations checked. `what` names the client in messages.
 */
export function assertTimelineMatches(entries: readonly TimelineEntry[], observed: readonly ObservedAssignment[], topic: string, what: string): number[] {
  const gens = byGeneration(observed);
  assert.ok(gens.size > 0, `${what}: the clients reported no generation`);
  const rebalances = entries.filter((e) => e.kind === 'rebalance');
  let previous: { gen: number; members: Map<string, number[]> } | null = null;
  for (const [gen, members] of gens) {
    const entry = rebalances.find((e) => generationOf(e) === gen);
    assert.ok(entry !== undefined, `${what}: generation ${gen} (reported by ${sorted(members.keys()).join(', ')}) is not in the timeline: ${JSON.stringify(rebalances.map(generationOf))}`);
    assert.deepEqual(sorted(entry.members.map((m) => m.memberId)), sorted(members.keys()), `${what}: the members of generation ${gen}`);
    for (const [member, partitions] of members) {
      assert.deepEqual(assigned(entry, member, topic), partitions, `${what}: generation ${gen}: the partitions of ${member}`);
    }
    if (previous !== null) {
      // Everything between the two reported generations: a join or leave may have begun a generation no client saw.
      const between = rebalances.filter((e) => generationOf(e)! > previous!.gen && generationOf(e)! <= gen);
      const joined = new Set(between.flatMap((e) => e.joined.map((m) => m.memberId)));
      const left = new Set(between.flatMap((e) => e.left.map((m) => m.memberId)));
      for (const m of members.keys()) {
        if (!previous.members.has(m)) assert.ok(joined.has(m), `${what}: ${m} joined between generations ${previous.gen} and ${gen}: joined ${sorted(joined).join(', ')}`);
      }
      for (const m of previous.members.keys()) {
        if (!members.has(m)) assert.ok(left.has(m), `${what}: ${m} left between generations ${previous.gen} and ${gen}: left ${sorted(left).join(', ')}`);
      }
      // Consecutive generations: the moves are the owner changes between the two.
      if (between.length === 1) assertMoves(entry, previous.members, members, topic, `${what}: the partitions moved in generation ${gen}`);
    } else if (!rebalances.some((e) => generationOf(e)! < gen)) {
      // The group's first generation: every partition moved from nobody.
      assertMoves(entry, new Map(), members, topic, `${what}: the partitions moved in the first generation ${gen}`);
    }
    previous = { gen, members };
  }
  return [...gens.keys()];
}

function assertMoves(entry: TimelineEntry, before: Map<string, number[]>, after: Map<string, number[]>, topic: string, message: string): void {
  const ownerBefore = owners(before);
  const ownerAfter = owners(after);
  const expected = [...new Set([...ownerBefore.keys(), ...ownerAfter.keys()])]
    .filter((p) => ownerBefore.get(p) !== ownerAfter.get(p))
    .map((p) => ({ topic, partition: p, from: ownerBefore.get(p) ?? null, to: ownerAfter.get(p) ?? null }));
  assert.deepEqual(sortMoves(entry.moved.filter((m) => m.topic === topic)), sortMoves(expected), message);
}

function owners(members: Map<string, number[]>): Map<number, string> {
  const out = new Map<number, string>();
  for (const [member, partitions] of members) for (const p of partitions) out.set(p, member);
  return out;
}

function sortMoves<T extends { partition: number }>(moves: readonly T[]): T[] {
  return [...moves].sort((a, b) => a.partition - b.partition);
}
