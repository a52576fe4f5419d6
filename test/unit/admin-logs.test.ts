/**
 * DeleteRecords, DescribeLogDirs, DescribeProducers and DescribeTopicPartitions through
 * Brook's admin client against Brook's broker: what each answers, that a consumer below the
 * new log start offset resets, that retention then deletes the segments below it, and that
 * the log start offset and the producer state survive a clean restart and a kill -9.
 * (Kafka's answers to the same requests: test/interop/admin-logs-differential.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Consumer, Producer } from '../../src/index.js';
import { spawnBrook, startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { brookCli } from '../support/admin-fixture.js';

/** Sends `count` records one by one (one batch each) to `partition`; returns the producer's id. */
async function produce(bootstrap: string, topic: string, partition: number, count: number): Promise<bigint> {
  const producer = new Producer({ bootstrapServers: bootstrap, idempotent: true, acks: 'all', lingerMs: 0 });
  try {
    for (let i = 0; i < count; i++) await producer.send({ topic, partition, key: `k${i}`, value: `v${i}` });
    return producer.producerIdAndEpoch.producerId;
  } finally {
    await producer.close();
  }
}

/** The bytes of the partition's segment log files, read from the directory (not from Brook). */
function logFileBytes(dataDir: string, topic: string, partition: number): { files: string[]; bytes: bigint } {
  const dir = join(dataDir, `${topic}-${partition}`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
  return { files, bytes: files.reduce((sum, f) => sum + BigInt(statSync(join(dir, f)).size), 0n) };
}

test('deleteRecords, a consumer below the log start offset, describeProducers, describeTopics and describeLogDirs (memory engine)', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  await admin.createTopic({ name: 'logs-a', partitions: 2 });
  await admin.createTopic({ name: 'logs-compact', partitions: 1, configs: { 'cleanup.policy': 'compact' } });
  await admin.createTopic({ name: 'logs-b', partitions: 3 });
  const producerId = await produce(broker.bootstrap, 'logs-a', 0, 10);
  await produce(broker.bootstrap, 'logs-a', 1, 3);

  const deleted = await admin.deleteRecords([
    { topic: 'logs-a', partition: 0, offset: 4n },
    { topic: 'logs-a', partition: 1, offset: -1n },
    { topic: 'logs-a', partition: 5, offset: 0n },
    { topic: 'logs-compact', partition: 0, offset: 0n },
    { topic: 'logs-missing', partition: 0, offset: 0n },
  ]);
  assert.deepEqual(deleted, [
    { topic: 'logs-a', partition: 0, lowWatermark: 4n, error: null },
    { topic: 'logs-a', partition: 1, lowWatermark: 3n, error: null },
    { topic: 'logs-a', partition: 5, lowWatermark: null, error: 'UNKNOWN_TOPIC_OR_PARTITION' },
    { topic: 'logs-compact', partition: 0, lowWatermark: null, error: 'POLICY_VIOLATION' },
    { topic: 'logs-missing', partition: 0, lowWatermark: null, error: 'UNKNOWN_TOPIC_OR_PARTITION' },
  ]);
  assert.deepEqual(await admin.deleteRecords([{ topic: 'logs-a', partition: 0, offset: 11n }]),
    [{ topic: 'logs-a', partition: 0, lowWatermark: null, error: 'OFFSET_OUT_OF_RANGE' }]);
  assert.deepEqual(await admin.deleteRecords([{ topic: 'logs-a', partition: 0, offset: 2n }]),
    [{ topic: 'logs-a', partition: 0, lowWatermark: 4n, error: null }], 'an offset below the log start offset changes nothing');
  const starts = await admin.logStartOffsets([{ topic: 'logs-a', partition: 0 }, { topic: 'logs-a', partition: 1 }]);
  assert.deepEqual([...starts], [['logs-a:0', 4n], ['logs-a:1', 3n]]);

  // A consumer positioned below the log start offset gets OFFSET_OUT_OF_RANGE and resets (earliest).
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, autoOffsetReset: 'earliest' });
  cleanup.add('close consumer', () => consumer.close());
  consumer.assign([{ topic: 'logs-a', partition: 0 }]);
  consumer.seek({ topic: 'logs-a', partition: 0 }, 1n);
  const offsets: bigint[] = [];
  for (let i = 0; i < 50 && offsets.length < 6; i++) for (const r of await consumer.poll({ timeoutMs: 200 })) offsets.push(r.offset);
  assert.deepEqual(offsets, [4n, 5n, 6n, 7n, 8n, 9n]);

  const producers = await admin.describeProducers([{ topic: 'logs-a', partition: 0 }, { topic: 'logs-b', partition: 0 }, { topic: 'logs-b', partition: 9 }]);
  assert.equal(producers.length, 3);
  assert.deepEqual(producers[0]!.activeProducers.map((p) => [p.producerId, p.producerEpoch, p.lastSequence, p.coordinatorEpoch, p.currentTransactionStartOffset]),
    [[producerId, 0, 9, null, null]]);
  assert.ok(producers[0]!.activeProducers[0]!.lastTimestamp > BigInt(Date.now() - 60_000));
  assert.deepEqual(producers.slice(1).map((p) => [p.topic, p.partition, p.error, p.activeProducers.length]),
    [['logs-b', 0, null, 0], ['logs-b', 9, 'UNKNOWN_TOPIC_OR_PARTITION', 0]]);

  // Paged one partition per response, the topics come out whole, as Metadata describes them.
  const paged = await admin.describeTopics(['logs-b', 'logs-a'], { partitionsPerRequest: 1 });
  assert.deepEqual(paged.map((d) => [d.name, d.partitions.map((p) => p.partition)]), [['logs-a', [0, 1]], ['logs-b', [0, 1, 2]]]);
  for (const d of paged) {
    const viaMetadata = await admin.describeTopic(d.name);
    assert.equal(d.topicId, viaMetadata.topicId);
    assert.deepEqual(d.partitions.map((p) => ({ partition: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr })), viaMetadata.partitions);
    assert.ok(d.partitions.every((p) => p.elr !== null && p.elr.length === 0 && p.offline.length === 0));
  }
  const all = await admin.describeTopics(null, { partitionsPerRequest: 2 });
  assert.deepEqual(all.map((d) => d.name).filter((n) => n.startsWith('logs-')), ['logs-a', 'logs-b', 'logs-compact']);
  await assert.rejects(admin.describeTopics(['logs-missing']), /UNKNOWN_TOPIC_OR_PARTITION|does not host this topic-partition/);

  const dirs = await admin.describeLogDirs({ partitions: [{ topic: 'logs-a', partition: 0 }, { topic: 'logs-a', partition: 1 }] });
  assert.deepEqual(dirs.map((d) => [d.broker, d.path, d.error, d.totalBytes, d.usableBytes]), [[broker.config.nodeId, '(memory)', null, null, null]]);
  assert.deepEqual(dirs[0]!.partitions.map((p) => [p.topic, p.partition, p.offsetLag, p.isFuture]), [['logs-a', 0, 0n, false], ['logs-a', 1, 0n, false]]);
  assert.ok(dirs[0]!.partitions.every((p) => p.sizeBytes > 0n));
});

test('brook topics delete-records: all partitions or named ones, end, Kafka\'s lines, exit 1 on a failed partition, 2 on bad usage', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const b = ['-b', broker.bootstrap];
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  await admin.createTopic({ name: 'cli-dr', partitions: 2 });
  await produce(broker.bootstrap, 'cli-dr', 0, 5);
  await produce(broker.bootstrap, 'cli-dr', 1, 2);

  const all = await brookCli(['topics', 'delete-records', 'cli-dr', '--offset', '2', ...b]);
  assert.equal(all.code, 0, all.stderr);
  assert.equal(all.stdout, 'Records delete operation completed:\npartition: cli-dr-0\tlow_watermark: 2\npartition: cli-dr-1\tlow_watermark: 2\n');
  const beyond = await brookCli(['topics', 'delete-records', 'cli-dr', '--partition', '1', '--offset', '3', ...b]);
  assert.equal(beyond.code, 1);
  assert.equal(beyond.stdout, 'Records delete operation completed:\npartition: cli-dr-1\terror: OFFSET_OUT_OF_RANGE\n');
  const end = await brookCli(['topics', 'delete-records', 'cli-dr', '--partition', '0', '--offset', 'end', '--json', ...b]);
  assert.equal(end.code, 0, end.stderr);
  assert.deepEqual(JSON.parse(end.stdout), [{ topic: 'cli-dr', partition: 0, lowWatermark: 5, error: null }]);
  for (const bad of [['cli-dr'], ['cli-dr', '--offset', 'x'], ['cli-dr', '--offset', '1', '--partition', '-1'], ['--offset', '1']]) {
    const r = await brookCli(['topics', 'delete-records', ...bad, ...b]);
    assert.equal(r.code, 2, `${bad.join(' ')}: ${r.stderr}`);
  }
  const unknown = await brookCli(['topics', 'delete-records', 'cli-missing', '--offset', '1', ...b]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
});

test('file engine: retention deletes the segments below the log start offset; sizes on disk; a clean restart keeps the log start offset and producers', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-admin-logs-');
  cleanup.add('remove data dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  let admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  // One batch per segment (Kafka's internal.segment.bytes has no minimum).
  await admin.createTopic({ name: 'segs', partitions: 1, configs: { 'internal.segment.bytes': '100' } });
  const producerId = await produce(broker.bootstrap, 'segs', 0, 8);
  assert.equal(logFileBytes(dir.path, 'segs', 0).files.length, 8);

  assert.deepEqual(await admin.deleteRecords([{ topic: 'segs', partition: 0, offset: 5n }]), [{ topic: 'segs', partition: 0, lowWatermark: 5n, error: null }]);
  assert.equal(logFileBytes(dir.path, 'segs', 0).files.length, 8, 'segments stay until the next retention pass, as in Kafka');
  broker.storage.enforceRetention(Date.now());
  const after = logFileBytes(dir.path, 'segs', 0);
  assert.deepEqual(after.files, [5, 6, 7].map((o) => `${String(o).padStart(20, '0')}.log`));

  const [logDir] = await admin.describeLogDirs();
  assert.equal(logDir!.path, dir.path);
  assert.ok(logDir!.totalBytes! > 0n && logDir!.usableBytes! > 0n);
  assert.deepEqual(logDir!.partitions.filter((p) => p.topic === 'segs').map((p) => p.sizeBytes), [after.bytes]);

  admin.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  assert.deepEqual([...await admin.logStartOffsets([{ topic: 'segs', partition: 0 }])], [['segs:0', 5n]]);
  const [state] = await admin.describeProducers([{ topic: 'segs', partition: 0 }]);
  assert.deepEqual(state!.activeProducers.map((p) => [p.producerId, p.lastSequence]), [[producerId, 7]]);
  // Deleting up to the high watermark, then retention: the log is empty from offset 8 on.
  await admin.deleteRecords([{ topic: 'segs', partition: 0, offset: -1n }]);
  broker.storage.enforceRetention(Date.now());
  assert.deepEqual(logFileBytes(dir.path, 'segs', 0).files, [`${String(7).padStart(20, '0')}.log`], 'the active segment stays');
  assert.deepEqual([...await admin.logStartOffsets([{ topic: 'segs', partition: 0 }])], [['segs:0', 8n]]);
});

test('kill -9 right after DeleteRecords: the log start offset and the producer state survive', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-admin-logs-kill-');
  cleanup.add('remove data dir', () => dir.remove());
  let brook = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  cleanup.add('stop broker', async () => { await brook.stop(); });
  let admin = await Admin.connect({ bootstrapServers: brook.bootstrap });
  await admin.createTopic({ name: 'killed', partitions: 1 });
  const producerId = await produce(brook.bootstrap, 'killed', 0, 6);
  assert.deepEqual(await admin.deleteRecords([{ topic: 'killed', partition: 0, offset: 4n }]), [{ topic: 'killed', partition: 0, lowWatermark: 4n, error: null }]);
  admin.close();
  await brook.kill();

  brook = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  admin = await Admin.connect({ bootstrapServers: brook.bootstrap });
  cleanup.add('close admin', () => admin.close());
  assert.deepEqual([...await admin.logStartOffsets([{ topic: 'killed', partition: 0 }])], [['killed:0', 4n]]);
  assert.deepEqual([...await admin.logEndOffsets([{ topic: 'killed', partition: 0 }])], [['killed:0', 6n]]);
  // No snapshot was written (no roll, no clean shutdown): the state comes from the log's batches.
  const [state] = await admin.describeProducers([{ topic: 'killed', partition: 0 }]);
  assert.deepEqual(state!.activeProducers.map((p) => [p.producerId, p.producerEpoch, p.lastSequence]), [[producerId, 0, 5]]);
});
