/**
 * Brook's consumer group against multi-broker clusters we did not write, with failures:
 * three Brook consumers split a 6-partition topic while a Brook producer keeps producing,
 * and the cluster is disrupted under them.
 *  - librdkafka's mock cluster (3 brokers, old API versions only), range then
 *    cooperative-sticky: partition leader moves, coordinator moves, the coordinator's broker
 *    down and up, injected errors and dropped connections on Heartbeat / OffsetCommit / Fetch.
 *  - Apache Kafka 4.4.0, 3-node KRaft (started once): SIGKILL of the group coordinator's
 *    broker then restart; SIGKILL of a broker leading partitions then restart.
 * Each run checks (test/support/group-failover.ts): every acked record consumed at least
 * once, no partition owned by two members in one generation, committed = end offsets.
 * Needs: gcc, pkg-config, librdkafka-dev; java 17+ with test/support/kafka built.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startMockCluster, mockClusterAvailable } from '../support/mock-cluster/index.js';
import { startKafkaCluster } from '../support/kafka/kafka-cluster.js';
import { startGroupRun } from '../support/group-failover.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const PARTITIONS = 6;

for (const assignor of ['range', 'cooperative-sticky']) test(`librdkafka mock cluster (${assignor}): 3 Brook consumers, leader and coordinator moves, coordinator down/up, injected errors`, { timeout: 90_000 }, async (t) => {
  assert.ok(mockClusterAvailable(), 'gcc, pkg-config and librdkafka-dev are needed for the interop suite');
  const mock = await startMockCluster({ brokers: 3 });
  const started = Date.now();
  try {
    const topic = 'mock-group-topic';
    const groupId = 'mock-group';
    await mock.createTopic(topic, PARTITIONS, 3);
    for (let p = 0; p < PARTITIONS; p++) await mock.setPartitionLeader(topic, p, (p % 3) + 1);
    await mock.setCoordinator('group', groupId, 1);
    const run = await startGroupRun({ bootstrap: mock.bootstrap, topic, partitions: PARTITIONS, groupId, assignors: [assignor], log: (l) => t.diagnostic(l) });
    await run.progress(300, 20_000);

    // Partition leaders move (the old leader answers NOT_LEADER_OR_FOLLOWER).
    await mock.setPartitionLeader(topic, 0, 2);
    await mock.setPartitionLeader(topic, 1, 3);
    await run.progress(300, 20_000);
    t.diagnostic(`after leader moves: ${run.consumed.size} consumed`);

    // The coordinator moves (the old one answers NOT_COORDINATOR).
    await mock.setCoordinator('group', groupId, 2);
    await run.progress(300, 20_000);
    t.diagnostic(`after coordinator move: ${run.consumed.size} consumed`);

    // The coordinator's broker goes down, the coordinator moves, the broker comes back.
    // (The mock elects no new leaders when a broker goes down, so its partitions move first.)
    for (let p = 0; p < PARTITIONS; p++) await mock.setPartitionLeader(topic, p, p % 2 === 0 ? 1 : 3);
    await mock.brokerDown(2);
    await mock.setCoordinator('group', groupId, 3);
    await run.progress(300, 20_000);
    await mock.brokerUp(2);
    t.diagnostic(`after coordinator down/up: ${run.consumed.size} consumed`);

    // The coordinator's broker goes down and comes back while it stays the coordinator:
    // members lose their connection, retry with backoff and reconnect to the same node.
    for (let p = 0; p < PARTITIONS; p++) await mock.setPartitionLeader(topic, p, p % 2 === 0 ? 1 : 2);
    await mock.brokerDown(3);
    await sleep(1_500);
    await mock.brokerUp(3);
    await run.progress(300, 20_000);
    t.diagnostic(`after coordinator outage (same coordinator): ${run.consumed.size} consumed`);

    // Injected errors while the consumers run (numeric where librdkafka 2.0 uses older names).
    await mock.pushRequestErrors(Api.Heartbeat.apiKey, ['NOT_COORDINATOR', 'REBALANCE_IN_PROGRESS']);
    await mock.pushRequestErrors(Api.OffsetCommit.apiKey, ['NOT_COORDINATOR', 'REBALANCE_IN_PROGRESS', 'COORDINATOR_LOAD_IN_PROGRESS']);
    await mock.pushRequestErrors(Api.Fetch.apiKey, [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.FENCED_LEADER_EPOCH]);
    await run.progress(300, 20_000);
    t.diagnostic(`after injected errors: ${run.consumed.size} consumed`);
    // Dropped connections (librdkafka's _TRANSPORT) on Fetch, Heartbeat and OffsetCommit.
    await mock.pushRequestErrors(Api.Fetch.apiKey, ['_TRANSPORT']);
    await mock.pushRequestErrors(Api.Heartbeat.apiKey, ['_TRANSPORT']);
    await mock.pushRequestErrors(Api.OffsetCommit.apiKey, ['_TRANSPORT']);
    await run.progress(300, 20_000);
    t.diagnostic(`after dropped connections: ${run.consumed.size} consumed`);

    const result = await run.finish(30_000);
    t.diagnostic(`mock: ${JSON.stringify(result)}, ${run.pollErrors.length} poll errors${run.pollErrors.length ? ` (e.g. ${run.pollErrors[0]})` : ''}, ${Date.now() - started} ms`);
    assert.ok(result.acked > 1_000);
  } finally {
    await mock.close();
  }
});

test('Apache Kafka 4.4.0, 3-node KRaft: 3 Brook consumers, coordinator broker and a leader broker SIGKILLed and restarted', { timeout: 180_000 }, async (t) => {
  const kafka = await startKafkaCluster({ brokers: 3, groupInitialRebalanceDelayMs: 0 });
  const started = Date.now();
  try {
    t.diagnostic(`cluster up: ${kafka.bootstrap}`);

    // 1. The coordinator's broker dies under running consumers, then comes back.
    {
      const topic = 'kc-coord-topic';
      await kafka.createTopic(topic, PARTITIONS, 3);
      const groupId = 'kc-coord';
      const run = await startGroupRun({ bootstrap: kafka.bootstrap, topic, partitions: PARTITIONS, groupId, log: (l) => t.diagnostic(l) });
      await run.progress(300, 20_000);
      const coordinator = await kafka.coordinatorOf(groupId);
      t.diagnostic(`killing coordinator node ${coordinator}`);
      await kafka.stopBroker(coordinator);
      const afterKill = await run.progress(300, 30_000);
      await kafka.startBroker(coordinator);
      const afterRestart = await run.progress(300, 30_000);
      t.diagnostic(`300 more records ${afterKill} ms after the kill, ${afterRestart} ms after the restart; new coordinator ${await kafka.coordinatorOf(groupId)}`);
      const result = await run.finish(40_000);
      t.diagnostic(`coordinator kill: ${JSON.stringify(result)}, ${run.pollErrors.length} poll errors, ${Date.now() - started} ms`);
    }

    // 2. A broker leading some partitions (not the coordinator's) dies, then comes back.
    {
      // A fresh topic: leaders spread over the three nodes again. Cooperative this time.
      const topic = 'kc-leader-topic';
      await kafka.createTopic(topic, PARTITIONS, 3);
      const groupId = 'kc-leader';
      const coordinator = await kafka.coordinatorOf(groupId);
      const run = await startGroupRun({ bootstrap: kafka.bootstrap, topic, partitions: PARTITIONS, groupId, assignors: ['cooperative-sticky'], log: (l) => t.diagnostic(l) });
      await run.progress(300, 20_000);
      const leaders = [];
      for (let p = 0; p < PARTITIONS; p++) leaders.push(await kafka.leaderOf(topic, p));
      const victim = leaders.find((n) => n !== coordinator && n > 0) ?? leaders[0]!;
      t.diagnostic(`leaders ${leaders.join(',')}, coordinator ${coordinator}: killing node ${victim}`);
      await kafka.stopBroker(victim);
      const afterKill = await run.progress(300, 30_000);
      await kafka.startBroker(victim);
      const afterRestart = await run.progress(300, 30_000);
      t.diagnostic(`300 more records ${afterKill} ms after the kill, ${afterRestart} ms after the restart`);
      const result = await run.finish(40_000);
      t.diagnostic(`leader kill: ${JSON.stringify(result)}, ${run.pollErrors.length} poll errors, ${Date.now() - started} ms`);
    }
  } finally {
    await kafka.close();
  }
});
