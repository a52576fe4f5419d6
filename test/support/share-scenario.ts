/**
 * One share group scenario run the same way against Kafka 4.4 (the oracle) and Brook, with
 * members of any client (test/support/clients/share-members.ts): they read a 3-partition topic
 * with explicit acknowledgement, each releasing records whose offset is a multiple of
 * `releaseEvery` the first time it gets them. Every record must be accepted exactly once,
 * every released record must come back with delivery count 2, no record may come with a
 * delivery count its history does not explain, and more than one member must get records.
 *
 * A share group starts reading at the log end (share.auto.offset.reset=latest): warm-up
 * records go to every partition until each has delivered one, then the counted records are
 * produced.
 */
import assert from 'node:assert/strict';
import type { ShareDelivery, ShareMember } from './clients/share-members.js';
import { createTopic, produce } from './consumer-helpers.js';

export type MemberStarter = (bootstrap: string, topic: string, group: string) => ShareMember;

const PARTITIONS = 3;
const PER_PARTITION = 100;

async function waitFor(what: string, condition: () => boolean, timeoutMs: number, tick?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick?.();
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Members started by `starters` (each releasing, once, every record whose offset is a
 * multiple of `releaseEvery`) share a 3-partition topic; see the assertions for what must hold.
 */
export async function shareGroupScenario(bootstrap: string, name: string, starters: readonly MemberStarter[], releaseEvery: number): Promise<void> {
  const topic = `share-${name}`;
  const group = `share-${name}-group`;
  await createTopic(bootstrap, topic, PARTITIONS);
  const members: ShareMember[] = starters.map((start) => start(bootstrap, topic, group));
  const all = (): ShareDelivery[] => members.flatMap((m) => m.deliveries);
  try {
    // Warm-up: until every partition delivered something, its share-partition may not be
    // initialized yet, and records produced before that are not the group's.
    const warm = new Set<number>();
    await waitFor('every partition to deliver a warm-up record', () => warm.size === PARTITIONS, 90_000, async () => {
      for (const d of all()) if (d.v.startsWith('warm-')) warm.add(d.p);
      for (let p = 0; p < PARTITIONS; p++) if (!warm.has(p)) await produce(bootstrap, topic, p, [`warm-${p}-${Date.now()}`]);
    });
    for (let p = 0; p < PARTITIONS; p++) {
      await produce(bootstrap, topic, p, Array.from({ length: PER_PARTITION }, (_, i) => `rec-${p}-${i}`));
    }
    const accepted = (): ShareDelivery[] => all().filter((d) => d.v.startsWith('rec-') && d.ack === 'ACCEPT');
    await waitFor('every record to be accepted', () => accepted().length >= PARTITIONS * PER_PARTITION, 90_000);
    await new Promise((r) => setTimeout(r, 1000));
    for (const m of members) assert.deepEqual(m.errors, [], 'commitSync errors');

    const counted = all().filter((d) => d.v.startsWith('rec-'));
    const acceptedValues = counted.filter((d) => d.ack === 'ACCEPT').map((d) => d.v).sort();
    const expected = Array.from({ length: PARTITIONS * PER_PARTITION }, (_, i) => `rec-${Math.floor(i / PER_PARTITION)}-${i % PER_PARTITION}`).sort();
    assert.deepEqual(acceptedValues, expected, 'every record accepted exactly once');
    for (const d of counted) {
      const releasedFirst = d.o % releaseEvery === 0;
      if (d.ack === 'RELEASE') assert.equal(d.d, 1, `released on first delivery: ${JSON.stringify(d)}`);
      else assert.equal(d.d, releasedFirst ? 2 : 1, `delivery count: ${JSON.stringify(d)}`);
    }
    const released = counted.filter((d) => d.ack === 'RELEASE').length;
    assert.equal(released, counted.filter((d) => d.ack === 'ACCEPT' && d.d === 2).length, 'every released record came back once');
    assert.ok(released > 0);
    // The work was shared: more than one member accepted records.
    assert.ok(members.filter((m) => m.deliveries.some((d) => d.ack === 'ACCEPT')).length >= 2, 'more than one member got records');
  } finally {
    await Promise.all(members.map((m) => m.stop()));
  }
}

