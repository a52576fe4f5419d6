/**
 * Groups' configs on a broker, over the wire: they survive a restart (group-configs.json in
 * the data directory), the group coordinator tells a consumer group's members its own
 * heartbeat interval, and share.auto.offset.reset decides where a new share group starts
 * reading (the whole path: ShareGroupHeartbeat, the share-state initialization, ShareFetch).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecords } from '../../src/protocol/records/batch-codec.js';
import { GROUP_CONFIG_FILE } from '../../src/broker/group-configs/group-config-store.js';
import { startBrook, tempDir } from '../support/brook.js';
import { produce } from '../support/consumer-helpers.js';

const T = { timeout: 60_000 };
const GROUP = 32;
const SET = 0;
const DELETE = 1;

async function setConfigs(conn: KafkaConnection, group: string, configs: Record<string, string | null>): Promise<void> {
  const res = await conn.request(Api.IncrementalAlterConfigs, {
    resources: [{ resourceType: GROUP, resourceName: group, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: value === null ? DELETE : SET, value })) }],
    validateOnly: false,
  });
  assert.deepEqual(res.responses.map((r) => [r.errorCode, r.errorMessage]), [[ErrorCode.NONE, null]]);
}

async function describeGroup(conn: KafkaConnection, group: string): Promise<string[]> {
  const res = await conn.request(Api.DescribeConfigs, { resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
  return res.results[0]!.configs.filter((c) => c.configSource === 8).map((c) => `${c.name}=${c.value}`).sort();
}

test('a group\'s configs survive a restart; a deleted one is gone; ConsumerGroupHeartbeat answers with the group\'s heartbeat interval', T, async (t) => {
  const dir = tempDir();
  let broker = await startBrook({ dataDir: dir.path });
  let conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  await setConfigs(conn, 'g', { 'consumer.heartbeat.interval.ms': '7000', 'share.delivery.count.limit': '3' });
  await setConfigs(conn, 'h', { 'share.auto.offset.reset': 'earliest' });
  await setConfigs(conn, 'h', { 'share.auto.offset.reset': null });
  assert.ok(existsSync(join(dir.path, GROUP_CONFIG_FILE)));
  conn.close();
  await broker.stop();

  broker = await startBrook({ dataDir: dir.path });
  t.after(() => broker.stop());
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  // After the broker has stopped (hooks run in the order they were added).
  t.after(() => dir.remove());
  assert.deepEqual(await describeGroup(conn, 'g'), ['consumer.heartbeat.interval.ms=7000', 'share.delivery.count.limit=3']);
  assert.deepEqual(await describeGroup(conn, 'h'), []);

  const heartbeat = (groupId: string) => conn.request(Api.ConsumerGroupHeartbeat, {
    groupId, memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  const [g, other] = [await heartbeat('g'), await heartbeat('other')];
  assert.deepEqual([g.errorCode, g.heartbeatIntervalMs], [ErrorCode.NONE, 7000]);
  assert.deepEqual([other.errorCode, other.heartbeatIntervalMs], [ErrorCode.NONE, 5000]);
});

test('share.auto.offset.reset: a new share group with earliest (or by_duration) reads from the log start, one with the broker\'s latest only what comes next', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const created = await conn.request(Api.CreateTopics, { topics: [{ name: 'sh', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, { version: 7 });
  const topicId = created.topics[0]!.topicId!;
  await produce(broker.bootstrap, 'sh', 0, ['a', 'b']);
  await setConfigs(conn, 'early', { 'share.auto.offset.reset': 'earliest' });
  await setConfigs(conn, 'recent', { 'share.auto.offset.reset': 'by_duration:PT1H' });

  /** Joins the share group and heartbeats until the partition is assigned (its share state initialized). */
  async function join(groupId: string, memberId: string): Promise<void> {
    let epoch = 0;
    for (let i = 0; i < 100; i++) {
      const hb = await conn.request(Api.ShareGroupHeartbeat, { groupId, memberId, memberEpoch: epoch, rackId: null, subscribedTopicNames: epoch === 0 ? ['sh'] : null });
      assert.equal(hb.errorCode, ErrorCode.NONE, hb.errorMessage ?? '');
      epoch = hb.memberEpoch;
      if ((hb.assignment?.topicPartitions.length ?? 0) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail(`${groupId}: no assignment`);
  }

  async function fetchValues(groupId: string, memberId: string, epoch: number): Promise<string[]> {
    const res = await conn.request(Api.ShareFetch, {
      groupId, memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
    });
    assert.equal(res.errorCode, ErrorCode.NONE);
    const p = res.responses[0]?.partitions[0];
    return p?.records == null || p.records.length === 0 ? [] : decodeRecords(p.records).map((r) => r.value!.toString());
  }

  const members = { early: 'EEEEEEEEEEEEEEEEEEEEEE', recent: 'RRRRRRRRRRRRRRRRRRRRRR', late: 'LLLLLLLLLLLLLLLLLLLLLL' };
  for (const [group, member] of Object.entries(members)) await join(group, member);
  assert.deepEqual(await fetchValues('early', members.early, 0), ['a', 'b']);
  assert.deepEqual(await fetchValues('recent', members.recent, 0), ['a', 'b']);
  assert.deepEqual(await fetchValues('late', members.late, 0), []);
  await produce(broker.bootstrap, 'sh', 0, ['c']);
  assert.deepEqual(await fetchValues('late', members.late, 1), ['c']);
});
