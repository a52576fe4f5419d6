/**
 * KIP-848 consumer groups with clients Brook did not write, end to end: two processes of
 * Apache Kafka's Java KafkaConsumer (kafka-clients, `group.protocol=consumer`,
 * `brook.conformance.GroupConsumer consumer-uniform`) and two of librdkafka 2.16 (confluent-kafka
 * 2.16.x, asserted; `test/support/python/group_consumer.py consumer-uniform`), each pair in one group on a
 * 4-partition topic while 2,000 records are produced. The members join one after the other
 * through ConsumerGroupHeartbeat, the broker's uniform assignor splits the partitions and the
 * first member revokes what the second gets; they commit (OffsetCommit with member epochs)
 * and leave. Checked: every record consumed exactly once across the two, one owner at a time
 * per partition (ownership intervals from the rebalance callbacks), no commit failed, the
 * committed offsets are the end offsets, and ConsumerGroupDescribe shows the group Empty.
 *
 * And a mixed group on Brook's broker: two of Brook's own consumers (groupProtocol 'consumer')
 * with Java's KafkaConsumer (group.protocol=consumer), a Brook member leaving mid-way: every
 * record once, one owner per partition (test/support/consumer-protocol-mixed.ts; the same
 * scenario runs against Kafka 4.4.0 in consumer-protocol-kafka.test.ts).
 *
 * Needs: java 17+ and Maven (test/support/java), python3 with confluent-kafka 2.16.x.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Partitioners } from 'kafkajs';
import { startBrook, projectRoot } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs, createTopicWithKafkaJs, topicOffsets } from '../support/clients/kafkajs.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { runProcess } from '../support/clients/run.js';
import { assertLibrdkafka216 } from '../support/clients/confluent-kafka.js';
import { ownershipIntervals } from '../support/ownership.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { mixedGroupWithJava } from '../support/consumer-protocol-mixed.js';

const PARTITIONS = 4;
const RECORDS = 2_000;
const MEMBER_TIMEOUT_MS = 40_000;

interface MemberEvent { t: number; type: 'assigned' | 'revoked' | 'lost' | 'closing' | 'closed'; gen: number; partitions: number[]; owned: number[] }
interface MemberSummary {
  clientId: string; timedOut: boolean; ms: number; events: MemberEvent[]; records: [number, number][]; errors: string[];
}

async function runGroup(runner: 'java' | 'python'): Promise<void> {
  const cleanup = new Cleanup();
  try {
    // A short heartbeat interval (Kafka's minimum is configurable) keeps the run short.
    const broker = await startBrook({ groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 500 });
    cleanup.add('stop broker', () => broker.stop());
    const topic = `kip848-${runner}`;
    const group = `kip848-group-${runner}`;
    await createTopicWithKafkaJs(broker.bootstrap, topic, PARTITIONS);
    const kafka = kafkaJs(broker.bootstrap);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    cleanup.add('producer disconnect', () => producer.disconnect());
    const send = (from: number, n: number) => producer.send({
      topic, acks: -1,
      messages: Array.from({ length: n }, (_, i) => ({ partition: (from + i) % PARTITIONS, key: `k${from + i}`, value: `v${from + i}` })),
    });

    const args = [broker.bootstrap, topic, group, 'consumer-uniform', String(RECORDS), String(MEMBER_TIMEOUT_MS)];
    const [cmd, cmdArgs] = runner === 'java'
      ? ['java', ['-cp', javaJar(), 'brook.conformance.GroupConsumer', ...args]] as const
      : ['python3', [join(projectRoot, 'test', 'support', 'python', 'group_consumer.py'), ...args]] as const;
    const first = runProcess(cmd, [...cmdArgs], { timeoutMs: MEMBER_TIMEOUT_MS + 20_000 });
    await send(0, 500);
    // The second member joins while the first consumes: a revocation and a transfer.
    await new Promise((r) => setTimeout(r, 3000));
    const second = runProcess(cmd, [...cmdArgs], { timeoutMs: MEMBER_TIMEOUT_MS + 20_000 });
    // The rest is produced once both hold partitions, so that a slow start (a loaded
    // machine) cannot let the first member read everything before the second is in.
    const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'kip848-check' });
    cleanup.add('raw connection', () => conn.close());
    for (const until = Date.now() + 30_000; ;) {
      const g = (await conn.request('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false })).groups[0];
      const holding = (g?.members ?? []).filter((m) => m.assignment.topicPartitions.some((t) => t.partitions.length > 0));
      if (holding.length === 2) break;
      assert.ok(Date.now() < until, `${runner}: the second member got no partitions: ${JSON.stringify(g)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (let from = 500; from < RECORDS; from += 100) {
      await new Promise((r) => setTimeout(r, 200));
      await send(from, 100);
    }

    const summaries = (await Promise.all([first, second])).map((r, i): MemberSummary => {
      const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
      assert.ok(r.code === 0 && line !== undefined, `${runner} member ${i} exited ${r.code}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr.slice(-3000)}`);
      return JSON.parse(line) as MemberSummary;
    });
    for (const [i, s] of summaries.entries()) {
      assert.deepEqual(s.errors, [], `${runner} member ${i}: no errors (commits included)`);
      assert.equal(s.timedOut, false, `${runner} member ${i} saw the committed offsets reach the end offsets`);
      assert.ok(s.events.some((e) => e.type === 'assigned' && e.partitions.length > 0), `${runner} member ${i} was assigned partitions`);
    }

    const ends = await topicOffsets(broker.bootstrap, topic);
    assert.equal(Object.values(ends).reduce((n, e) => n + e.high, 0), RECORDS);
    for (let p = 0; p < PARTITIONS; p++) {
      const offsets = summaries.flatMap((s) => s.records.filter(([rp]) => rp === p).map(([, o]) => o)).sort((a, b) => a - b);
      assert.deepEqual(offsets, Array.from({ length: ends[p]!.high }, (_, o) => o), `partition ${p}: every offset consumed once across the group`);
    }
    const owned = summaries.map((s) => ownershipIntervals(s.events));
    for (let p = 0; p < PARTITIONS; p++) {
      const all = owned.flatMap((m, i) => (m.get(p) ?? []).map(([from, to]) => ({ member: i, from, to }))).sort((a, b) => a.from - b.from);
      for (let k = 1; k < all.length; k++) assert.ok(all[k - 1]!.to <= all[k]!.from, `partition ${p} owned by two members at once: ${JSON.stringify(all)}`);
    }

    const admin = kafka.admin();
    await admin.connect();
    cleanup.add('admin disconnect', () => admin.disconnect());
    const [fetched] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    assert.deepEqual(
      fetched!.partitions.map((p) => [p.partition, Number(p.offset)]).sort((a, b) => a[0]! - b[0]!),
      Array.from({ length: PARTITIONS }, (_, p) => [p, ends[p]!.high]),
      'final committed offsets = end offsets',
    );
    const described = await conn.request('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false });
    assert.equal(described.groups[0]!.groupState, 'Empty', 'both members left');
    assert.ok(described.groups[0]!.groupEpoch >= 3, 'joins and leaves bumped the group epoch');
    process.stderr.write(`consumer-protocol-clients: ${runner}: records per member ${summaries.map((s) => s.records.length).join('/')}, ms ${summaries.map((s) => s.ms).join('/')}, group epoch ${described.groups[0]!.groupEpoch}\n`);
  } finally {
    await cleanup.run();
  }
}

test('Java KafkaConsumer x2 with group.protocol=consumer: every record once, one owner per partition, commits at the end offsets', { timeout: 90_000 }, async () => {
  assert.ok(javaAvailable(), 'java 17+ and Maven are required (test/support/java)');
  await runGroup('java');
});

test('librdkafka 2.16 (confluent-kafka) x2 with group.protocol=consumer: every record once, one owner per partition, commits at the end offsets', { timeout: 90_000 }, async (t) => {
  t.diagnostic(`librdkafka ${assertLibrdkafka216().librdkafka}`);
  await runGroup('python');
});

test('Brook\'s broker, consumer protocol: 2 Brook consumers and Kafka\'s Java KafkaConsumer (group.protocol=consumer) in one group, a Brook member leaving mid-way; every record once, one owner per partition', { timeout: 120_000 }, async () => {
  assert.ok(javaAvailable(), 'java 17+ and Maven are required (test/support/java)');
  const broker = await startBrook({ groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 100, groupConsumerSessionTimeoutMs: 6000, groupConsumerMinSessionTimeoutMs: 2000 });
  try {
    const perMember = await mixedGroupWithJava(broker.bootstrap, javaJar(), 'cp-mixed', 'cp-mixed-group');
    const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'kip848-check' });
    try {
      const described = await conn.request('ConsumerGroupDescribe', 0, { groupIds: ['cp-mixed-group'], includeAuthorizedOperations: false });
      assert.equal(described.groups[0]!.groupState, 'Empty', 'every member left');
    } finally {
      conn.close();
    }
    process.stderr.write(`consumer-protocol-clients: mixed Brook/Java: records per member ${perMember.join('/')}\n`);
  } finally {
    await broker.stop();
  }
});
