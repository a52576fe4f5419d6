/**
 * Mixed consumer groups: two Brook consumers (in this process) and one member of
 * another client — Apache Kafka's Java KafkaConsumer 4.4.0 (test/support/java GroupConsumer)
 * or librdkafka through confluent-kafka (test/support/python/group_consumer.py) — in one
 * classic group on a 6-partition topic, on Brook's broker and on Apache Kafka 4.4.0, for
 * range, roundrobin, sticky and cooperative-sticky.
 *
 * Checked: once the three are in, the group's assignment (DescribeGroups) gives every
 * partition to one member, 2 each; for range/roundrobin it is exactly what Kafka's own
 * assignor classes compute from the member ids (test/support/java AssignorOracle). Then 900
 * records are produced, one Brook member leaves once it has read some (a rebalance in the
 * middle of consumption, its commits handed over), and 900 more are produced. Every offset
 * is consumed exactly once across the members, and ownership intervals (from the rebalance
 * callbacks) of a partition never overlap across members.
 *
 * librdkafka has no eager 'sticky' ("Unsupported partition.assignment.strategy: sticky"), so
 * that combination is skipped.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Admin } from '../../src/client/admin.js';
import { startBrook, projectRoot } from '../support/brook.js';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { commandWorks, runProcess } from '../support/clients/run.js';
import { createTopic, produceSpread } from '../support/consumer-helpers.js';
import { ownershipIntervals, type OwnershipEvent } from '../support/ownership.js';
import { kafkaAssignment } from '../support/java-oracle.js';
import { TrackedMember } from '../support/tracked-member.js';

const PARTITIONS = 6;
const PER_PARTITION = 300;
const TOTAL = PARTITIONS * PER_PARTITION;
const PEER_TIMEOUT_MS = 40_000;

interface PeerSummary { events: OwnershipEvent[]; records: [number, number][]; errors: string[] }

/** A Brook member with the same contract as GroupConsumer.java: commit after every poll and, for the rest, on revocation. */
function brookMember(bootstrap: string, topic: string, group: string, assignor: string): TrackedMember {
  return new TrackedMember({
    bootstrapServers: bootstrap, groupId: group, assignors: [assignor], autoOffsetReset: 'earliest', enableAutoCommit: false,
    fetchMaxWaitMs: 100, heartbeatIntervalMs: 300, sessionTimeoutMs: 10_000, maxPollIntervalMs: 20_000, requestTimeoutMs: 10_000,
  }, topic, { manualCommits: true });
}

type Peer = 'java' | 'librdkafka';

function peerCommand(peer: Peer, bootstrap: string, topic: string, group: string, assignor: string): [string, string[]] {
  const args = [bootstrap, topic, group, assignor, String(TOTAL), String(PEER_TIMEOUT_MS)];
  return peer === 'java'
    ? ['java', ['-cp', javaJar(), 'brook.conformance.GroupConsumer', ...args]]
    : ['python3', [join(projectRoot, 'test', 'support', 'python', 'group_consumer.py'), ...args]];
}

/**
 * What Java's assignor gives these members (one topic, no instance ids), computed by Kafka's
 * own RangeAssignor / RoundRobinAssignor (AssignorOracle.java), not by Brook's assignors: the
 * group's leader may be a Brook member, so Brook's assignors are what is under test here.
 * Range and round robin depend only on the sorted member ids, so the result is exact; the
 * sticky assignors also depend on the earlier rounds' ownership, which the test cannot see.
 */
async function expectedAssignment(assignor: string, memberIds: readonly string[], topic: string): Promise<Map<string, number[]> | null> {
  if (assignor !== 'range' && assignor !== 'roundrobin') return null;
  const members = memberIds.map((memberId) => ({ memberId, groupInstanceId: null, topics: [topic], ownedPartitions: [], generationId: -1, rackId: null }));
  const java = await kafkaAssignment(assignor, { [topic]: PARTITIONS }, members);
  return new Map([...java].map(([id, tps]) => [id, tps.map((tp) => tp.partition)]));
}

async function waitForBalancedGroup(bootstrap: string, group: string, deadlineMs: number, peerDone: () => boolean): Promise<Map<string, number[]>> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    let last = '';
    while (Date.now() < deadlineMs && !peerDone()) {
      const d = await admin.describeGroup(group).catch(() => null);
      if (d) {
        const owned = new Map(d.members.map((m) => [m.memberId, m.assignment.map((p) => p.partition).sort((a, b) => a - b)]));
        last = `${d.state} ${JSON.stringify([...owned])}`;
        const flat = [...owned.values()].flat();
        if (d.state === 'Stable' && owned.size === 3 && flat.length === PARTITIONS && [...owned.values()].every((ps) => ps.length === 2)) return owned;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`the group did not settle with 3 members of 2 partitions each: ${last}`);
  } finally {
    admin.close();
  }
}

async function runMixed(bootstrap: string, peer: Peer, assignor: string, tag: string): Promise<void> {
  const topic = `mixed-${tag}`;
  const group = `mixed-group-${tag}`;
  await createTopic(bootstrap, topic, PARTITIONS);
  const started = Date.now();
  const brook = [0, 1].map(() => brookMember(bootstrap, topic, group, assignor));
  const [cmd, args] = peerCommand(peer, bootstrap, topic, group, assignor);
  let peerDone = false;
  const peerRun = runProcess(cmd, args, { timeoutMs: PEER_TIMEOUT_MS + 20_000 }).finally(() => { peerDone = true; });
  let leaving = false;
  const loops = brook.map((m, i) => m.run(() => peerDone || (i === 1 && leaving)));
  try {
    const owned = await waitForBalancedGroup(bootstrap, group, Date.now() + 30_000, () => peerDone);
    const settledMs = Date.now() - started;
    // Half the records; once the second Brook member has read some, it leaves (the others take
    // its partitions from its commits); then the other half.
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION / 2, 'a');
    const leaveBy = Date.now() + 10_000;
    while (brook[1]!.records.length < 100 && Date.now() < leaveBy) await new Promise((r) => setTimeout(r, 20));
    leaving = true;
    await loops[1];
    await brook[1]!.close();
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION / 2, 'b');

    const result = await peerRun;
    await Promise.all(loops);
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(result.code === 0 && line !== undefined, `${peer} member exited ${result.code}: ${result.stderr.slice(-3000)}`);
    const summary = JSON.parse(line) as PeerSummary;
    assert.deepEqual(summary.errors, [], `${peer} member: no errors`);
    for (const m of brook) assert.deepEqual(m.errors, [], 'Brook member: no commit errors');
    // Kafka's assignor runs in a JVM of its own: asked once the members are done, so it does
    // not compete for the CPU with the rebalance in the middle of consumption.
    const java = await expectedAssignment(assignor, [...owned.keys()], topic);
    if (java) {
      assert.deepEqual([...java.keys()].sort(), [...owned.keys()].sort(), 'Kafka\'s assignor gave every member an entry');
      assert.deepEqual(owned, java, `${assignor}: the mixed group's assignment is what Kafka's ${assignor} assignor computes`);
    }

    const members = [...brook.map((m) => ({ events: m.events, records: m.records })), summary];
    for (let p = 0; p < PARTITIONS; p++) {
      const offsets = members.flatMap((m) => m.records.filter(([rp]) => rp === p).map(([, o]) => o)).sort((a, b) => a - b);
      assert.deepEqual(offsets, Array.from({ length: PER_PARTITION }, (_, o) => o), `partition ${p}: every offset consumed once across the group`);
    }
    const owners = members.map((m) => ownershipIntervals(m.events));
    for (let p = 0; p < PARTITIONS; p++) {
      const all = owners.flatMap((o, i) => (o.get(p) ?? []).map(([from, to]) => ({ member: i, from, to }))).sort((a, b) => a.from - b.from);
      for (let k = 1; k < all.length; k++) assert.ok(all[k - 1]!.to <= all[k]!.from, `partition ${p} owned by two members at once: ${JSON.stringify(all)}`);
      for (const [i, m] of members.entries()) {
        if (m.records.some(([rp]) => rp === p)) assert.ok(owners[i]!.has(p), `member ${i} read partition ${p} without owning it`);
      }
    }
    process.stderr.write(`consumer-mixed ${tag}: settled in ${settledMs} ms, records per member ${members.map((m) => m.records.length).join('/')}, total ${Date.now() - started} ms\n`);
  } finally {
    peerDone = true;
    await Promise.allSettled(loops);
    await Promise.all(brook.map((m) => m.close()));
    await peerRun.catch(() => undefined);
  }
}

const javaReady = javaAvailable();
const librdkafkaReady = commandWorks('python3', ['-c', 'import confluent_kafka']);
const ASSIGNORS = ['range', 'cooperative-sticky', 'roundrobin', 'sticky'];

let kafka: Promise<KafkaBroker> | null = null;
function kafkaBroker(): Promise<KafkaBroker> {
  kafka ??= startKafka({ config: { 'group.initial.rebalance.delay.ms': '0' } });
  return kafka;
}
after(async () => { if (kafka) await (await kafka).stop(); });

for (const broker of ['brook', 'kafka'] as const) {
  for (const peer of ['java', 'librdkafka'] as const) {
    for (const assignor of ASSIGNORS) {
      // The only skip is the peer's own limitation; a missing peer fails the test (.ci/run installs them all).
      const skip = peer === 'librdkafka' && assignor === 'sticky' && 'librdkafka does not implement the eager sticky assignor (Unsupported partition.assignment.strategy: sticky)';
      test(`${broker} broker: 2 Brook + 1 ${peer} consumer, ${assignor}: Java's assignment, every record once, one owner per partition`, { skip, timeout: 90_000 }, async () => {
        if (peer === 'java') assert.ok(javaReady, 'java 17+ and Maven are needed for the interop suite (test/support/java)');
        else assert.ok(librdkafkaReady, 'python3 with confluent-kafka is needed for the interop suite (pip install confluent-kafka)');
        const tag = `${broker}-${peer}-${assignor}`;
        if (broker === 'brook') {
          const b = await startBrook({ groupInitialRebalanceDelayMs: 0 });
          try {
            await runMixed(b.bootstrap, peer, assignor, tag);
          } finally {
            await b.stop();
          }
        } else {
          await runMixed((await kafkaBroker()).bootstrap, peer, assignor, tag);
        }
      });
    }
  }
}
