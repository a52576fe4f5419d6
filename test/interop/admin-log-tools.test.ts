/**
 * Kafka 4.4.0's own log admin tools, and KafkaJS's deleteTopicRecords, against Brook's
 * broker (file engine):
 *  - `kafka-delete-records --offset-json-file` (DeleteRecordsCommand): the low watermark it
 *    prints is the log start offset Brook's ListOffsets then answers; `brook topics
 *    delete-records` prints the same lines;
 *  - `kafka-log-dirs --describe` (LogDirsCommand): Brook's data directory, each partition's
 *    size equal to the bytes of its log files on disk;
 *  - `kafka-topics --describe --partition-size-limit-per-response 1` (TopicCommand, which in
 *    4.x describes through DescribeTopicPartitions, paging one partition at a time): every
 *    partition once, with the ELR fields that API carries;
 *  - `kafka-transactions describe-producers` (TransactionsCommand): the idempotent producer
 *    with its epoch and last sequence;
 *  - KafkaJS 2.x `admin.deleteTopicRecords`, after which KafkaJS's fetchTopicOffsets reports
 *    the new low watermark.
 * Each Kafka tool is a JVM: one run each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Producer } from '../../src/index.js';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';

function kafkaTool(mainClass: string, args: readonly string[]): Promise<RunResult> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), `org.apache.kafka.tools.${mainClass}`, ...args], { timeoutMs: 60_000 });
}

function logFileBytes(dataDir: string, topic: string, partition: number): number {
  const dir = join(dataDir, `${topic}-${partition}`);
  return readdirSync(dir).filter((f) => f.endsWith('.log')).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

test('kafka-delete-records, kafka-log-dirs, kafka-topics --describe, kafka-transactions describe-producers and KafkaJS deleteTopicRecords against Brook', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const dir = tempDir('brook-log-tools-');
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = broker.bootstrap;
  const node = String(broker.config.nodeId);
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  cleanup.add('close admin', () => admin.close());
  const topic = 'tools-logs';
  await admin.createTopic({ name: topic, partitions: 3 });
  const producer = new Producer({ bootstrapServers: bootstrap, idempotent: true, acks: 'all', lingerMs: 0 });
  for (let i = 0; i < 10; i++) await producer.send({ topic, partition: 0, key: `k${i}`, value: `v${i}` });
  for (let i = 0; i < 4; i++) await producer.send({ topic, partition: 1, key: `k${i}`, value: `v${i}` });
  const { producerId } = producer.producerIdAndEpoch;
  await producer.close();

  // kafka-delete-records
  const files = tempDir('brook-log-tools-files-');
  cleanup.add('remove the offsets file', () => files.remove());
  const offsetsFile = join(files.path, 'offsets.json');
  writeFileSync(offsetsFile, JSON.stringify({ partitions: [{ topic, partition: 0, offset: 4 }, { topic, partition: 1, offset: -1 }], version: 1 }));
  const deleted = await kafkaTool('DeleteRecordsCommand', ['--bootstrap-server', bootstrap, '--offset-json-file', offsetsFile]);
  t.diagnostic(`kafka-delete-records: ${deleted.stdout.trim()}`);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, new RegExp(`partition: ${topic}-0\\s+low_watermark: 4`));
  assert.match(deleted.stdout, new RegExp(`partition: ${topic}-1\\s+low_watermark: 4`));
  // brook topics delete-records, the same offsets again (nothing left to delete): Kafka's tool's lines.
  const brookDeleted = await brookCli(['topics', 'delete-records', topic, '--partition', '0', '--partition', '1', '--offset', '4', '-b', bootstrap]);
  assert.equal(brookDeleted.code, 0, brookDeleted.stderr);
  const sortedLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('partition: ')).sort();
  assert.deepEqual(sortedLines(brookDeleted.stdout), sortedLines(deleted.stdout));
  const starts = await admin.logStartOffsets([0, 1, 2].map((partition) => ({ topic, partition })));
  assert.deepEqual([...starts], [[`${topic}:0`, 4n], [`${topic}:1`, 4n], [`${topic}:2`, 0n]]);

  // kafka-log-dirs
  const dirs = await kafkaTool('LogDirsCommand', ['--bootstrap-server', bootstrap, '--describe', '--topic-list', topic]);
  assert.equal(dirs.code, 0, dirs.stderr);
  const jsonLine = dirs.stdout.split('\n').find((l) => l.startsWith('{'));
  assert.ok(jsonLine, `a JSON line in: ${dirs.stdout}`);
  const described = JSON.parse(jsonLine) as { brokers: { broker: number; logDirs: { logDir: string; error: string | null; partitions: { partition: string; size: number; offsetLag: number; isFuture: boolean }[] }[] }[] };
  assert.deepEqual(described.brokers.map((b) => [b.broker, b.logDirs.map((d) => [d.logDir, d.error])]), [[broker.config.nodeId, [[dir.path, null]]]]);
  const partitions = described.brokers[0]!.logDirs[0]!.partitions.sort((a, b) => (a.partition < b.partition ? -1 : 1));
  assert.deepEqual(partitions, [0, 1, 2].map((p) => ({ partition: `${topic}-${p}`, size: logFileBytes(dir.path, topic, p), offsetLag: 0, isFuture: false })));
  assert.ok(partitions[0]!.size > 0);

  // kafka-topics --describe, one partition per DescribeTopicPartitions response
  const topics = await kafkaTool('TopicCommand', ['--bootstrap-server', bootstrap, '--describe', '--topic', topic, '--partition-size-limit-per-response', '1']);
  assert.equal(topics.code, 0, topics.stderr);
  const lines = topics.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split('\t').map((f) => f.trim()));
  assert.deepEqual(lines.slice(1), [0, 1, 2].map((p) => [`Topic: ${topic}`, `Partition: ${p}`, `Leader: ${node}`, `Replicas: ${node}`, `Isr: ${node}`, 'Elr:', 'LastKnownElr:']));

  // kafka-transactions describe-producers
  const producers = await kafkaTool('TransactionsCommand', ['--bootstrap-server', bootstrap, 'describe-producers', '--topic', topic, '--partition', '0']);
  t.diagnostic(`kafka-transactions describe-producers: ${producers.stdout.trim()}`);
  assert.equal(producers.code, 0, producers.stderr);
  const table = producers.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/));
  assert.deepEqual(table[0], ['ProducerId', 'ProducerEpoch', 'LatestCoordinatorEpoch', 'LastSequence', 'LastTimestamp', 'CurrentTransactionStartOffset']);
  assert.deepEqual(table.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[5]]), [[String(producerId), '0', '-1', '9', 'None']]);

  // KafkaJS
  const kafkajs = kafkaJs(bootstrap).admin();
  await kafkajs.connect();
  cleanup.add('disconnect KafkaJS admin', () => kafkajs.disconnect());
  // deleteTopicRecords reads leaders from KafkaJS's metadata cache without loading it (KafkaJS 2.x).
  await kafkajs.fetchTopicMetadata({ topics: [topic] });
  await kafkajs.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '7' }, { partition: 2, offset: '-1' }] });
  const low = await kafkajs.fetchTopicOffsets(topic);
  assert.deepEqual(low.map((o) => [o.partition, o.low, o.high]).sort(), [[0, '7', '10'], [1, '4', '4'], [2, '0', '0']]);
  // Beyond the high watermark: KafkaJS fails with the partition's OFFSET_OUT_OF_RANGE.
  await assert.rejects(kafkajs.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '99' }] }), (err: Error & { cause?: { partitions?: { error: { type: string } }[] } }) => {
    assert.deepEqual(err.cause?.partitions?.map((p) => p.error.type), ['OFFSET_OUT_OF_RANGE'], String(err));
    return true;
  });
});
