/**
 * Brook's consumer with the consumer protocol (KIP-848, groupProtocol 'consumer') as a group
 * member for interop tests, and the mixed-group scenario run against Apache Kafka 4.4.0
 * (test/interop/consumer-protocol-kafka.test.ts) and Brook's broker
 * (test/interop/consumer-protocol-clients.test.ts): two Brook members and Kafka's Java
 * KafkaConsumer (group.protocol=consumer, test/support/java GroupConsumer) in one group.
 */
import assert from 'node:assert/strict';
import { TrackedMember } from './tracked-member.js';
import { runProcess } from './clients/run.js';
import { createTopic, produceSpread } from './consumer-helpers.js';
import { ownershipIntervals, type OwnershipEvent } from './ownership.js';

export const PARTITIONS = 6;
export const PER_PARTITION = 600;

export interface MemberRun { readonly events: OwnershipEvent[]; readonly records: [number, number][] }

/**
 * A Brook member with the consumer protocol. `manualCommits`: commit after every poll and on
 * revocation (GroupConsumer.java's contract); else auto-commit at Kafka's default interval
 * (5 s), so a hand-over is exact only through the commit before the revocation. `slow`: 10
 * records per poll and 10 ms of work each, so rebalances land while records are in flight.
 */
export class Member extends TrackedMember implements MemberRun {
  constructor(bootstrap: string, topic: string, group: string, manualCommits: boolean, slow = false) {
    super({
      bootstrapServers: bootstrap, groupId: group, groupProtocol: 'consumer', autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
      enableAutoCommit: !manualCommits, maxPollIntervalMs: 20_000, requestTimeoutMs: 10_000, ...(slow ? { maxPollRecords: 10 } : {}),
    }, topic, { manualCommits, slow });
  }
}

/** Every offset of every partition read once across `members`, and no partition owned by two members at once. */
export function assertExactlyOnceAndOneOwner(members: readonly MemberRun[], perPartition: number): void {
  for (let p = 0; p < PARTITIONS; p++) {
    const offsets = members.flatMap((m) => m.records.filter(([rp]) => rp === p).map(([, o]) => o)).sort((a, b) => a - b);
    assert.deepEqual(offsets, Array.from({ length: perPartition }, (_, o) => o), `partition ${p}: every offset consumed once across the group`);
  }
  const owners = members.map((m) => ownershipIntervals(m.events));
  for (let p = 0; p < PARTITIONS; p++) {
    const all = owners.flatMap((o, i) => (o.get(p) ?? []).map(([from, to]) => ({ member: i, from, to }))).sort((a, b) => a.from - b.from);
    for (let k = 1; k < all.length; k++) assert.ok(all[k - 1]!.to <= all[k]!.from, `partition ${p} owned by two members at once: ${JSON.stringify(all)}`);
    for (const [i, m] of members.entries()) {
      if (m.records.some(([rp]) => rp === p)) assert.ok(owners[i]!.has(p), `member ${i} read partition ${p} without owning it`);
    }
  }
}

export async function waitFor(done: () => boolean | Promise<boolean>, ms: number, what: () => string): Promise<void> {
  for (const until = Date.now() + ms; !(await done());) {
    assert.ok(Date.now() < until, what());
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Two Brook members (manual commits) and Kafka's Java KafkaConsumer (group.protocol=consumer,
 * the broker's default assignor) in one group on a 6-partition topic: once the Brook members
 * have 2 partitions each, half the records are produced; one Brook member leaves after reading
 * some (its partitions handed over through its commits), the rest is produced. The Java member
 * stops once every partition's committed offset is its end offset. Checked: no errors, every
 * member read, every record read once, one owner at a time per partition. Returns the records
 * per member (the Brook ones, then Java's).
 */
export async function mixedGroupWithJava(bootstrap: string, jar: string, topic: string, group: string): Promise<number[]> {
  await createTopic(bootstrap, topic, PARTITIONS);
  const brook = [0, 1].map(() => new Member(bootstrap, topic, group, true));
  let javaDone = false;
  const java = runProcess('java', ['-cp', jar, 'brook.conformance.GroupConsumer', bootstrap, topic, group, 'consumer', String(PARTITIONS * PER_PARTITION), '60000'], { timeoutMs: 90_000 })
    .finally(() => { javaDone = true; });
  try {
    for (const m of brook) m.start();
    await waitFor(() => javaDone || brook.every((m) => m.consumer.assignment().length === 2), 40_000,
      () => `the group did not settle with 2 partitions per member: ${JSON.stringify(brook.map((m) => m.consumer.assignment().map((tp) => tp.partition)))}`);
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION / 2, 'a');
    await waitFor(() => javaDone || brook[1]!.records.length >= 100, 30_000, () => `the leaving member read ${brook[1]!.records.length}`);
    await brook[1]!.close();
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION / 2, 'b');
    const result = await java;
    await brook[0]!.close();
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(result.code === 0 && line !== undefined, `java member exited ${result.code}: ${result.stderr.slice(-3000)}`);
    const summary = JSON.parse(line) as MemberRun & { errors: string[]; timedOut: boolean };
    assert.deepEqual(summary.errors, [], 'java member: no errors');
    assert.equal(summary.timedOut, false, 'the java member saw every partition committed at its end');
    for (const m of brook) assert.deepEqual(m.errors, [], 'Brook member: no errors');
    assert.ok(summary.records.length > 0 && brook.every((m) => m.records.length > 0), `every member read: ${[...brook.map((m) => m.records.length), summary.records.length]}`);
    assertExactlyOnceAndOneOwner([...brook, summary], PER_PARTITION);
    return [...brook.map((m) => m.records.length), summary.records.length];
  } finally {
    await Promise.all(brook.map((m) => m.close().catch(() => undefined)));
    await java.catch(() => undefined);
  }
}
