/**
 * CreatePartitions and the config APIs against Brook's broker: partitions added survive a
 * restart, Brook's producer places keys over the new count as KafkaJS's Java-compatible
 * (murmur2) partitioner does, and both kinds of consumer groups take the new partitions;
 * topic and dynamic broker configs apply live and survive a restart. KafkaJS's own
 * createPartitions, alterConfigs and describeConfigs work against Brook.
 * (Kafka's codes and messages are compared in test/interop/admin-configs-differential.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import kafkajs from 'kafkajs';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';
import { Admin } from '../../src/client/admin/index.js';
import { Consumer, Producer } from '../../src/index.js';
import { ErrorCode, KafkaProtocolError } from '../../src/protocol/errors.js';

const { Kafka, Partitioners, ConfigResourceTypes, logLevel } = kafkajs;
const errorCodeOf = (err: unknown): number => (err instanceof KafkaProtocolError ? err.errorCode : -999);

test('createPartitions: Metadata shows the new partitions, they survive a restart, refusals carry Kafka\'s codes', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-partitions-');
  cleanup.add('remove dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  let admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  await admin.createTopic({ name: 'grow', partitions: 1 });

  await admin.createPartitions('grow', 3, { validateOnly: true });
  assert.equal((await admin.describeTopic('grow')).partitions.length, 1, 'validateOnly changes nothing');
  await admin.createPartitions('grow', 4);
  assert.deepEqual((await admin.describeTopic('grow')).partitions.map((p) => p.partition), [0, 1, 2, 3]);

  await assert.rejects(admin.createPartitions('grow', 4), (err) => errorCodeOf(err) === ErrorCode.INVALID_PARTITIONS);
  await assert.rejects(admin.createPartitions('grow', 2), (err) => errorCodeOf(err) === ErrorCode.INVALID_PARTITIONS);
  await assert.rejects(admin.createPartitions('no-such-topic', 2), (err) => errorCodeOf(err) === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  await assert.rejects(admin.createPartitions('grow', 5, { assignments: [[2]] }), (err) => errorCodeOf(err) === ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  await admin.createPartitions('grow', 5, { assignments: [[broker.config.nodeId]] });

  // A record in a new partition, then a restart: the count and the record are still there.
  const producer = new Producer({ bootstrapServers: broker.bootstrap });
  await producer.send({ topic: 'grow', partition: 4, value: 'in the fifth partition' });
  await producer.close();
  admin.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  assert.equal((await admin.describeTopic('grow')).partitions.length, 5);
  assert.equal((await admin.logEndOffsets([{ topic: 'grow', partition: 4 }])).get('grow:4'), 1n);
});

test('keys go to murmur2(key) % the new count once the producer\'s metadata refresh sees it; KafkaJS agrees', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  await admin.createTopic({ name: 'keyed', partitions: 2 });
  const producer = new Producer({ bootstrapServers: broker.bootstrap, metadataMaxAgeMs: 200 });
  cleanup.add('close producer', () => producer.close());
  await producer.send({ topic: 'keyed', key: 'warm-up', value: 'x' });
  await admin.createPartitions('keyed', 7);

  // The oracle: KafkaJS's default partitioner (Java's murmur2 placement) over 7 partitions.
  const kafkajsPartition = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: 7 }, (_, partitionId) => ({ partitionId, leader: broker.config.nodeId, partitionErrorCode: 0, replicas: [broker.config.nodeId], isr: [broker.config.nodeId] }));
  const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
  const expected = keys.map((key) => kafkajsPartition({ topic: 'keyed', partitionMetadata, message: { key, value: 'v' } }));
  assert.ok(expected.some((p) => p >= 2), 'some keys belong to new partitions');
  await until('the producer to place keys over 7 partitions', 20_000, async () => {
    const sent = await Promise.all(keys.map((key) => producer.send({ topic: 'keyed', key, value: 'v' })));
    return sent.every((m, i) => m.partition === expected[i]) ? true : undefined;
  }, 100);
});

test('consumer groups take new partitions: classic (a metadata refresh) and KIP-848 (a new target assignment)', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  await admin.createTopic({ name: 'g-classic', partitions: 1 });
  await admin.createTopic({ name: 'g-consumer', partitions: 1 });

  const classic = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'classic-grow', metadataMaxAgeMs: 200, heartbeatIntervalMs: 100 });
  const modern = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'consumer-grow', groupProtocol: 'consumer' });
  cleanup.add('close consumers', () => Promise.all([classic.close(), modern.close()]));
  classic.subscribe(['g-classic']);
  modern.subscribe(['g-consumer']);
  const assigned = (c: Consumer): string[] => c.assignment().map((p) => `${p.topic}-${p.partition}`).sort();
  const pollUntil = (c: Consumer, want: string[], what: string) => until(what, 20_000, async () => {
    await c.poll({ timeoutMs: 50 });
    return JSON.stringify(assigned(c)) === JSON.stringify(want) ? true : undefined;
  }, 0);
  await pollUntil(classic, ['g-classic-0'], 'the classic member to get partition 0');
  await pollUntil(modern, ['g-consumer-0'], 'the consumer-protocol member to get partition 0');

  await admin.createPartitions('g-classic', 3);
  await admin.createPartitions('g-consumer', 3);
  await pollUntil(classic, ['g-classic-0', 'g-classic-1', 'g-classic-2'], 'the classic group to rebalance onto 3 partitions');
  await pollUntil(modern, ['g-consumer-0', 'g-consumer-1', 'g-consumer-2'], 'the consumer group to assign 3 partitions');
  const described = await admin.describeGroup('consumer-grow');
  assert.deepEqual(described.members[0]!.targetAssignment!.map((p) => p.partition).sort(), [0, 1, 2]);
});

test('topic configs: set, append, delete, replace; applied live and kept across a restart', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-configs-');
  cleanup.add('remove dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  let admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  const topic = { type: 'topic', name: 'cfg' } as const;
  await admin.createTopic({ name: 'cfg', partitions: 1 });
  const producer = new Producer({ bootstrapServers: broker.bootstrap, retries: 0 });
  cleanup.add('close producer', () => producer.close());
  await producer.send({ topic: 'cfg', value: 'x'.repeat(5_000) });

  await admin.incrementalAlterConfigs(topic, [
    { name: 'max.message.bytes', op: 'set', value: '2000' },
    { name: 'retention.ms', op: 'set', value: '3600000' },
    { name: 'cleanup.policy', op: 'append', value: 'compact' },
  ]);
  const described = new Map((await admin.describeConfigs(topic, { synonyms: true })).map((c) => [c.name, c]));
  assert.equal(described.get('retention.ms')!.value, '3600000');
  assert.equal(described.get('retention.ms')!.source, 'DYNAMIC_TOPIC_CONFIG');
  assert.equal(described.get('cleanup.policy')!.value, 'delete,compact', 'APPEND starts from the default');
  assert.equal(described.get('segment.bytes')!.source, 'DEFAULT_CONFIG');
  // Live: the partition's log now refuses what it took before.
  await assert.rejects(producer.send({ topic: 'cfg', value: 'x'.repeat(5_000) }), (err) => errorCodeOf(err) === ErrorCode.MESSAGE_TOO_LARGE);

  await assert.rejects(admin.incrementalAlterConfigs(topic, [{ name: 'no.such.config', op: 'set', value: '1' }]), (err) => errorCodeOf(err) === ErrorCode.INVALID_CONFIG);
  await assert.rejects(admin.incrementalAlterConfigs(topic, [{ name: 'retention.ms', op: 'append', value: '1' }]), (err) => errorCodeOf(err) === ErrorCode.INVALID_CONFIG);
  await assert.rejects(admin.incrementalAlterConfigs(topic, [{ name: 'retention.ms', op: 'set', value: 'soon' }]), (err) => errorCodeOf(err) === ErrorCode.INVALID_CONFIG);
  await admin.incrementalAlterConfigs(topic, [{ name: 'retention.ms', op: 'set', value: '1' }], { validateOnly: true });
  await admin.incrementalAlterConfigs(topic, [{ name: 'max.message.bytes', op: 'delete' }]);
  await producer.send({ topic: 'cfg', value: 'x'.repeat(5_000) });

  admin.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  const after = new Map((await admin.describeConfigs(topic)).map((c) => [c.name, c]));
  assert.equal(after.get('retention.ms')!.value, '3600000', 'not the validateOnly value');
  assert.equal(after.get('cleanup.policy')!.value, 'delete,compact');
  assert.equal(after.get('max.message.bytes')!.source, 'DEFAULT_CONFIG');

  // AlterConfigs replaces the whole set: what it does not name returns to its default.
  await admin.alterConfigs(topic, { 'segment.ms': '60000' });
  const replaced = await admin.describeConfigs(topic);
  assert.deepEqual(replaced.filter((c) => c.source === 'DYNAMIC_TOPIC_CONFIG').map((c) => `${c.name}=${c.value}`), ['segment.ms=60000']);
});

test('dynamic broker configs: per broker over the cluster default over static, live and persisted; static ones refused', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-broker-configs-');
  cleanup.add('remove dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path });
  cleanup.add('stop broker', () => broker.stop());
  let admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  const node = { type: 'broker', name: String(broker.config.nodeId) } as const;
  const cluster = { type: 'broker', name: '' } as const;
  await admin.createTopic({ name: 'plain', partitions: 1 });
  const producer = new Producer({ bootstrapServers: broker.bootstrap, retries: 0 });
  cleanup.add('close producer', () => producer.close());

  await admin.incrementalAlterConfigs(cluster, [{ name: 'message.max.bytes', op: 'set', value: '3000' }]);
  await admin.incrementalAlterConfigs(node, [{ name: 'message.max.bytes', op: 'set', value: '2000' }]);
  const entry = (await admin.describeConfigs(node, { keys: ['message.max.bytes'], synonyms: true }))[0]!;
  assert.equal(entry.value, '2000');
  assert.equal(entry.source, 'DYNAMIC_BROKER_CONFIG');
  assert.equal(entry.readOnly, false);
  assert.deepEqual(entry.synonyms.map((s) => `${s.source}=${s.value}`), ['DYNAMIC_BROKER_CONFIG=2000', 'DYNAMIC_DEFAULT_BROKER_CONFIG=3000', 'DEFAULT_CONFIG=1048588']);
  const topicView = (await admin.describeConfigs({ type: 'topic', name: 'plain' }, { keys: ['max.message.bytes'] }))[0]!;
  assert.equal(topicView.value, '2000');
  assert.equal(topicView.source, 'DYNAMIC_BROKER_CONFIG');
  await assert.rejects(producer.send({ topic: 'plain', value: 'x'.repeat(2_500) }), (err) => errorCodeOf(err) === ErrorCode.MESSAGE_TOO_LARGE);

  await assert.rejects(admin.incrementalAlterConfigs(node, [{ name: 'num.partitions', op: 'set', value: '3' }]), (err) => errorCodeOf(err) === ErrorCode.INVALID_REQUEST);
  await assert.rejects(admin.incrementalAlterConfigs(node, [{ name: 'log.segment.bytes', op: 'set', value: '10' }]), (err) => errorCodeOf(err) === ErrorCode.INVALID_REQUEST);
  await assert.rejects(admin.incrementalAlterConfigs({ type: 'broker', name: '99' }, [{ name: 'log.retention.ms', op: 'set', value: '1' }]),
    (err) => errorCodeOf(err) === ErrorCode.INVALID_REQUEST);

  admin.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  assert.equal((await admin.describeConfigs(node, { keys: ['message.max.bytes'] }))[0]!.value, '2000', 'kept across a restart');
  assert.deepEqual((await admin.describeConfigs(cluster)).map((c) => `${c.name}=${c.value}`), ['message.max.bytes=3000']);
  await admin.incrementalAlterConfigs(node, [{ name: 'message.max.bytes', op: 'delete' }]);
  assert.equal((await admin.describeConfigs({ type: 'topic', name: 'plain' }, { keys: ['max.message.bytes'] }))[0]!.value, '3000', 'the cluster default is in force again');
});

test('KafkaJS: createPartitions, alterConfigs and describeConfigs', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const kafka = new Kafka({ clientId: 'kafkajs-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('disconnect kafkajs', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 1 }] });
  await admin.createPartitions({ topicPartitions: [{ topic: 'kjs', count: 3 }] });
  const metadata = await admin.fetchTopicMetadata({ topics: ['kjs'] });
  assert.equal(metadata.topics[0]!.partitions.length, 3);
  await assert.rejects(admin.createPartitions({ topicPartitions: [{ topic: 'kjs', count: 2 }] }), (err) => (err as { type?: string }).type === 'INVALID_PARTITIONS');

  await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs', configEntries: [{ name: 'retention.ms', value: '120000' }] }] });
  const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs', configNames: ['retention.ms'] }] });
  const entry = described.resources[0]!.configEntries[0]!;
  assert.equal(entry.configName, 'retention.ms');
  assert.equal(entry.configValue, '120000');
  await assert.rejects(
    admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs', configEntries: [{ name: 'retention.ms', value: 'never' }] }] }),
    (err) => (err as { type?: string }).type === 'INVALID_CONFIG',
  );
});
