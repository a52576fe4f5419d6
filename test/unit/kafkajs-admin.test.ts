/**
 * brook/kafkajs's admin client against Brook's embedded broker, each call compared with the
 * real KafkaJS 2.2.4 admin client's answer to the same call on the same broker (the oracle):
 * topics, metadata, topic offsets (by timestamp too), group offsets (fetch, set, reset),
 * groups (list, describe, delete), cluster, configs, record deletion, ACLs (on a broker with
 * Kafka's StandardAuthorizer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, ConfigResourceTypes, KafkaJSProtocolError, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes, KafkaJSNonRetriableError } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

test('admin calls answer as KafkaJS 2.2.4 answers them', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await theirs.connect();
  await ours.connect();
  cleanup.add('admins', async () => { await theirs.disconnect(); await ours.disconnect(); });

  assert.equal(await ours.createTopics({ topics: [{ topic: 'a', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '123456' }] }] }), true);
  assert.equal(await ours.createTopics({ topics: [{ topic: 'a', numPartitions: 3 }] }), await theirs.createTopics({ topics: [{ topic: 'a', numPartitions: 3 }] }));
  assert.equal(await ours.createTopics({ topics: [{ topic: 'b' }] }), true);
  assert.deepEqual((await ours.listTopics()).sort(), (await theirs.listTopics()).sort());
  assert.deepEqual(await ours.fetchTopicMetadata({ topics: ['a'] }), await theirs.fetchTopicMetadata({ topics: ['a'] }));

  const producer = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic: 'a', messages: [0, 1, 2, 3, 4].map((i) => ({ value: `v${i}`, partition: i % 2, timestamp: String(1_000 + i) })) });
  await producer.disconnect();
  const sorted = <T extends { partition: number }>(xs: T[]): T[] => [...xs].sort((x, y) => x.partition - y.partition);
  assert.deepEqual(sorted(await ours.fetchTopicOffsets('a')), sorted(await theirs.fetchTopicOffsets('a')));
  for (const ts of [undefined, 0, 1_002, 1_003, 9_999]) {
    assert.deepEqual(sorted(await ours.fetchTopicOffsetsByTimestamp('a', ts)), sorted(await theirs.fetchTopicOffsetsByTimestamp('a', ts)), `timestamp ${ts}`);
  }

  await ours.setOffsets({ groupId: 'g', topic: 'a', partitions: [{ partition: 0, offset: '2' }, { partition: 1, offset: '1' }] });
  const fetched = (r: { topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[]) => r.map((x) => ({ ...x, partitions: sorted(x.partitions) }));
  assert.deepEqual(fetched(await ours.fetchOffsets({ groupId: 'g', topics: ['a'] })), fetched(await theirs.fetchOffsets({ groupId: 'g', topics: ['a'] })));
  await ours.resetOffsets({ groupId: 'g', topic: 'a', earliest: true });
  assert.deepEqual(fetched(await ours.fetchOffsets({ groupId: 'g', topics: ['a'] })), fetched(await theirs.fetchOffsets({ groupId: 'g', topics: ['a'] })));
  assert.deepEqual((await theirs.fetchOffsets({ groupId: 'g', topics: ['a'] }))[0]!.partitions.map((p) => p.offset).sort(), ['0', '0', '0']);
  await ours.resetOffsets({ groupId: 'g', topic: 'a' });
  assert.deepEqual(sorted((await theirs.fetchOffsets({ groupId: 'g', topics: ['a'] }))[0]!.partitions).map((p) => p.offset), ['3', '2', '0']);

  assert.deepEqual(await ours.listGroups(), await theirs.listGroups());
  const describe = (d: { groups: object[] }) => d.groups.map((g) => ({ ...g, members: [] }));
  assert.deepEqual(describe(await ours.describeGroups(['g'])), describe(await theirs.describeGroups(['g'])));

  const cluster = await theirs.describeCluster();
  assert.deepEqual(await ours.describeCluster(), cluster);

  const resources = [{ type: ConfigResourceTypes.TOPIC, name: 'a', configNames: ['retention.ms', 'cleanup.policy'] }];
  const configs = (r: { resources: { configEntries: object[] }[] }) => r.resources.map((x) => ({ ...x, configEntries: x.configEntries.map((e) => ({ ...e, configSynonyms: [] })) }));
  assert.deepEqual(configs(await ours.describeConfigs({ resources, includeSynonyms: false }) as never), configs(await theirs.describeConfigs({ resources, includeSynonyms: false }) as never));
  await ours.alterConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'b', configEntries: [{ name: 'retention.ms', value: '999' }] }] });
  const b = await theirs.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'b', configNames: ['retention.ms'] }], includeSynonyms: false });
  assert.equal(b.resources[0]!.configEntries[0]!.configValue, '999');

  await ours.deleteTopicRecords({ topic: 'a', partitions: [{ partition: 0, offset: '2' }, { partition: 1, offset: '-1' }] });
  assert.deepEqual(sorted(await theirs.fetchTopicOffsets('a')).map((p) => [p.low, p.high]), [['2', '3'], ['2', '2'], ['0', '0']]);

  assert.equal(await ours.createPartitions({ topicPartitions: [{ topic: 'b', count: 4 }] }), true);
  assert.equal((await theirs.fetchTopicMetadata({ topics: ['b'] })).topics[0]!.partitions.length, 4);

  assert.deepEqual(await ours.deleteGroups(['g']), [{ groupId: 'g', errorCode: 0 }]);
  assert.deepEqual((await theirs.listGroups()).groups, []);
  await ours.deleteTopics({ topics: ['b'] });
  assert.deepEqual((await theirs.listTopics()).filter((name) => !name.startsWith('__')), ['a']);

  const missing = await ours.fetchTopicOffsets('nope').catch((e: unknown) => e);
  assert.ok(missing instanceof KafkaJSProtocolError, String(missing));
  assert.equal(missing.type, 'UNKNOWN_TOPIC_OR_PARTITION');
  assert.equal(missing.retriable, true);
});

test('ACLs: created, described and deleted as KafkaJS 2.2.4 does it', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ authorizerClassName: 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', superUsers: 'User:ANONYMOUS' });
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await theirs.connect();
  await ours.connect();
  cleanup.add('admins', async () => { await theirs.disconnect(); await ours.disconnect(); });
  const acl = (resourceName: string, principal: string) => ({
    resourceType: AclResourceTypes.TOPIC, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL,
    principal, host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW,
  });
  assert.equal(await ours.createAcls({ acl: [acl('t1', 'User:alice'), acl('t2', 'User:bob')] }), true);
  await theirs.createAcls({ acl: [acl('t3', 'User:carol')] as never });
  const any = { resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY };
  const described = (d: { resources: { resourceName: string }[] }) => ({ ...d, resources: [...d.resources].sort((a, b) => a.resourceName.localeCompare(b.resourceName)) });
  const theirsAll = described(await theirs.describeAcls(any as never) as never);
  assert.equal(theirsAll.resources.length, 3);
  assert.deepEqual(described(await ours.describeAcls(any)), theirsAll);
  const byName = { ...any, resourceType: AclResourceTypes.TOPIC, resourceName: 't1', resourcePatternType: ResourcePatternTypes.LITERAL };
  assert.deepEqual(described(await ours.describeAcls(byName)), described(await theirs.describeAcls(byName as never) as never));
  const deleted = await ours.deleteAcls({ filters: [byName] });
  await theirs.createAcls({ acl: [acl('t1', 'User:alice')] as never });
  assert.deepEqual(deleted, await theirs.deleteAcls({ filters: [byName] as never }));
  assert.equal(deleted.filterResponses[0]!.matchingAcls.length, 1);
  assert.deepEqual(described(await theirs.describeAcls(any as never) as never).resources.map((r) => r.resourceName), ['t2', 't3']);
  await assert.rejects(ours.deleteAcls({ filters: [] }), KafkaJSNonRetriableError);
});

test('deleteTopicRecords works on the first call of a new admin client (KafkaJS 2.2.4 fails it until its metadata knows the topic)', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const producer = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).producer();
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());
  const setup = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  await setup.connect();
  cleanup.add('setup admin', () => setup.disconnect());
  await setup.createTopics({ topics: [{ topic: 'theirs' }, { topic: 'ours' }] });
  for (const topic of ['theirs', 'ours']) await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });

  // KafkaJS looks the partition's leader up in the metadata it has cached, which a new admin
  // client has only for the topics it has already asked about; its users ask first.
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  await theirs.connect();
  cleanup.add('their admin', () => theirs.disconnect());
  const failed = await theirs.deleteTopicRecords({ topic: 'theirs', partitions: [{ partition: 0, offset: '2' }] }).then(() => null, (e: Error) => e);
  assert.match(String(failed?.name), /^KafkaJS(TopicMetadataNotLoaded|DeleteTopicRecordsError)$/);
  await theirs.fetchTopicOffsets('theirs');
  await theirs.deleteTopicRecords({ topic: 'theirs', partitions: [{ partition: 0, offset: '2' }] });

  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await ours.connect();
  cleanup.add('our admin', () => ours.disconnect());
  await ours.deleteTopicRecords({ topic: 'ours', partitions: [{ partition: 0, offset: '2' }] });
  const offsets = async (topic: string) => (await setup.fetchTopicOffsets(topic)).map((p) => [p.low, p.high]);
  assert.deepEqual(await offsets('ours'), await offsets('theirs'));
  assert.deepEqual(await offsets('ours'), [['2', '3']]);
});
