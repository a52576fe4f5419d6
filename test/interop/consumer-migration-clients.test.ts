/**
 * Online migration end to end with clients Brook did not write: a group of three consumers
 * with `group.protocol=classic` is rolled, one process at a time, to `group.protocol=consumer`
 * while records are produced: each classic member is stopped and a consumer-protocol member
 * started in its place. The first of those converts the classic group to a consumer group (the
 * remaining classic members keep consuming inside it, rejoin through JoinGroup, give partitions
 * up and take partitions over); the last classic member leaving leaves a consumer group.
 *
 * The clients: Apache Kafka's Java KafkaConsumer (kafka-clients 4.4.0,
 * `brook.conformance.GroupConsumer`, classic with cooperative-sticky) and librdkafka
 * (librdkafka 2.16 through confluent-kafka 2.16.x, asserted; `test/support/python/group_consumer.py`, classic with range). Each
 * roll runs against Apache Kafka 4.4.0 too (the oracle: what its coordinator does with the
 * same clients is the expected behaviour) and is checked the same way there.
 *
 * Checked: every record consumed exactly once across the six processes, one owner at a time per
 * partition (ownership intervals from the rebalance callbacks, test/support/ownership.ts), no
 * commit failed, the committed offsets are the end offsets, a classic member took a partition
 * over inside the consumer group, and the group ends a consumer group, Empty.
 *
 * librdkafka's cooperative-sticky cannot take part: its assignments carry user data, which a
 * consumer group would lose, so Kafka 4.4.0 refuses to convert the group (GROUP_ID_NOT_FOUND,
 * fatal for librdkafka's consumer-protocol member) and the classic members go on as before.
 * The last test checks that Brook does the same as Kafka there.
 *
 * Needs: java 17+ and Maven (test/support/java), python3 with confluent-kafka 2.16.x.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Partitioners, type Producer } from 'kafkajs';
import { projectRoot, startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs, createTopicWithKafkaJs, topicOffsets } from '../support/clients/kafkajs.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { runProcess } from '../support/clients/run.js';
import { assertLibrdkafka216 } from '../support/clients/confluent-kafka.js';
import { ownershipIntervals } from '../support/ownership.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { decodeAssignment } from '../../src/protocol/consumer-protocol.js';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';

const PARTITIONS = 6;
const RECORDS = 6_000;
/** Produced after the roll: the consumer-protocol members read on their own at the end. */
const TAIL = 1_000;
const MEMBER_TIMEOUT_MS = 60_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Runner = 'java' | 'python';
interface MemberEvent { t: number; type: 'assigned' | 'revoked' | 'lost' | 'closing' | 'closed'; gen: number; partitions: number[]; owned: number[] }
interface MemberSummary {
  clientId: string; assignor: string; timedOut: boolean; stopped: boolean; ms: number; events: MemberEvent[]; records: [number, number][]; errors: string[];
  /** Commits retried later (GroupConsumer.java: a stale member epoch outside a revocation; group_consumer.py: REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION). */
  warnings?: string[];
}
interface Target { readonly name: string; readonly host: string; readonly port: number; readonly bootstrap: string }
/** `assigned`: how many partitions the members' current assignments hold together. */
interface GroupView { type: string; state: string; members: number; assigned: number }

let kafka: Promise<KafkaBroker> | null = null;
/** Apache Kafka 4.4.0 with the group timings of the Brook brokers below. */
async function onKafka(): Promise<Target> {
  kafka ??= startKafka({
    config: {
      'group.initial.rebalance.delay.ms': '0', 'group.consumer.migration.policy': 'bidirectional',
      'group.consumer.heartbeat.interval.ms': '500', 'group.consumer.min.heartbeat.interval.ms': '500',
    },
  });
  const k = await kafka;
  return { name: 'Kafka 4.4.0', host: k.host, port: k.port, bootstrap: k.bootstrap };
}
after(async () => { if (kafka) await (await kafka).stop(); });

async function onBrook<T>(body: (target: Target) => Promise<T>): Promise<T> {
  const broker = await startBrook({ groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 500, groupInitialRebalanceDelayMs: 0 });
  try {
    return await body({ name: 'Brook', host: broker.host, port: broker.port, bootstrap: broker.bootstrap });
  } finally {
    await broker.stop();
  }
}

/** A topic, a producer, a raw connection for group queries, and member processes with stop files, all cleaned up by `cleanup`. */
async function setUp(target: Target, runner: Runner, label: string, cleanup: Cleanup) {
  const topic = `migration-${label}`;
  const group = `migration-group-${label}`;
  await createTopicWithKafkaJs(target.bootstrap, topic, PARTITIONS);
  const client = kafkaJs(target.bootstrap);
  // Idempotent: a retried send (a slow broker on a busy machine) must not write records twice.
  const producer: Producer = client.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  const conn = await RawConnection.connect(target.host, target.port, { clientId: 'migration-check' });
  cleanup.add('raw connection', () => conn.close());
  const stops = tempDir('brook-migration-');
  cleanup.add('stop files', () => stops.remove());
  const running = new Map<string, Promise<unknown>>();
  const stop = (name: string): void => writeFileSync(join(stops.path, name), '');
  // A failed test stops its members first (each checks its stop file every 250 ms).
  cleanup.add('stop members', async () => {
    for (const name of running.keys()) stop(name);
    await Promise.all([...running.values()].map((p) => p.catch(() => undefined)));
  });

  const start = (name: string, assignor: string): Promise<MemberSummary> => {
    const args = [target.bootstrap, topic, group, assignor, String(RECORDS), String(MEMBER_TIMEOUT_MS), join(stops.path, name)];
    const [cmd, cmdArgs] = runner === 'java'
      ? ['java', ['-cp', javaJar(), 'brook.conformance.GroupConsumer', ...args]] as const
      : ['python3', [join(projectRoot, 'test', 'support', 'python', 'group_consumer.py'), ...args]] as const;
    const run = runProcess(cmd, cmdArgs, { timeoutMs: MEMBER_TIMEOUT_MS + 20_000 }).then((r) => {
      const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
      assert.ok(r.code === 0 && line !== undefined, `${name} exited ${r.code}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr.slice(-3000)}`);
      return JSON.parse(line) as MemberSummary;
    });
    running.set(name, run);
    return run;
  };

  /** The group's type and state and how many members it has, as ListGroups and the describe of that type say. */
  const groupView = async (): Promise<GroupView | undefined> => {
    const list = await conn.request('ListGroups', 5, { statesFilter: [], typesFilter: [] });
    const type = list.groups.find((g) => g.groupId === group)?.groupType;
    if (type === 'classic') {
      const d = (await conn.request('DescribeGroups', 5, { groups: [group], includeAuthorizedOperations: false })).groups[0]!;
      const assigned = d.members.reduce((n, m) => n + (m.memberAssignment.length === 0 ? 0
        : decodeAssignment(m.memberAssignment).assignment.assignedPartitions.reduce((k, t) => k + t.partitions.length, 0)), 0);
      return { type, state: d.groupState, members: d.members.length, assigned };
    }
    if (type === 'consumer') {
      const d = (await conn.request('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false })).groups[0]!;
      const assigned = d.members.reduce((n, m) => n + m.assignment.topicPartitions.reduce((k, t) => k + t.partitions.length, 0), 0);
      return { type, state: d.groupState, members: d.members.length, assigned };
    }
    return undefined;
  };
  /**
   * Waits until the group is of `type`, Stable with `members` members and every partition
   * assigned. Stable alone is not enough for a classic group with cooperative-sticky: after the
   * first rebalance of a join the partitions to move are only revoked (the group is Stable
   * with some of them unassigned), a second rebalance assigns them. A member stopped in
   * between, or during that second rebalance, may close with its partitions lost (Java's
   * client, a rebalance in progress) and their last records read again by the next owner.
   */
  const settled = async (type: string, members: number, what: string): Promise<void> => {
    for (const until = Date.now() + 45_000; ;) {
      const view = await groupView();
      if (view?.type === type && view.state === 'Stable' && view.members === members && view.assigned === PARTITIONS) return;
      assert.ok(Date.now() < until, `${target.name}, ${what}: the group did not settle as a Stable ${type} group of ${members}: ${JSON.stringify(view)}`);
      await sleep(100);
    }
  };

  let produced = 0;
  const produce = async (n: number): Promise<void> => {
    await producer.send({
      topic, acks: -1,
      messages: Array.from({ length: n }, (_, i) => ({ partition: (produced + i) % PARTITIONS, key: `k${produced + i}`, value: `v${produced + i}` })),
    });
    produced += n;
  };
  /**
   * A steady stream of records (25 every 100 ms, RECORDS - TAIL at most) until the returned
   * function is called; that one then produces the rest, up to RECORDS.
   */
  const stream = (): (() => Promise<number>) => {
    let on = true;
    const loop = (async () => {
      while (on) {
        if (produced < RECORDS - TAIL) await produce(Math.min(25, RECORDS - TAIL - produced));
        await sleep(100);
      }
    })();
    cleanup.add('stop producing', async () => { on = false; await loop; });
    return async () => {
      on = false;
      await loop;
      const during = produced;
      await produce(RECORDS - produced);
      return during;
    };
  };

  /** Every record read once across `summaries`, one owner at a time per partition, the group's commits at the end offsets. */
  const checkConsumed = async (summaries: readonly MemberSummary[]): Promise<void> => {
    const ends = await topicOffsets(target.bootstrap, topic);
    assert.equal(Object.values(ends).reduce((n, e) => n + e.high, 0), RECORDS);
    for (let p = 0; p < PARTITIONS; p++) {
      const offsets = summaries.flatMap((s) => s.records.filter(([rp]) => rp === p).map(([, o]) => o)).sort((a, b) => a - b);
      assert.deepEqual(offsets, Array.from({ length: ends[p]!.high }, (_, o) => o), `${target.name}, partition ${p}: every offset consumed once across the group`);
    }
    const owned = summaries.map((s) => ownershipIntervals(s.events));
    for (let p = 0; p < PARTITIONS; p++) {
      const all = owned.flatMap((m, i) => (m.get(p) ?? []).map(([from, to]) => ({ member: i, from, to }))).sort((a, b) => a.from - b.from);
      for (let k = 1; k < all.length; k++) assert.ok(all[k - 1]!.to <= all[k]!.from, `${target.name}, partition ${p} owned by two members at once: ${JSON.stringify(all)}`);
    }
    const admin = client.admin();
    await admin.connect();
    try {
      const [fetched] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      assert.deepEqual(
        fetched!.partitions.map((p) => [p.partition, Number(p.offset)]).sort((a, b) => a[0]! - b[0]!),
        Array.from({ length: PARTITIONS }, (_, p) => [p, ends[p]!.high]),
        `${target.name}: final committed offsets = end offsets`,
      );
    } finally {
      await admin.disconnect();
    }
  };
  return { group, conn, start, stop, groupView, settled, stream, checkConsumed };
}

const dump = (label: string, summaries: readonly MemberSummary[]): void => {
  if (!process.env['DUMP']) return;
  for (const s of summaries) process.stderr.write(`DUMP ${label} ${s.assignor} ${JSON.stringify(s.events.map((e) => [e.t % 100000, e.type, e.gen, e.partitions]))} ${JSON.stringify(s.errors)} ${JSON.stringify(s.warnings ?? [])}\n`);
};

async function rollingMigration(target: Target, runner: Runner, classicAssignor: string, label: string): Promise<void> {
  const cleanup = new Cleanup();
  try {
    const { conn, group, start, stop, settled, stream, checkConsumed } = await setUp(target, runner, label, cleanup);
    const finish = stream();
    // Three classic members form the group.
    const classic = ['k1', 'k2', 'k3'].map((name) => start(name, classicAssignor));
    const modern: Promise<MemberSummary>[] = [];
    await settled('classic', 3, 'three classic members');
    // Rolling restart: each classic member makes way for a consumer-protocol one. With 6
    // partitions the uniform assignor makes the hand-overs predictable: k1 leaving leaves k2
    // and k3 3 each; c1 joining converts the group and gets 2 (1 from each, revoked through
    // a rejoin); k2 leaving gives one of its 2 to k3 (a classic member taking a partition
    // over inside the consumer group) and one to c1; and so on.
    let k2Stopped = 0;
    for (const [i, name] of ['k1', 'k2', 'k3'].entries()) {
      if (i === 1) k2Stopped = Date.now();
      stop(name);
      await settled(i === 0 ? 'classic' : 'consumer', 2, `${name} stopped`);
      await sleep(1000);
      modern.push(start(`c${i + 1}`, 'consumer-uniform'));
      await settled('consumer', 3, `c${i + 1} started`);
      await sleep(1000);
    }
    const during = await finish();
    assert.ok(during > RECORDS / 4, `records were produced while the group was rolled: ${during}`);

    const summaries = await Promise.all([...classic, ...modern]);
    dump(label, summaries);
    for (const s of summaries) {
      assert.deepEqual(s.errors, [], `${target.name}, ${s.assignor} ${s.clientId}: no errors (commits included)`);
      assert.equal(s.timedOut, false, `${target.name}, ${s.assignor} ${s.clientId}: stopped, or saw the committed offsets reach the end offsets`);
      assert.ok(s.events.some((e) => e.type === 'assigned' && e.partitions.length > 0), `${target.name}, ${s.assignor} ${s.clientId} was assigned partitions`);
    }
    assert.deepEqual(summaries.map((s) => s.stopped), [true, true, true, false, false, false]);
    // k3 was in the consumer group from the first conversion on: it took a partition over
    // there (from k2, stopped after the conversion), through JoinGroup and SyncGroup.
    assert.ok(summaries[2]!.events.some((e) => e.type === 'assigned' && e.partitions.length > 0 && e.t > k2Stopped), `${target.name}: a classic member gained partitions inside the consumer group`);
    await checkConsumed(summaries);
    const described = await conn.request('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false });
    assert.equal(described.groups[0]!.errorCode, 0, `${target.name}: a consumer group at the end`);
    assert.equal(described.groups[0]!.groupState, 'Empty', `${target.name}: every member left`);
    const retried = summaries.reduce((n, s) => n + (s.warnings?.length ?? 0), 0);
    process.stderr.write(`consumer-migration-clients ${target.name} ${label}: ${during} records produced during the roll; records per member ${summaries.map((s) => s.records.length).join('/')}, group epoch ${described.groups[0]!.groupEpoch}, ${retried} commits retried\n`);
  } finally {
    await cleanup.run();
  }
}

/**
 * Two librdkafka classic members with cooperative-sticky, then a consumer-protocol member:
 * what the broker makes of it (the group's view once the newcomer has failed or converted the
 * group, the newcomer's errors), and every record consumed once either way. k1 forms the group
 * alone first: from its second generation on librdkafka's cooperative-sticky assignments echo
 * the members' sticky user data (previous assignment and generation), which a consumer group
 * would lose. (Two members joining an empty group at once would both have empty user data
 * in the first generation, and the group could be converted then.)
 */
async function cooperativeStickyUpgrade(target: Target, label: string): Promise<{ view: GroupView | undefined; newcomerErrors: string[] }> {
  const cleanup = new Cleanup();
  try {
    const { groupView, start, stop, settled, stream, checkConsumed } = await setUp(target, 'python', label, cleanup);
    const finish = stream();
    const classic = [start('k1', 'cooperative-sticky')];
    await settled('classic', 1, 'k1 alone');
    classic.push(start('k2', 'cooperative-sticky'));
    await settled('classic', 2, 'k2 joined');
    await sleep(1000);
    const newcomer = start('c1', 'consumer-uniform');
    let newcomerDone = false;
    void newcomer.finally(() => { newcomerDone = true; }).catch(() => undefined);
    for (const until = Date.now() + 30_000; !newcomerDone && (await groupView())?.type !== 'consumer';) {
      assert.ok(Date.now() < until, `${target.name}: the newcomer neither failed nor converted the group`);
      await sleep(100);
    }
    const view = await groupView();
    await finish();
    await sleep(1000);
    stop('k1');
    const summaries = await Promise.all([...classic, newcomer]);
    dump(label, summaries);
    for (const s of summaries.slice(0, 2)) {
      assert.deepEqual(s.errors, [], `${target.name}, ${s.clientId}: no errors (commits included)`);
      assert.equal(s.timedOut, false, `${target.name}, ${s.clientId}: stopped, or saw the committed offsets reach the end offsets`);
    }
    await checkConsumed(summaries);
    return { view, newcomerErrors: summaries[2]!.errors };
  } finally {
    await cleanup.run();
  }
}


for (const broker of ['Kafka 4.4.0', 'Brook'] as const) {
  const on = broker === 'Brook' ? onBrook : async <T>(body: (target: Target) => Promise<T>): Promise<T> => body(await onKafka());
  test(`${broker}: Java consumers rolled from group.protocol=classic (cooperative-sticky) to consumer: every record once, one owner per partition, commits at the end offsets`, { timeout: 240_000 }, async () => {
    assert.ok(javaAvailable(), 'java 17+ and Maven are required (test/support/java)');
    await on((target) => rollingMigration(target, 'java', 'cooperative-sticky', 'java'));
  });

  test(`${broker}: librdkafka 2.16 consumers rolled from group.protocol=classic (range) to consumer: every record once, one owner per partition, commits at the end offsets`, { timeout: 240_000 }, async (t) => {
    t.diagnostic(`librdkafka ${assertLibrdkafka216().librdkafka}`);
    await on((target) => rollingMigration(target, 'python', 'range', 'python-range'));
  });
}

test('librdkafka 2.16 classic members with cooperative-sticky: Brook refuses to convert the group as Kafka 4.4.0 does (assignment user data), the newcomer fails, the classic members go on', { timeout: 240_000 }, async (t) => {
  t.diagnostic(`librdkafka ${assertLibrdkafka216().librdkafka}`);
  const kafkaResult = await cooperativeStickyUpgrade(await onKafka(), 'python-cooperative-sticky');
  const brookResult = await onBrook((target) => cooperativeStickyUpgrade(target, 'python-cooperative-sticky'));
  assert.deepEqual(kafkaResult.view, { type: 'classic', state: 'Stable', members: 2, assigned: PARTITIONS }, 'Kafka 4.4.0 kept the classic group');
  assert.ok(kafkaResult.newcomerErrors.some((e) => /_FATAL.*group id does not exist/i.test(e)), `Kafka 4.4.0: the newcomer got GROUP_ID_NOT_FOUND, fatal: ${JSON.stringify(kafkaResult.newcomerErrors)}`);
  assert.deepEqual(brookResult, kafkaResult, 'Brook as Kafka 4.4.0');
});
