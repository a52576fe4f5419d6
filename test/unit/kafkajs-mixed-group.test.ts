/**
 * One consumer group of KafkaJS 2.2.4 consumers (the real package) and brook/kafkajs
 * consumers, both with their default assigner (KafkaJS's RoundRobinAssigner): the group forms
 * (the protocols agree: no INCONSISTENT_GROUP_PROTOCOL, no crash on either side) whichever
 * kind leads, and a rolling restart that replaces every KafkaJS member with a brook/kafkajs
 * one loses no record and consumes none twice, while records keep arriving; at the end the
 * group's committed offsets are the log end offsets. The KafkaJS members' assignment bytes
 * decode with KafkaJS's own decoder. A KafkaJS leader sends a member it gives no partition an
 * empty assignment; a brook/kafkajs member takes that as none and takes over later.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, type KafkaJSConsumer } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 120_000 };
const TOPIC = 'mixed';
const PARTITIONS = 6;
const GROUP = 'mixed-group';

function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

test('KafkaJS and brook/kafkajs members share a group through a rolling restart: every record once, offsets committed', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], clientId: 'kafkajs', logLevel: real.logLevel.NOTHING });
  const ours = new Kafka({ brokers: [broker.bootstrap], clientId: 'brook', logLevel: logLevel.NOTHING });
  const admin = theirs.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
  const producer = theirs.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());
  let sent = 0;
  const produce = async (n: number): Promise<void> => {
    const messages = Array.from({ length: n }, (_, i) => ({ value: `r${sent + i}`, partition: (sent + i) % PARTITIONS }));
    sent += n;
    await producer.send({ topic: TOPIC, messages });
  };

  const counts = new Map<string, number>();
  const crashes: string[] = [];
  const handle = (who: string) => async ({ message }: { message: { value: Buffer | null } }): Promise<void> => {
    const v = String(message.value);
    counts.set(v, (counts.get(v) ?? 0) + 1);
    void who;
  };
  const joins: { who: string; protocol: string; leader: boolean }[] = [];

  const startTheirs = async (name: string): Promise<real.Consumer> => {
    const c = theirs.consumer({ groupId: GROUP, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
    c.on(c.events.CRASH, (e) => crashes.push(`${name}: ${e.payload.error.message}`));
    c.on(c.events.GROUP_JOIN, (e) => joins.push({ who: name, protocol: e.payload.groupProtocol, leader: e.payload.isLeader }));
    await c.connect();
    await c.subscribe({ topics: [TOPIC], fromBeginning: true });
    await c.run({ eachMessage: handle(name) });
    return c;
  };
  const startOurs = async (name: string): Promise<KafkaJSConsumer> => {
    const c = ours.consumer({ groupId: GROUP, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
    cleanup.add(name, () => c.disconnect());
    c.on(c.events.CRASH, (e) => crashes.push(`${name}: ${(e.payload as { error: Error }).error.message}`));
    c.on(c.events.GROUP_JOIN, (e) => joins.push({ who: name, protocol: (e.payload as { groupProtocol: string }).groupProtocol, leader: (e.payload as { isLeader: boolean }).isLeader }));
    await c.connect();
    await c.subscribe({ topics: [TOPIC], fromBeginning: true });
    await c.run({ eachMessage: handle(name) });
    return c;
  };
  /** The group is Stable with these many members, each holding partitions, and KafkaJS's decoder reads every assignment. */
  const stableWith = async (members: number): Promise<void> => {
    await until(async () => {
      const { groups: [g] } = await admin.describeGroups([GROUP]);
      if (!g || g.state !== 'Stable' || g.members.length !== members || g.protocol !== 'RoundRobinAssigner') return false;
      const owned = g.members.flatMap((m) => Object.values(real.AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}).flat());
      return owned.length === PARTITIONS && new Set(owned).size === PARTITIONS;
    }, 60_000, `a stable group of ${members}`);
  };
  const allConsumed = (): Promise<true> => until(() => counts.size === sent, 60_000, `all ${sent} records`);

  await produce(60);
  const k1 = await startTheirs('kafkajs-1');
  const k2 = await startTheirs('kafkajs-2');
  await stableWith(2);
  await allConsumed();
  const b1 = await startOurs('brook-1');
  await stableWith(3);
  await produce(60);
  await allConsumed();

  // Rolling restart: each KafkaJS member is replaced by a brook/kafkajs one.
  await k1.disconnect();
  const b2 = await startOurs('brook-2');
  await produce(30);
  await stableWith(3);
  await allConsumed();
  await k2.disconnect();
  await produce(30);
  const b3 = await startOurs('brook-3');
  await stableWith(3);
  await produce(30);
  await allConsumed();

  assert.deepEqual(crashes, []);
  const twice = [...counts].filter(([, n]) => n !== 1);
  assert.deepEqual(twice, [], 'no record consumed twice');
  assert.equal(counts.size, sent);
  assert.ok(joins.every((j) => j.protocol === 'RoundRobinAssigner'), JSON.stringify(joins));
  assert.ok(joins.some((j) => j.who.startsWith('kafkajs') && j.leader), 'a KafkaJS member led the group');
  assert.ok(joins.some((j) => j.who.startsWith('brook') && j.leader), 'a brook/kafkajs member led the group');

  await until(async () => {
    const offsets = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    const ends = await admin.fetchTopicOffsets(TOPIC);
    return offsets[0]!.partitions.every((p) => p.offset === ends.find((e) => e.partition === p.partition)!.high);
  }, 30_000, 'committed offsets at the log end');
  for (const c of [b1, b2, b3]) await c.disconnect();
});

test('a KafkaJS leader gives a brook/kafkajs member nothing (an empty assignment); it takes over when KafkaJS leaves', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const admin = theirs.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'single', numPartitions: 1 }] });
  const producer = theirs.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());

  const kjs = theirs.consumer({ groupId: 'single-group', heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  let kjsLeader = false;
  kjs.on(kjs.events.GROUP_JOIN, (e) => (kjsLeader = e.payload.isLeader));
  await kjs.connect();
  await kjs.subscribe({ topics: ['single'], fromBeginning: true });
  await kjs.run({ eachMessage: async () => undefined });
  await until(() => kjsLeader, 20_000, 'KafkaJS leads');

  // Member ids start with the client id: 'zz-...' sorts after 'kafkajs-...', so KafkaJS's deal gives the one partition to its own member.
  const ours = new Kafka({ brokers: [broker.bootstrap], clientId: 'zz', logLevel: logLevel.NOTHING }).consumer({ groupId: 'single-group', heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  cleanup.add('ours', () => ours.disconnect());
  const joins: { memberAssignment: Record<string, number[]>; isLeader: boolean }[] = [];
  const crashes: unknown[] = [];
  ours.on(ours.events.GROUP_JOIN, (e) => joins.push(e.payload as never));
  ours.on(ours.events.CRASH, (e) => crashes.push(e.payload));
  const seen: string[] = [];
  await ours.connect();
  await ours.subscribe({ topics: ['single'], fromBeginning: true });
  await ours.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
  await until(() => joins.length > 0, 20_000, 'brook/kafkajs joined');
  assert.deepEqual(joins[0], { ...joins[0], memberAssignment: {}, isLeader: false });
  const { groups: [g] } = await admin.describeGroups(['single-group']);
  assert.equal(g!.members.length, 2);
  assert.ok(g!.members.some((m) => m.memberAssignment.length === 0), 'KafkaJS sent one member an empty assignment');

  await kjs.disconnect();
  await until(() => joins.some((j) => j.isLeader && j.memberAssignment['single']?.[0] === 0), 20_000, 'brook/kafkajs takes the partition');
  await producer.send({ topic: 'single', messages: [{ value: 'after' }] });
  await until(() => seen.includes('after'), 20_000, 'the record');
  assert.deepEqual(crashes, []);
});
