/**
 * `brook cluster info` against what KafkaJS's admin client reads from the same broker:
 * cluster id, controller, brokers, and every topic's partitions with leader, replicas, ISR.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, startBrook } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { createTopicWithKafkaJs, kafkaJs } from '../support/clients/kafkajs.js';

const BIN = join(projectRoot, 'bin', 'brook');

interface ClusterJson {
  clusterId: string;
  controllerId: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  topics: { name: string; topicId: string; internal: boolean; partitions: { partition: number; leader: number; replicas: number[]; isr: number[] }[] }[];
}

test('cluster info (--json and text) agrees with KafkaJS describeCluster and fetchTopicMetadata', { timeout: 60_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  await createTopicWithKafkaJs(broker.bootstrap, 'alpha', 3);
  await createTopicWithKafkaJs(broker.bootstrap, 'beta', 1);
  const admin = kafkaJs(broker.bootstrap).admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  const metadata = await admin.fetchTopicMetadata();
  await admin.disconnect();

  const json = await runProcess(process.execPath, [BIN, 'cluster', 'info', '--json', '-b', broker.bootstrap]);
  assert.equal(json.code, 0, json.stderr);
  const info = JSON.parse(json.stdout) as ClusterJson;
  assert.equal(info.clusterId, cluster.clusterId);
  assert.equal(info.controllerId, cluster.controller);
  assert.deepEqual(info.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })), cluster.brokers);
  const expectedTopics = metadata.topics.map((tp) => ({
    name: tp.name,
    partitions: tp.partitions.map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr })).sort((a, b) => a.partition - b.partition),
  })).sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(info.topics.map((tp) => ({ name: tp.name, partitions: tp.partitions })), expectedTopics);
  assert.ok(info.topics.some((tp) => tp.name === 'alpha' && tp.partitions.length === 3));

  const text = await runProcess(process.execPath, [BIN, 'cluster', 'info', '-b', broker.bootstrap]);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  assert.equal(lines[0], `Cluster ${cluster.clusterId} (controller ${cluster.controller}):`);
  assert.equal(lines[1], ` ${cluster.brokers.length} brokers:`);
  assert.ok(lines.includes(`  broker ${cluster.brokers[0]!.nodeId} at ${cluster.brokers[0]!.host}:${cluster.brokers[0]!.port} (controller)`));
  assert.ok(lines.includes('  topic "alpha" with 3 partitions:'));
  assert.ok(lines.includes(`    partition 2, leader ${cluster.brokers[0]!.nodeId}, replicas: ${cluster.brokers[0]!.nodeId}, isrs: ${cluster.brokers[0]!.nodeId}`));

  for (const args of [['cluster'], ['cluster', 'nope'], ['cluster', 'info', '--nope']]) {
    const r = await runProcess(process.execPath, [BIN, ...args, '-b', broker.bootstrap]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  }
});
