/**
 * The log cleaner in the broker, on `__consumer_offsets`: many commits roll small
 * segments, the cleaner's timer compacts them, and a restarted broker replays the
 * compacted log into the same committed offsets and group. Also the group settings of
 * `brook broker` (flags and --config properties) reaching the coordinator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { spawnBrook, startBrook, tempDir } from '../support/brook.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { Admin } from '../../src/client/admin.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';
import { parseProperties } from '../../src/util/java-properties.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';

const PROTOCOLS = [{ name: 'range', metadata: Buffer.from('subscription') }];

function joinRequest(groupId: string, memberId: string, sessionTimeoutMs = 30_000) {
  return { groupId, sessionTimeoutMs, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: PROTOCOLS };
}

test('__consumer_offsets is compacted by the cleaner; a restarted broker has the same offsets and group', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path, offsetsTopicSegmentBytes: 4096, logCleanerBackoffMs: 50 });
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  await admin.createTopic({ name: 'known', partitions: 3 });
  admin.close();
  let conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'compaction-test' });
  cleanup.add('close connection', () => conn.close());

  const first = await conn.request(Api.JoinGroup, joinRequest('g', ''), { version: 5 });
  assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  const joined = await conn.request(Api.JoinGroup, joinRequest('g', first.memberId), { version: 5 });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const synced = await conn.request(Api.SyncGroup, {
    groupId: 'g', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null,
    assignments: [{ memberId: joined.memberId, assignment: Buffer.from('assignment') }],
  }, { version: 3 });
  assert.equal(synced.errorCode, ErrorCode.NONE);

  const COMMITS = 300;
  for (let i = 0; i < COMMITS; i++) {
    const partitions = [0, 1, 2].map((p) => ({ partitionIndex: p, committedOffset: BigInt(i * 10 + p), committedLeaderEpoch: -1, committedMetadata: `m${i}` }));
    const commit = await conn.request(Api.OffsetCommit, {
      groupId: 'g', generationIdOrMemberEpoch: joined.generationId, memberId: joined.memberId, groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'known', partitions }],
    }, { version: 8 });
    assert.deepEqual(commit.topics[0]!.partitions.map((p) => p.errorCode), [0, 0, 0]);
  }
  const log = broker.storage.partition('__consumer_offsets', 0)!;
  assert.ok(log.logEndOffset >= BigInt(COMMITS * 3));
  // Uncompacted, 900 offset records take well over 60 KB; compacted, a few records per key plus the active segment.
  await until('__consumer_offsets compacted', 20_000, async () => (log.sizeInBytes < 12_000 ? true : undefined));
  assert.equal(log.logStartOffset, 0n);

  const fetchOffsets = async () => {
    const fetched = await conn.request(Api.OffsetFetch, { groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: null }], requireStable: false }, { version: 8 });
    return fetched.groups![0]!.topics.map((tp) => [tp.name, tp.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.metadata])]);
  };
  const describe = async () => {
    const d = await conn.request(Api.DescribeGroups, { groups: ['g'], includeAuthorizedOperations: false }, { version: 5 });
    return d.groups.map((g) => [g.errorCode, g.groupState, g.protocolType, g.protocolData, g.members.map((m) => [m.memberId, m.memberAssignment.toString()])]);
  };
  const offsetsBefore = await fetchOffsets();
  assert.deepEqual(offsetsBefore, [['known', [0, 1, 2].map((p) => [p, BigInt((COMMITS - 1) * 10 + p), `m${COMMITS - 1}`])]]);
  const groupBefore = await describe();
  assert.deepEqual(groupBefore, [[0, 'Stable', 'consumer', 'range', [[joined.memberId, 'assignment']]]]);

  conn.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path, logCleanerEnable: false });
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'compaction-test' });
  assert.deepEqual(await fetchOffsets(), offsetsBefore);
  assert.deepEqual(await describe(), groupBefore);
  const leftovers = fs.readdirSync(join(dir.path, '__consumer_offsets-0')).filter((n) => /\.(cleaned|swap|deleted)$/.test(n));
  assert.deepEqual(leftovers, []);
});

test('brook broker --group-max-size / --group-*-session-timeout-ms reach the coordinator', { timeout: 60_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await spawnBrook([
    '--port', '0', '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '0',
    '--group-max-size', '2', '--group-min-session-timeout-ms', '2000', '--group-max-session-timeout-ms', '10000',
  ]);
  cleanup.add('stop broker', () => broker.stop());
  const connect = async () => {
    const c = await KafkaConnection.connect({ host: broker.host, port: broker.port, clientId: 'options-test' });
    cleanup.add('close connection', () => c.close());
    return c;
  };
  const [a, b, c] = [await connect(), await connect(), await connect()];

  // Outside [min, max] session timeouts; 3000 ms is below Kafka's default minimum but allowed here.
  for (const sessionTimeoutMs of [1999, 10_001]) {
    const res = await a.request(Api.JoinGroup, joinRequest('sized', '', sessionTimeoutMs), { version: 3 });
    assert.equal(res.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT, `session timeout ${sessionTimeoutMs}`);
  }
  const joinedA = await a.request(Api.JoinGroup, joinRequest('sized', '', 3000), { version: 3 });
  assert.equal(joinedA.errorCode, ErrorCode.NONE);
  // B joins; once the group is rebalancing for it, A rejoins for the new generation. (A
  // rejoin that reached the broker first would complete a generation of A alone at once, as
  // in Kafka, and B would join the one after.)
  const joiningB = b.request(Api.JoinGroup, joinRequest('sized', '', 3000), { version: 3 });
  await until('the group rebalancing for B', 10_000, async () => {
    const described = await c.request(Api.DescribeGroups, { groups: ['sized'] }, { version: 3 });
    return described.groups[0]?.groupState === 'PreparingRebalance' ? true : undefined;
  });
  const rejoinedA = await a.request(Api.JoinGroup, joinRequest('sized', joinedA.memberId, 3000), { version: 3 });
  const joinedB = await joiningB;
  assert.deepEqual([joinedB.errorCode, rejoinedA.errorCode], [ErrorCode.NONE, ErrorCode.NONE]);
  assert.equal(rejoinedA.members.length, 2);
  const third = await c.request(Api.JoinGroup, joinRequest('sized', '', 3000), { version: 3 });
  assert.equal(third.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
});

test('--config FILE: group, offsets and log cleaner properties', () => {
  const config = configFromProperties(parseProperties([
    'group.min.session.timeout.ms=1000', 'group.max.session.timeout.ms=20000', 'group.max.size=5',
    'offsets.retention.minutes=60', 'offsets.retention.check.interval.ms=1000', 'offsets.topic.segment.bytes=1048576',
    'log.cleaner.enable=false', 'log.cleaner.backoff.ms=500',
  ].join('\n')));
  assert.deepEqual(config, {
    groupMinSessionTimeoutMs: 1000, groupMaxSessionTimeoutMs: 20_000, groupMaxSize: 5, offsetsRetentionMs: 3_600_000,
    offsetsRetentionCheckIntervalMs: 1000, offsetsTopicSegmentBytes: 1_048_576, logCleanerEnable: false, logCleanerBackoffMs: 500,
  });
  assert.throws(() => configFromProperties(parseProperties('group.max.size=0')), /at least 1/);
});
