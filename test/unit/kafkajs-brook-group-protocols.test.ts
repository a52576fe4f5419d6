/**
 * Beyond KafkaJS: brook/kafkajs consumers with Brook's own client-side assignors
 * (PartitionAssigners.cooperativeSticky, speaking Java's `cooperative-sticky` protocol) and with
 * Kafka's consumer group protocol (groupProtocol 'consumer', KIP-848). What the group is, is
 * read from the broker with KafkaJS 2.2.4's admin client (DescribeGroups: the chosen protocol
 * and each member's assignment bytes) and Brook's admin client (ConsumerGroupDescribe); every
 * record produced is handled once across the members, and the committed offsets are the end
 * offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, PartitionAssigners, KafkaJSNonRetriableError } from '../../src/kafkajs/index.js';
import { Admin } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkajsGroup, PARTITIONS, until } from '../support/kafkajs-group.js';

const T = { timeout: 120_000 };

async function onBrook(t: { after(fn: () => Promise<void>): void }): Promise<{ cleanup: Cleanup; bootstrap: string }> {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  return { cleanup, bootstrap: broker.bootstrap };
}

test('PartitionAssigners.cooperativeSticky: the group runs Java\'s cooperative-sticky protocol and splits the partitions', T, async (t) => {
  const { cleanup, bootstrap } = await onBrook(t);
  const { admin, done } = await kafkajsGroup(cleanup, { bootstrap, topic: 'coop', groupId: 'coop-group', config: { partitionAssigners: [PartitionAssigners.cooperativeSticky] } });
  let assignments: number[][] = [];
  await until(async () => {
    const { groups: [g] } = await admin.describeGroups(['coop-group']);
    if (!g || g.state !== 'Stable' || g.members.length !== 2) return false;
    assert.equal(g.protocolType, 'consumer');
    assert.equal(g.protocol, 'cooperative-sticky');
    assignments = g.members.map((m) => real.AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment['coop'] ?? []);
    return assignments.flat().length === PARTITIONS;
  }, 60_000, 'a stable cooperative-sticky group of two');
  assert.deepEqual(assignments.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(assignments.map((a) => a.length), [3, 3]);
  await done();
});

test("groupProtocol 'consumer': the broker assigns (KIP-848) and the members consume every record once", T, async (t) => {
  const { cleanup, bootstrap } = await onBrook(t);
  const { done } = await kafkajsGroup(cleanup, { bootstrap, topic: 'kip848', groupId: 'kip848-group', config: { groupProtocol: 'consumer', groupRemoteAssignor: 'range' } });
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  t.after(() => admin.close());
  await until(async () => {
    const g = await admin.describeGroup('kip848-group');
    if (g.type !== 'consumer' || g.state !== 'Stable' || g.members.length !== 2) return false;
    assert.equal(g.protocol, 'range');
    const owned = g.members.flatMap((m) => m.assignment.map((tp) => tp.partition)).sort();
    return owned.length === PARTITIONS && new Set(owned).size === PARTITIONS;
  }, 60_000, 'a stable consumer group of two, each partition owned once');
  await done();
});

test('the options that do not go together are refused when the consumer is made', T, () => {
  const kafka = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
  assert.throws(() => kafka.consumer({ groupId: 'g', groupProtocol: 'consumer', partitionAssigners: [PartitionAssigners.range] }), KafkaJSNonRetriableError);
  assert.throws(() => kafka.consumer({ groupId: 'g', groupRemoteAssignor: 'uniform' }), KafkaJSNonRetriableError);
  assert.throws(() => kafka.consumer({ groupId: 'g', groupProtocol: 'streams' as never }), KafkaJSNonRetriableError);
  assert.throws(() => (PartitionAssigners.range as unknown as () => unknown)(), /runs only inside brook\/kafkajs consumers/);
});
