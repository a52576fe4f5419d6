/**
 * Consumer groups of clients Brook did not write, against Brook's classic group coordinator:
 * three processes of Apache Kafka's Java KafkaConsumer (kafka-clients 4.4.0,
 * `brook.conformance.GroupConsumer`) and of librdkafka (confluent-kafka for Python,
 * `test/support/python/group_consumer.py`) in one group on a 6-partition topic, with the
 * `range` (eager) and `cooperative-sticky` (incremental) assignors. The members start together
 * while 3,000 records are being produced, so they join, rebalance and commit while consuming.
 * Checked: every record consumed exactly once across the three, each partition owned by one
 * member at a time (ownership intervals from the rebalance callbacks do not overlap; for Java
 * also the owned sets of one generation are disjoint), no commit failed, and the group's final
 * committed offsets are the end offsets. Last, committed offsets survive `kill -9` of a broker
 * process (KafkaJS admin.fetchOffsets after the restart).
 *
 * Needs: java 17+ and Maven (test/support/java), python3 with confluent-kafka and kafka-python (.ci/run installs them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Partitioners } from 'kafkajs';
import { spawnBrook, startBrook, tempDir, projectRoot } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs, createTopicWithKafkaJs, topicOffsets } from '../support/clients/kafkajs.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { commandWorks, runProcess, within } from '../support/clients/run.js';
import { ownershipIntervals } from '../support/ownership.js';

const PARTITIONS = 6;
const RECORDS = 3_000;
const MEMBERS = 3;
const MEMBER_TIMEOUT_MS = 40_000;

interface MemberEvent { t: number; type: 'assigned' | 'revoked' | 'lost' | 'closing' | 'closed'; gen: number; partitions: number[]; owned: number[] }
interface MemberSummary {
  clientId: string; assignor: string; timedOut: boolean; ms: number;
  events: MemberEvent[]; records: [number, number][];
  committed: Record<string, number>; endOffsets: Record<string, number>; errors: string[]; warnings?: string[];
}

type Runner = 'java' | 'python' | 'kafka-python';

function memberCommand(runner: Runner, bootstrap: string, topic: string, group: string, assignor: string): [string, string[]] {
  const args = [bootstrap, topic, group, assignor, String(RECORDS), String(MEMBER_TIMEOUT_MS)];
  return runner === 'java'
    ? ['java', ['-cp', javaJar(), 'brook.conformance.GroupConsumer', ...args]]
    : ['python3', [join(projectRoot, 'test', 'support', 'python', runner === 'python' ? 'group_consumer.py' : 'kafka_python_group.py'), ...args]];
}

async function runGroup(runner: Runner, assignor: string): Promise<void> {
  const cleanup = new Cleanup();
  try {
    const broker = await startBrook();
    cleanup.add('stop broker', () => broker.stop());
    const topic = `groups-${runner}-${assignor}`;
    const group = `group-${runner}-${assignor}`;
    await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);
    const kafka = kafkaJs(broker.bootstrap);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    cleanup.add('producer disconnect', () => producer.disconnect());

    // The members start now; a third of the records is there, the rest arrives while they join.
    const members = Array.from({ length: MEMBERS }, () => {
      const [cmd, args] = memberCommand(runner, broker.bootstrap, topic, group, assignor);
      return runProcess(cmd, args, { timeoutMs: MEMBER_TIMEOUT_MS + 20_000 });
    });
    const send = (from: number, n: number) => producer.send({
      topic, acks: -1,
      messages: Array.from({ length: n }, (_, i) => ({ partition: (from + i) % PARTITIONS, key: `k${from + i}`, value: `v${from + i}` })),
    });
    await send(0, 600);
    for (let from = 600; from < RECORDS; from += 100) {
      await new Promise((r) => setTimeout(r, 200));
      await send(from, 100);
    }

    const results = await Promise.all(members);
    const summaries = results.map((r, i): MemberSummary => {
      const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
      assert.ok(r.code === 0 && line !== undefined, `${runner} member ${i} exited ${r.code}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr.slice(-3000)}`);
      return JSON.parse(line) as MemberSummary;
    });
    for (const [i, s] of summaries.entries()) {
      assert.deepEqual(s.errors, [], `${runner} member ${i}: no errors (commits included)`);
      assert.equal(s.timedOut, false, `${runner} member ${i} saw the committed offsets reach the end offsets`);
    }

    // Every record exactly once across the members.
    const ends = await topicOffsets(broker.bootstrap, topic);
    assert.equal(Object.values(ends).reduce((n, e) => n + e.high, 0), RECORDS);
    for (let p = 0; p < PARTITIONS; p++) {
      const offsets = summaries.flatMap((s) => s.records.filter(([rp]) => rp === p).map(([, o]) => o)).sort((a, b) => a - b);
      assert.deepEqual(offsets, Array.from({ length: ends[p]!.high }, (_, o) => o), `partition ${p}: every offset consumed once across the group`);
    }

    // One owner at a time per partition.
    const owned = summaries.map((s) => ownershipIntervals(s.events));
    for (let p = 0; p < PARTITIONS; p++) {
      const all = owned.flatMap((m, i) => (m.get(p) ?? []).map(([from, to]) => ({ member: i, from, to }))).sort((a, b) => a.from - b.from);
      for (let k = 1; k < all.length; k++) {
        assert.ok(all[k - 1]!.to <= all[k]!.from, `partition ${p} owned by two members at once: ${JSON.stringify(all)}`);
      }
      // A member read a partition only while it owned it (it had it at some point).
      for (const [i, s] of summaries.entries()) {
        if (s.records.some(([rp]) => rp === p)) assert.ok(owned[i]!.has(p), `${runner} member ${i} read partition ${p} without owning it`);
      }
    }
    if (runner === 'java') {
      const byGen = new Map<number, number[][]>();
      for (const s of summaries) {
        const last = new Map<number, number[]>();
        for (const e of s.events) if (e.type === 'assigned') last.set(e.gen, e.owned);
        for (const [gen, set] of last) byGen.set(gen, [...(byGen.get(gen) ?? []), set]);
      }
      for (const [gen, sets] of byGen) {
        const flat = sets.flat();
        assert.equal(new Set(flat).size, flat.length, `generation ${gen}: owned sets overlap: ${JSON.stringify(sets)}`);
      }
    }

    // The group's committed offsets are the end offsets.
    const admin = kafka.admin();
    await admin.connect();
    cleanup.add('admin disconnect', () => admin.disconnect());
    const [fetched] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    assert.deepEqual(
      fetched!.partitions.map((p) => [p.partition, Number(p.offset)]).sort((a, b) => a[0]! - b[0]!),
      Array.from({ length: PARTITIONS }, (_, p) => [p, ends[p]!.high]),
      'final committed offsets = end offsets',
    );
    const { groups } = await admin.describeGroups([group]);
    assert.equal(groups[0]!.state, 'Empty', 'every member left');
    const gens = new Set(summaries.flatMap((s) => s.events.map((e) => e.gen)).filter((g) => g >= 0));
    const perMember = summaries.map((s) => s.records.length).join('/');
    const warnings = summaries.flatMap((s) => s.warnings ?? []);
    process.stderr.write(`groups-clients: ${runner} ${assignor}: records per member ${perMember}, member ms ${summaries.map((s) => s.ms).join('/')}${gens.size ? `, generations ${[...gens].sort((a, b) => a - b).join(',')}` : ''}${warnings.length ? `, warnings ${JSON.stringify(warnings)}` : ''}\n`);
  } finally {
    await cleanup.run();
  }
}

const javaReady = javaAvailable();
const pythonReady = commandWorks('python3', ['-c', 'import confluent_kafka']);
const kafkaPythonReady = commandWorks('python3', ['-c', 'import kafka']);

for (const assignor of ['range', 'cooperative-sticky']) {
  test(`Java KafkaConsumer x3, ${assignor}: every record once, one owner per partition, commits at the end offsets`, { timeout: 90_000 }, async () => {
    assert.ok(javaReady, 'java 17+ and Maven are required (test/support/java)');
    await runGroup('java', assignor);
  });
}

for (const assignor of ['range', 'cooperative-sticky']) {
  test(`librdkafka (confluent-kafka) x3, ${assignor}: every record once, one owner per partition, commits at the end offsets`, { timeout: 90_000 }, async () => {
    assert.ok(pythonReady, 'python3 with confluent-kafka is required (pip install confluent-kafka)');
    await runGroup('python', assignor);
  });
}

for (const assignor of ['range', 'roundrobin']) {
  test(`kafka-python x3, ${assignor}: every record once, one owner per partition, commits at the end offsets`, { timeout: 90_000 }, async () => {
    assert.ok(kafkaPythonReady, 'python3 with kafka-python is required (pip install kafka-python)');
    await runGroup('kafka-python', assignor);
  });
}

test('committed offsets survive kill -9 of the broker process', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const args = ['--port', '0', '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '0'];
  const first = await spawnBrook(args);
  cleanup.add('kill first broker', () => first.kill());
  const topic = 'groups-kill9';
  const groupId = 'groups-kill9-group';
  await createTopicWithKafkaJs(first.bootstrap, topic, 3);
  const kafka = kafkaJs(first.bootstrap, 'brook-test-kill9');
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 90 }, (_, i) => ({ partition: i % 3, value: `v${i}` })) });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 300, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  await consumer.run({ autoCommitThreshold: 1, eachMessage: async () => { seen++; } });
  const admin = kafka.admin();
  await admin.connect();
  const committed = async (a: typeof admin): Promise<number[]> => {
    const [fetched] = await a.fetchOffsets({ groupId, topics: [topic] });
    return fetched!.partitions.sort((x, y) => x.partition - y.partition).map((p) => Number(p.offset));
  };
  const deadline = Date.now() + 20_000;
  while ((await committed(admin)).join() !== '30,30,30') {
    assert.ok(Date.now() < deadline, `offsets not committed in time (seen ${seen}): ${(await committed(admin)).join()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await admin.disconnect();
  await within(15_000, 'KafkaJS consumer disconnect', consumer.disconnect());

  // kill -9: the acknowledged commits must be on disk.
  await first.kill();

  const second = await spawnBrook(args);
  cleanup.add('stop second broker', () => second.stop());
  const admin2 = kafkaJs(second.bootstrap, 'brook-test-kill9-admin').admin();
  await admin2.connect();
  cleanup.add('admin2 disconnect', () => admin2.disconnect());
  assert.deepEqual(await committed(admin2), [30, 30, 30], 'committed offsets after kill -9 and restart');
});
