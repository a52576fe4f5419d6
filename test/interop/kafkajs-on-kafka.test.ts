/**
 * brook/kafkajs's groups on Apache Kafka 4.4, the broker users move to: a group mixing KafkaJS
 * 2.2.4 and brook/kafkajs members with KafkaJS's RoundRobinAssigner (a rolling migration's
 * middle), a group of brook/kafkajs members with Java's cooperative-sticky protocol, and one
 * with Kafka's consumer group protocol (KIP-848, groupProtocol 'consumer'). Kafka says what the
 * group is (DescribeGroups through KafkaJS 2.2.4's admin client; ConsumerGroupDescribe through
 * Brook's); every record is handled once and the committed offsets reach the end offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { PartitionAssigners } from '../../src/kafkajs/index.js';
import { Admin } from '../../src/index.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaAvailable, startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { kafkajsGroup, PARTITIONS, until } from '../support/kafkajs-group.js';

const T = { timeout: 240_000 };

let kafka: KafkaBroker | undefined;
async function broker(): Promise<KafkaBroker> {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  kafka ??= await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0', 'offsets.topic.num.partitions': '1', 'num.partitions': '1' } });
  return kafka;
}
test.after(async () => { await kafka?.stop(); });

/** A stable classic group of `size` members: its protocol and each member's partitions of `topic`. */
async function stableClassicGroup(admin: real.Admin, groupId: string, topic: string, size: number): Promise<{ protocol: string; partitions: number[][] }> {
  let seen = { protocol: '', partitions: [] as number[][] };
  await until(async () => {
    const { groups: [g] } = await admin.describeGroups([groupId]);
    if (!g || g.state !== 'Stable' || g.members.length !== size) return false;
    seen = { protocol: g.protocol, partitions: g.members.map((m) => real.AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[topic] ?? []) };
    return seen.partitions.flat().length === PARTITIONS;
  }, 90_000, `a stable group of ${size}`);
  return seen;
}

test('KafkaJS 2.2.4 and brook/kafkajs members share a RoundRobinAssigner group on Kafka 4.4', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const { bootstrap } = await broker();
  const { admin, done } = await kafkajsGroup(cleanup, { bootstrap, topic: 'mixed', groupId: 'mixed-group', config: {}, members: ['kafkajs', 'brook'] });
  const g = await stableClassicGroup(admin, 'mixed-group', 'mixed', 2);
  assert.equal(g.protocol, 'RoundRobinAssigner');
  assert.deepEqual(g.partitions.flat().sort(), [0, 1, 2, 3, 4, 5]);
  await done();
});

test("brook/kafkajs with PartitionAssigners.cooperativeSticky on Kafka 4.4: Java's cooperative-sticky protocol", T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const { bootstrap } = await broker();
  const { admin, done } = await kafkajsGroup(cleanup, { bootstrap, topic: 'coop', groupId: 'coop-group', config: { partitionAssigners: [PartitionAssigners.cooperativeSticky] } });
  const g = await stableClassicGroup(admin, 'coop-group', 'coop', 2);
  assert.equal(g.protocol, 'cooperative-sticky');
  assert.deepEqual(g.partitions.map((p) => p.length), [3, 3]);
  await done();
});

test("brook/kafkajs with groupProtocol 'consumer' on Kafka 4.4: a KIP-848 group the broker assigns", T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const { bootstrap } = await broker();
  const { done } = await kafkajsGroup(cleanup, { bootstrap, topic: 'kip848', groupId: 'kip848-group', config: { groupProtocol: 'consumer' } });
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  cleanup.add('brook admin', () => admin.close());
  await until(async () => {
    const g = await admin.describeGroup('kip848-group');
    if (g.type !== 'consumer' || g.state !== 'Stable' || g.members.length !== 2) return false;
    assert.equal(g.protocol, 'uniform');
    const owned = g.members.flatMap((m) => m.assignment.map((tp) => tp.partition)).sort();
    return owned.length === PARTITIONS && new Set(owned).size === PARTITIONS;
  }, 90_000, 'a stable consumer group of two, each partition owned once');
  await done();
});
