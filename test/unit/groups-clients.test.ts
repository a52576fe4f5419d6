/**
 * Brook's classic group coordinator with a third-party client's rebalances: three KafkaJS
 * consumers in one group on a 6-partition topic. Records produced before and while the group
 * consumes are each consumed once between the members, each partition is read by one member
 * at a time (per partition the records arrive in offset order, no offset twice, and every
 * Stable generation's assignments are disjoint and cover the topic), and the commits reach the
 * log end. A member that disconnects (LeaveGroup) hands its partitions to the others before any
 * session could expire (the session timeout exceeds the test's) and consumption goes on; after
 * a restart on the same data dir the committed offsets are still there (KafkaJS
 * admin.fetchOffsets).
 *
 * KafkaJS commits after every message (autoCommitThreshold 1), so a record processed by one
 * member is never handed to another across a rebalance, as long as the coordinator accepts
 * the commits of the current generation while the group prepares a rebalance (as Kafka does).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AssignerProtocol, Partitioners, type Admin as KafkaJsAdmin, type Consumer } from 'kafkajs';
import { startBrook, tempDir } from '../support/brook.js';
import { kafkaJs, createTopicWithKafkaJs, topicOffsets } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';

const PARTITIONS = 6;
/**
 * Longer than the test's own timeout (90 s): no session can expire while the test runs, so a
 * handover after a member leaves can only come from its LeaveGroup. That makes "prompt"
 * (well under the session timeout) hold by construction, whatever the machine's speed.
 */
const SESSION_TIMEOUT_MS = 120_000;

interface Seen { member: number; partition: number; offset: number; value: string }

/** A Stable group with `members` members whose assignments are disjoint and cover every partition; member id → partitions. */
async function stableAssignment(admin: KafkaJsAdmin, groupId: string, topic: string, members: number): Promise<Map<string, number[]> | undefined> {
  const { groups } = await admin.describeGroups([groupId]);
  const g = groups[0]!;
  if (g.state !== 'Stable' || g.members.length !== members) return undefined;
  const out = new Map<string, number[]>();
  for (const m of g.members) {
    const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    out.set(m.memberId, [...(decoded?.assignment[topic] ?? [])].sort((a, b) => a - b));
  }
  const all = [...out.values()].flat().sort((a, b) => a - b);
  if (all.length === 0) return undefined; // the leader's SyncGroup has not landed yet
  assert.deepEqual(all, Array.from({ length: PARTITIONS }, (_, p) => p), `one Stable generation assigns each partition to exactly one member: ${JSON.stringify([...out])}`);
  return out;
}

/** Per partition, the records in the order the members consumed them are the offsets 0, 1, 2, ... with no repeat. */
function assertOrderedOnce(seen: readonly Seen[], ends: Record<number, { high: number }>): void {
  for (let p = 0; p < PARTITIONS; p++) {
    const offsets = seen.filter((s) => s.partition === p).map((s) => s.offset);
    assert.deepEqual(offsets, Array.from({ length: ends[p]!.high }, (_, i) => i), `partition ${p}: every offset once, in order (one reader at a time)`);
  }
}

test('3 KafkaJS consumers share a 6-partition topic: exactly once, one owner per partition, prompt handover on leave, commits survive a restart', { timeout: 90_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path, groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'groups-clients-kafkajs';
  const groupId = 'groups-clients-kafkajs-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);

  const kafka = kafkaJs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('admin disconnect', () => admin.disconnect());
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  let produced = 0;
  const produce = async (n: number): Promise<void> => {
    const from = produced;
    produced += n;
    await producer.send({
      topic, acks: -1,
      messages: Array.from({ length: n }, (_, i) => ({ partition: (from + i) % PARTITIONS, key: `k${from + i}`, value: `v${from + i}` })),
    });
  };

  // Before: records waiting when the first member joins (it starts alone, then rebalances twice).
  await produce(300);

  const seen: Seen[] = [];
  const consumers: Consumer[] = [];
  const memberIds: (string | undefined)[] = [];
  for (let i = 0; i < 3; i++) {
    const consumer = kafka.consumer({
      groupId, sessionTimeout: SESSION_TIMEOUT_MS, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 100,
    });
    consumers.push(consumer);
    cleanup.add(`consumer ${i} disconnect`, () => consumer.disconnect());
    consumer.on(consumer.events.GROUP_JOIN, (e) => { memberIds[i] = e.payload.memberId; });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommitThreshold: 1,
      eachMessage: async ({ partition, message }) => {
        seen.push({ member: i, partition, offset: Number(message.offset), value: message.value!.toString() });
      },
    });
  }

  const first = await until('a Stable group of 3 members', 30_000, () => stableAssignment(admin, groupId, topic, 3));
  for (const [member, partitions] of first) assert.equal(partitions.length, 2, `member ${member} owns 2 of 6 partitions`);

  // During: more records while the three consume.
  for (let k = 0; k < 5; k++) {
    await produce(60);
    await new Promise((r) => setTimeout(r, 50));
  }
  await until(`all ${produced} records consumed`, 30_000, async () => (seen.length >= produced ? true : undefined));
  await new Promise((r) => setTimeout(r, 500)); // would-be duplicates have time to show up
  let ends = await topicOffsets(broker.bootstrap, topic);
  assert.equal(seen.length, produced, 'each record consumed once between the members');
  assert.equal(new Set(seen.map((s) => s.value)).size, produced);
  assertOrderedOnce(seen, ends);
  // Each member read what it owns in the 3-member generation (records of the "during" phase).
  const during = seen.filter((s) => Number(s.value.slice(1)) >= 300);
  for (const [i, id] of memberIds.entries()) {
    const owned = first.get(id!) ?? [];
    for (const s of during.filter((d) => d.member === i)) {
      assert.ok(owned.includes(s.partition), `member ${i} read partition ${s.partition} it does not own in the Stable generation (${owned.join()})`);
    }
  }

  const committed = async (a: KafkaJsAdmin): Promise<{ partition: number; offset: string }[]> => {
    const [fetched] = await a.fetchOffsets({ groupId, topics: [topic] });
    return fetched!.partitions.map((p) => ({ partition: p.partition, offset: p.offset })).sort((x, y) => x.partition - y.partition);
  };
  const logEnd = (e: typeof ends): { partition: number; offset: string }[] => Array.from({ length: PARTITIONS }, (_, p) => ({ partition: p, offset: String(e[p]!.high) }));
  await until('offsets committed up to the log end', 15_000, async () => (JSON.stringify(await committed(admin)) === JSON.stringify(logEnd(ends)) ? true : undefined));

  // A member leaves cleanly: the other two take over its partitions before any session could
  // expire (SESSION_TIMEOUT_MS is beyond the test's timeout), i.e. because of the LeaveGroup.
  const leaving = 2;
  const leftAt = Date.now();
  await consumers[leaving]!.disconnect();
  const second = await until('a Stable group of the 2 remaining members', SESSION_TIMEOUT_MS, () => stableAssignment(admin, groupId, topic, 2));
  const handoverMs = Date.now() - leftAt; // reported, not asserted
  assert.ok(!second.has(memberIds[leaving]!), 'the member that left is gone');
  for (const [member, partitions] of second) assert.equal(partitions.length, 3, `member ${member} owns 3 of 6 partitions`);
  t.diagnostic(`handover after LeaveGroup: ${handoverMs} ms`);

  const before = seen.length;
  await produce(120);
  await until(`all ${produced} records consumed after the handover`, 30_000, async () => (seen.length >= produced ? true : undefined));
  await new Promise((r) => setTimeout(r, 500));
  ends = await topicOffsets(broker.bootstrap, topic);
  assert.equal(seen.length, produced, 'each record consumed once, also after the handover');
  assertOrderedOnce(seen, ends);
  const after = seen.slice(before);
  assert.ok(after.every((s) => s.member !== leaving), 'nothing read by the member that left');
  assert.deepEqual([...new Set(after.map((s) => s.partition))].sort(), Array.from({ length: PARTITIONS }, (_, p) => p), 'every partition consumed after the handover');
  await until('offsets committed up to the new log end', 15_000, async () => (JSON.stringify(await committed(admin)) === JSON.stringify(logEnd(ends)) ? true : undefined));
  const expected = logEnd(ends);

  for (const [i, c] of consumers.entries()) if (i !== leaving) await c.disconnect();
  await until('the group Empty after all left', 10_000, async () => {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]!.state === 'Empty' ? true : undefined;
  });
  await producer.disconnect();
  await admin.disconnect();

  // Restart on the same data dir: the committed offsets come back.
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path, groupInitialRebalanceDelayMs: 0 });
  const admin2 = kafkaJs(broker.bootstrap).admin();
  await admin2.connect();
  cleanup.add('admin2 disconnect', () => admin2.disconnect());
  assert.deepEqual(await committed(admin2), expected, 'committed offsets after the restart');
  const { groups } = await admin2.describeGroups([groupId]);
  assert.equal(groups[0]!.state, 'Empty');
});
