/**
 * Brook's broker embedded in a program, as an application's test suite uses it: started from
 * the package root in memory on an OS-chosen port, stopped by `await using`; several brokers
 * in one process share nothing (topics, groups, committed offsets, as a third-party client
 * sees them); a custom assignor belongs to the consumer given it; a failed start leaves
 * nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Broker, Consumer, Producer, UnknownAssignorError, silentLogger, type AssignmentInput, type MemberAssignment, type PartitionAssignor } from '../../src/index.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';

const quiet = { log: silentLogger, groupInitialRebalanceDelayMs: 0 } as const;

/** Whether something accepts TCP connections at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('Broker.start({ port: 0, dataDir: null }) from the package root: bootstrapServers names the bound port; `await using` stops it', { timeout: 20_000 }, async () => {
  let port: number;
  {
    await using broker = await Broker.start({ port: 0, dataDir: null, ...quiet });
    assert.match(broker.bootstrapServers, /^127\.0\.0\.1:\d+$/);
    port = Number(broker.bootstrapServers.split(':')[1]);
    assert.ok(port > 0);
    const admin = kafkaJs(broker.bootstrapServers, 'embedding-admin').admin();
    await admin.connect();
    try {
      const cluster = await admin.describeCluster();
      assert.deepEqual(cluster.brokers.map((b) => `${b.host}:${b.port}`), [broker.bootstrapServers]);
    } finally {
      await admin.disconnect();
    }
    assert.equal(await accepts('127.0.0.1', port), true);
  }
  assert.equal(await accepts('127.0.0.1', port), false, 'stopped at the end of the scope');
});

test('two brokers in one process share nothing: topics, groups and committed offsets of one are not in the other', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const a = await Broker.start({ port: 0, dataDir: null, ...quiet });
  cleanup.add('stop a', () => a.stop());
  const b = await Broker.start({ port: 0, dataDir: null, ...quiet });
  cleanup.add('stop b', () => b.stop());
  assert.notEqual(a.bootstrapServers, b.bootstrapServers);

  // The same topic name in both; records, the group and its offsets only in a.
  b.createTopic('events', 1);
  const producer = new Producer({ bootstrapServers: a.bootstrapServers });
  cleanup.add('close producer', () => producer.close());
  await producer.send({ topic: 'events', key: 'k', value: 'v' });
  const consumer = new Consumer({ bootstrapServers: a.bootstrapServers, groupId: 'group-of-a', autoOffsetReset: 'earliest', heartbeatIntervalMs: 100 });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['events']);
  const deadline = Date.now() + 20_000;
  let read = 0;
  while (read === 0 && Date.now() < deadline) read += (await consumer.poll({ timeoutMs: 200 })).length;
  assert.equal(read, 1);
  await consumer.poll({ timeoutMs: 0 });
  await consumer.commitSync();

  // KafkaJS's view of each broker.
  const view = async (bootstrap: string) => {
    const admin = kafkaJs(bootstrap, 'isolation-admin').admin();
    await admin.connect();
    try {
      const cluster = await admin.describeCluster();
      const topics = (await admin.listTopics()).filter((name) => !name.startsWith('__')).sort();
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).sort();
      const offsets = await admin.fetchOffsets({ groupId: 'group-of-a', topics: ['events'] }).catch((err: Error) => err.message);
      return { clusterId: cluster.clusterId, topics, groups, offsets: typeof offsets === 'string' ? offsets : offsets.flatMap((o) => o.partitions.map((p) => p.offset)) };
    } finally {
      await admin.disconnect();
    }
  };
  const inA = await view(a.bootstrapServers);
  const inB = await view(b.bootstrapServers);
  assert.deepEqual(inA.topics, ['events']);
  assert.deepEqual(inA.groups, ['group-of-a']);
  assert.deepEqual(inA.offsets, ['1']);
  assert.deepEqual(inB.topics, ['events']);
  assert.deepEqual(inB.groups, []);
  assert.deepEqual(inB.offsets, ['-1'], 'no committed offset of the other broker');
  assert.notEqual(inA.clusterId, inB.clusterId);
});

/** Every partition to the first member (by member id): visibly not what range would do with two members. */
class AllToFirst implements PartitionAssignor {
  readonly name = 'all-to-first';
  readonly supportedProtocols = ['eager'] as const;
  assigned = 0;
  subscriptionUserData(): Buffer | null {
    return null;
  }

  assign(input: AssignmentInput): Map<string, MemberAssignment> {
    this.assigned++;
    const ids = input.members.map((m) => m.memberId).sort();
    const all = [...input.partitionsPerTopic].flatMap(([topic, n]) => Array.from({ length: n }, (_, partition) => ({ topic, partition })));
    return new Map(ids.map((id, i) => [id, { partitions: i === 0 ? all : [], userData: null }]));
  }

  onAssignment(): void {}
}

test('a custom assignor given to one consumer is that consumer\'s: another consumer in the process cannot name it', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await Broker.start({ port: 0, dataDir: null, ...quiet });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('custom-topic', 3);
  const custom = new AllToFirst();
  const owner = new Consumer({ bootstrapServers: broker.bootstrapServers, groupId: 'custom-group', assignors: [custom], heartbeatIntervalMs: 100 });
  cleanup.add('close owner', () => owner.close());
  owner.subscribe(['custom-topic']);
  const deadline = Date.now() + 20_000;
  while (owner.assignment().length < 3 && Date.now() < deadline) await owner.poll({ timeoutMs: 100 });
  assert.equal(owner.assignment().length, 3);
  assert.ok(custom.assigned > 0, 'the custom assignor ran');

  const other = new Consumer({ bootstrapServers: broker.bootstrapServers, groupId: 'other-group', assignors: ['all-to-first'] });
  cleanup.add('close other', () => other.close());
  assert.throws(() => other.subscribe(['custom-topic']), (err: unknown) => err instanceof UnknownAssignorError && /all-to-first/.test(err.message));
});
