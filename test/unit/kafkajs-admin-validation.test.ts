/**
 * brook/kafkajs's admin checks its arguments as KafkaJS 2.2.4 does: for each bad argument, the
 * error class name and message are compared with what the real KafkaJS admin client throws
 * for the same call (the oracle). And, as in KafkaJS, admin calls work before connect().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

type AnyAdmin = Record<string, (...args: unknown[]) => Promise<unknown>>;

/** Bad calls, each `[method, ...args]`. */
const BAD_CALLS: [string, ...unknown[]][] = [
  ['createTopics', { topics: null }],
  ['createTopics', { topics: 'this-is-not-an-array' }],
  ['createTopics', { topics: [{ topic: 123 }] }],
  ['createTopics', { topics: [{ topic: 'topic-123' }, { topic: 'topic-123' }] }],
  ['createTopics', { topics: [{ topic: 'topic-123', configEntries: 'this-is-not-an-array' }] }],
  ['createTopics', { topics: [{ topic: 'topic-123', configEntries: ['this-is-not-an-object'] }] }],
  ['createTopics', { topics: [{ topic: 'topic-123', configEntries: [{ name: 'missing-value' }] }] }],
  ['createTopics', { topics: [{ topic: 'topic-123', configEntries: [{ value: 'missing-name' }] }] }],
  ['createPartitions', { topicPartitions: null }],
  ['createPartitions', { topicPartitions: [] }],
  ['createPartitions', { topicPartitions: [{ topic: 123 }] }],
  ['createPartitions', { topicPartitions: [{ topic: 'a', count: 2 }, { topic: 'a', count: 3 }] }],
  ['deleteTopics', { topics: null }],
  ['deleteTopics', { topics: [123] }],
  ['fetchTopicOffsets', null],
  ['fetchTopicOffsetsByTimestamp', 123, 0],
  ['fetchTopicMetadata', { topics: [''] }],
  ['fetchOffsets', { groupId: null, topics: ['a'] }],
  ['fetchOffsets', { groupId: 'g', topics: 'a' }],
  ['setOffsets', { groupId: null, topic: 'a', partitions: [{ partition: 0, offset: '0' }] }],
  ['setOffsets', { groupId: 'g', topic: null, partitions: [{ partition: 0, offset: '0' }] }],
  ['setOffsets', { groupId: 'g', topic: 'a', partitions: [] }],
  ['resetOffsets', { groupId: null, topic: 'a' }],
  ['resetOffsets', { groupId: 'g', topic: null }],
  ['describeConfigs', { resources: null }],
  ['describeConfigs', { resources: [] }],
  ['describeConfigs', { resources: [{ type: 99, name: 'a' }] }],
  ['describeConfigs', { resources: [{ type: 2, name: 123 }] }],
  ['describeConfigs', { resources: [{ type: 2, name: 'a', configNames: 'x' }] }],
  ['alterConfigs', { resources: null }],
  ['alterConfigs', { resources: [] }],
  ['alterConfigs', { resources: [{ type: 99, name: 'a', configEntries: [] }] }],
  ['alterConfigs', { resources: [{ type: 2, name: '', configEntries: [] }] }],
  ['alterConfigs', { resources: [{ type: 2, name: 'a', configEntries: 'x' }] }],
  ['alterConfigs', { resources: [{ type: 2, name: 'a', configEntries: [{ name: 'x', value: 1 }] }] }],
  ['deleteGroups', null],
  ['deleteGroups', ['ok', 123]],
  ['deleteTopicRecords', { topic: null, partitions: [{ partition: 0, offset: '0' }] }],
  ['deleteTopicRecords', { topic: 'a', partitions: [] }],
  ...aclCalls(),
];

/** createAcls, deleteAcls and describeAcls with each field of a good ACL spoilt in turn. */
function aclCalls(): [string, ...unknown[]][] {
  const good = { resourceType: 2, resourceName: 'foo', resourcePatternType: 3, principal: 'User:foo', host: '*', operation: 4, permissionType: 3 };
  const spoilt = [{ principal: 123 }, { host: 123 }, { resourceName: 123 }, { operation: 123 }, { resourcePatternType: 123 }, { permissionType: 123 }, { resourceType: 123 }];
  return [
    ['createAcls', { acl: null }],
    ['createAcls', { acl: [] }],
    ['deleteAcls', { filters: 'x' }],
    ['deleteAcls', { filters: [] }],
    ...spoilt.flatMap((bad): [string, ...unknown[]][] => [
      ['createAcls', { acl: [good, { ...good, ...bad }] }],
      ['deleteAcls', { filters: [{ ...good, ...bad }] }],
      ['describeAcls', { ...good, ...bad }],
    ]),
  ];
}

async function thrown(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'resolved';
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

test('bad admin arguments are refused with KafkaJS 2.2.4\'s error and message, before any request', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin() as unknown as AnyAdmin;
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin() as unknown as AnyAdmin;
  await theirs['connect']!();
  await ours['connect']!();
  cleanup.add('admins', async () => { await theirs['disconnect']!(); await ours['disconnect']!(); });
  for (const [method, ...args] of BAD_CALLS) {
    const expected = await thrown(() => theirs[method]!(...args));
    assert.match(expected, /^KafkaJSNonRetriableError: /, `${method}(${JSON.stringify(args)}): KafkaJS refuses it`);
    assert.equal(await thrown(() => ours[method]!(...args)), expected, `${method}(${JSON.stringify(args)})`);
  }
});

test('admin calls before connect() connect first, as KafkaJS\'s do; no CONNECT event is emitted for it', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  cleanup.add('admins', async () => { await theirs.disconnect(); await ours.disconnect(); });
  const connects: string[] = [];
  theirs.on(theirs.events.CONNECT, () => connects.push('theirs'));
  ours.on(ours.events.CONNECT, () => connects.push('ours'));
  assert.equal(await theirs.createTopics({ topics: [{ topic: 'lazy-a', numPartitions: 2 }] }), true);
  assert.equal(await ours.createTopics({ topics: [{ topic: 'lazy-b', numPartitions: 2 }] }), true);
  assert.deepEqual((await ours.listTopics()).sort(), (await theirs.listTopics()).sort());
  assert.deepEqual(connects, []);
  // After disconnect(), a call connects again (KafkaJS's cluster reconnects on demand).
  await ours.disconnect();
  assert.deepEqual((await ours.fetchTopicMetadata({ topics: ['lazy-b'] })).topics.map((x) => x.partitions.length), [2]);
});

test('on() with an unknown event name throws KafkaJS\'s message for producer, consumer and admin; event ids are numbers, as KafkaJS\'s', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const message = (f: () => unknown): string => {
    try {
      f();
      return 'no error';
    } catch (err) {
      return (err as Error).message;
    }
  };
  const make = (k: real.Kafka | Kafka) => [k.producer(), k.consumer({ groupId: 'g' }), k.admin()] as { on(e: string, l: () => void): unknown }[];
  const [theirClients, ourClients] = [make(theirs), make(ours)];
  for (let i = 0; i < 3; i++) {
    assert.equal(message(() => ourClients[i]!.on('NON_EXISTENT_EVENT', () => undefined)), message(() => theirClients[i]!.on('NON_EXISTENT_EVENT', () => undefined)));
  }
  const ids: unknown[] = [];
  const theirAdmin = theirs.admin();
  const ourAdmin = ours.admin();
  theirAdmin.on(theirAdmin.events.CONNECT, (e) => ids.push(typeof e.id));
  ourAdmin.on(ourAdmin.events.CONNECT, (e) => ids.push(typeof e.id));
  await theirAdmin.connect();
  await ourAdmin.connect();
  await theirAdmin.disconnect();
  await ourAdmin.disconnect();
  assert.deepEqual(ids, ['number', 'number']);
});

test('a group that does not exist is described as Dead, and offsets of a running group are not moved: as KafkaJS 2.2.4 answers', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const theirKafka = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const theirs = theirKafka.admin();
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await theirs.connect();
  await ours.connect();
  cleanup.add('admins', async () => { await theirs.disconnect(); await ours.disconnect(); });
  assert.deepEqual(await ours.describeGroups(['no-such-group']), await theirs.describeGroups(['no-such-group']));

  await theirs.createTopics({ topics: [{ topic: 'running', numPartitions: 1 }] });
  const member = theirKafka.consumer({ groupId: 'running-group', maxWaitTimeInMs: 100 });
  cleanup.add('member', () => member.disconnect());
  await member.connect();
  await member.subscribe({ topic: 'running', fromBeginning: true });
  const joined = new Promise((resolve) => member.on(member.events.GROUP_JOIN, resolve));
  await member.run({ eachMessage: async () => undefined });
  await joined;
  const set = { groupId: 'running-group', topic: 'running', partitions: [{ partition: 0, offset: '0' }] };
  const reset = { groupId: 'running-group', topic: 'running', earliest: true };
  const expected = await thrown(() => theirs.setOffsets(set));
  assert.equal(expected, 'KafkaJSNonRetriableError: The consumer group must have no running instances, current state: Stable');
  assert.equal(await thrown(() => ours.setOffsets(set)), expected);
  assert.equal(await thrown(() => ours.resetOffsets(reset)), await thrown(() => theirs.resetOffsets(reset)));
});

test('deleteGroups tries every group and reports the refused ones in a KafkaJSDeleteGroupsError, as KafkaJS 2.2.4', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const theirKafka = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const theirs = theirKafka.admin();
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await theirs.connect();
  await ours.connect();
  cleanup.add('admins', async () => { await theirs.disconnect(); await ours.disconnect(); });
  await theirs.createTopics({ topics: [{ topic: 'dg', numPartitions: 1 }] });
  for (const g of ['empty-theirs', 'empty-ours']) await theirs.setOffsets({ groupId: g, topic: 'dg', partitions: [{ partition: 0, offset: '0' }] });
  const refusal = async (call: () => Promise<unknown>): Promise<unknown> => {
    try {
      return ['resolved', await call()];
    } catch (err) {
      const e = err as Error & { groups?: { groupId: string; errorCode: number; error: Error }[] };
      return [e.name, e.message, e.groups?.map((g) => [g.groupId.replace(/-(theirs|ours)$/, ''), g.errorCode, g.error.name])];
    }
  };
  const expected = await refusal(() => theirs.deleteGroups(['empty-theirs', 'missing-theirs']));
  assert.deepEqual(expected, ['KafkaJSDeleteGroupsError', 'Error in DeleteGroups', [['missing', 69, 'KafkaJSProtocolError']]]);
  assert.deepEqual(await refusal(() => ours.deleteGroups(['empty-ours', 'missing-ours'])), expected);
  // The group that could be deleted was.
  assert.deepEqual((await theirs.listGroups()).groups.filter((g) => g.groupId.startsWith('empty-')), []);
});
