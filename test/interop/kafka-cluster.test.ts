/**
 * The 3-node Apache Kafka 4.4 cluster harness (test/support/kafka/kafka-cluster.ts) works:
 * three combined broker+controller JVMs form one cluster; a 6-partition RF 3 topic has
 * leaders on all three; Brook's Cluster (src/client/cluster.ts) sees the same brokers, leaders
 * and group coordinator as the harness; killing the coordinator's node moves the coordinator
 * and the leaders (Kafka elects new ones), restarting it brings it back (preferred leaders
 * return); kcat produces and consumes through it before, during and after the outage.
 * Needs: java 17+, Maven (first run downloads the jars), kcat.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startKafkaCluster, type KafkaCluster } from '../support/kafka/kafka-cluster.js';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { kcatAvailable, kcatConsume, kcatProduce } from '../support/clients/kcat.js';
import { until } from '../support/clients/run.js';
import { Cluster } from '../../src/client/cluster.js';

const TOPIC = 'cluster-topic';
const GROUP = 'cluster-group';
const PARTITIONS = [0, 1, 2, 3, 4, 5];

async function leaders(kafka: KafkaCluster): Promise<number[]> {
  const topic = (await kafka.metadata([TOPIC])).topics[0]!;
  return topic.partitions.map((p) => p.leaderId);
}

test('Kafka 4.4 three-node cluster: leaders, coordinator, failover, restart, kcat', { timeout: 240_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  assert.ok(kcatAvailable(), 'kcat is needed for the interop suite');
  const began = performance.now();
  // Preferred leaders come back within a second or two of the restarted node catching up.
  const kafka = await startKafkaCluster({
    brokers: 3,
    config: { 'leader.imbalance.check.interval.seconds': '1', 'leader.imbalance.per.broker.percentage': '0' },
  });
  const cluster = new Cluster({ bootstrapServers: kafka.bootstrap, clientId: 'brook-cluster-test', requestTimeoutMs: 10_000 });
  const fail = (what: string): string => `${what}\n${kafka.nodes.map((n) => `--- node ${n.nodeId}:\n${kafka.logTail(n.nodeId, 15)}`).join('\n')}`;
  try {
    const rss = kafka.nodes.map((n) => Math.round((kafka.rssBytes(n.nodeId) ?? 0) / 1024 / 1024));
    t.diagnostic(`cluster ${kafka.bootstrap}: format ${kafka.formatMs} ms, start-up ${kafka.startupMs} ms, total ${Math.round(performance.now() - began)} ms, RSS ${rss.join('/')} MiB`);

    // Brook's Cluster sees the three brokers.
    await cluster.refreshMetadata([]);
    assert.deepEqual(
      cluster.knownBrokers().map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })).sort((a, b) => a.nodeId - b.nodeId),
      kafka.nodes.map((n) => ({ nodeId: n.nodeId, host: n.host, port: n.port })),
    );

    // A 6-partition RF 3 topic: leaders on all three nodes, the same for Brook's client.
    await kafka.createTopic(TOPIC, 6, 3);
    const before = await leaders(kafka);
    assert.deepEqual(before, [1, 2, 3, 1, 2, 3], fail('leaders after createTopic'));
    const brookLeaders = [];
    for (const p of PARTITIONS) brookLeaders.push(await cluster.leaderFor(TOPIC, p));
    assert.deepEqual(brookLeaders, before);
    assert.equal(await kafka.leaderOf(TOPIC, 4), 2);

    // The group coordinator, as the harness and Brook's client find it.
    const coordinator = await kafka.coordinatorOf(GROUP);
    assert.ok([1, 2, 3].includes(coordinator), `coordinator ${coordinator}`);
    assert.equal((await cluster.findCoordinator(GROUP)).nodeId, coordinator);

    const first = Array.from({ length: 60 }, (_, i) => `a${i}:first-${i}`);
    await kcatProduce(kafka.bootstrap, TOPIC, first);
    assert.equal((await kcatConsume(kafka.bootstrap, TOPIC)).length, 60);

    // Kill the coordinator's node: Kafka fences it and elects new leaders and a new coordinator.
    const killedAt = performance.now();
    await kafka.stopBroker(coordinator);
    assert.deepEqual(kafka.running(), [1, 2, 3].filter((id) => id !== coordinator));
    const moved = await until('new leaders', 60_000, async () => {
      const now = await leaders(kafka);
      return now.every((l) => l >= 0 && l !== coordinator) ? now : undefined;
    }, 100);
    const newCoordinator = await until('a new coordinator', 60_000, async () => {
      const c = await kafka.coordinatorOf(GROUP, 2_000);
      return c !== coordinator ? c : undefined;
    }, 100);
    t.diagnostic(`killed node ${coordinator}: leaders ${before.join(',')} -> ${moved.join(',')}, coordinator -> ${newCoordinator} after ${Math.round(performance.now() - killedAt)} ms`);
    await until('Brook sees the new coordinator', 30_000, async () => ((await cluster.findCoordinator(GROUP)).nodeId === newCoordinator ? true : undefined), 200);

    // Still writable and readable with one node down (RF 3, min ISR 1).
    const second = Array.from({ length: 30 }, (_, i) => `b${i}:second-${i}`);
    const survivors = kafka.nodes.filter((n) => n.nodeId !== coordinator).map((n) => `${n.host}:${n.port}`).join(',');
    await kcatProduce(survivors, TOPIC, second);
    assert.equal((await kcatConsume(survivors, TOPIC)).length, 90);

    // Restart it on the same data: listed again, back in every ISR, its preferred leaderships back.
    const restartAt = performance.now();
    await kafka.startBroker(coordinator);
    const restartMs = Math.round(performance.now() - restartAt);
    await until('the restarted node back as preferred leader', 60_000, async () => {
      const md = await kafka.metadata([TOPIC]);
      const partitions = md.topics[0]!.partitions;
      return partitions.every((p) => p.isr.length === 3) && partitions.map((p) => p.leaderId).join() === before.join() ? true : undefined;
    }, 200);
    t.diagnostic(`restarted node ${coordinator} in ${restartMs} ms; leaders ${before.join(',')} again after ${Math.round(performance.now() - restartAt)} ms`);
    assert.equal(kafka.running().length, 3);

    const records = await kcatConsume(kafka.bootstrap, TOPIC);
    assert.deepEqual(records.map((r) => `${r.key}:${r.value}`).sort(), [...first, ...second].sort());
  } finally {
    cluster.close();
    const closeAt = performance.now();
    await kafka.close();
    t.diagnostic(`closed in ${Math.round(performance.now() - closeAt)} ms; whole test ${Math.round(performance.now() - began)} ms`);
  }
});
