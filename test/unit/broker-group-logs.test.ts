/**
 * The group lifecycle lines the broker logs at info, read in the JSON format:
 * - a KafkaJS group: each member joining, the rebalances it starts (with the reason) and
 *   their completion (generation, members), a member leaving; member ids and generations
 *   as KafkaJS's GROUP_JOIN events report them;
 * - a consumer-protocol group (Brook's client): the member joining, the new group epoch, the
 *   member leaving and the group going Empty;
 * - a member that stops heartbeating expires (session timeout); offsets past
 *   offsets.retention.minutes expire and take their Empty group with them; DeleteGroups.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Consumer as KafkaJsConsumer } from 'kafkajs';
import { startBrook } from '../support/brook.js';
import { kafkaJs, createTopicWithKafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { Consumer } from '../../src/index.js';
import { createLogger, type Logger } from '../../src/util/log.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const TIMEOUT = { timeout: 60_000 };

interface Line {
  readonly level: string;
  readonly logger: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A JSON-format logger whose lines the test reads. */
function capture(): { log: Logger; lines: Line[]; lifecycle(group: string): Line[] } {
  const lines: Line[] = [];
  const log = createLogger('broker', 'info', (text) => void lines.push(JSON.parse(text) as Line), 'json');
  return { log, lines, lifecycle: (group) => lines.filter((l) => l.logger === 'broker:coordinator' && l['group'] === group) };
}

/** The fields a line is checked on (the rest, such as durations and client hosts, vary). */
function summary(l: Line): Record<string, unknown> {
  const out: Record<string, unknown> = { msg: l.msg };
  for (const k of ['member', 'cause', 'generation', 'members', 'state']) if (l[k] !== undefined) out[k] = l[k];
  return out;
}

test('a KafkaJS group: member joined, rebalance started (reason) and completed (generation, members), member left', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const { log, lifecycle } = capture();
  const broker = await startBrook({ log });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'logs-classic';
  const group = 'logs-classic-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 2);
  const kafka = kafkaJs(broker.bootstrap, 'logs-test');

  const joins: { memberId: string }[][] = [[], []];
  const start = async (i: number): Promise<KafkaJsConsumer> => {
    const c = kafka.consumer({ groupId: group, sessionTimeout: 6_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 100 });
    c.on(c.events.GROUP_JOIN, (e) => void joins[i]!.push({ memberId: e.payload.memberId }));
    cleanup.add(`consumer ${i} disconnect`, () => c.disconnect());
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    await c.run({ eachMessage: async () => undefined });
    return c;
  };
  await start(0);
  await until('the first member joined', 20_000, async () => (joins[0]!.length === 1 ? true : undefined));
  const second = await start(1);
  await until('both in the next generation', 20_000, async () => (joins[0]!.length === 2 && joins[1]!.length === 1 ? true : undefined));
  await second.disconnect();
  await until('the first rejoined alone', 20_000, async () => (joins[0]!.length === 3 ? true : undefined));
  await until('the rebalance logged as completed', 5_000, async () => (lifecycle(group).filter((l) => l.msg === 'rebalance completed').length === 3 ? true : undefined));

  const a = joins[0]![0]!.memberId;
  const b = joins[1]![0]!.memberId;
  const lines = lifecycle(group);
  assert.deepEqual(lines.map(summary), [
    { msg: 'member joined', member: a },
    { msg: 'rebalance started', generation: 0, members: 1 },
    { msg: 'rebalance completed', generation: 1, members: 1, state: 'Stable' },
    { msg: 'member joined', member: b },
    { msg: 'rebalance started', generation: 1, members: 2 },
    { msg: 'rebalance completed', generation: 2, members: 2, state: 'Stable' },
    { msg: 'member left', member: b, cause: 'left' },
    { msg: 'rebalance started', generation: 2, members: 1 },
    { msg: 'rebalance completed', generation: 3, members: 1, state: 'Stable' },
  ]);
  assert.ok(lines.every((l) => l.level === 'info' && l['type'] === 'classic'));
  const reasons = lines.filter((l) => l.msg === 'rebalance started').map((l) => String(l['reason']));
  assert.match(reasons[0]!, new RegExp(`adding new member ${a}`));
  assert.match(reasons[1]!, new RegExp(`adding new member ${b}`));
  assert.match(reasons[2]!, new RegExp(`removing member ${b} on LeaveGroup`));
  for (const l of lines.filter((x) => x.msg === 'rebalance completed')) assert.equal(typeof l['durationMs'], 'number');
  assert.equal(lines.find((l) => l.msg === 'member joined')!['clientId'], 'logs-test');
});

test('a consumer-protocol group: member joined, the new group epoch, member left, the group Empty', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const { log, lifecycle } = capture();
  const broker = await startBrook({ log });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('logs-cg', 2);
  const group = 'logs-cg-group';
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: group, groupProtocol: 'consumer', clientId: 'logs-cg', fetchMaxWaitMs: 50 });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['logs-cg']);
  await until('the member has both partitions', 20_000, async () => {
    await consumer.poll({ timeoutMs: 50 });
    return consumer.assignment().length === 2 ? true : undefined;
  });
  const { memberId, generationId } = consumer.groupMetadata();
  await consumer.close();
  await until('the leave logged', 5_000, async () => (lifecycle(group).length === 6 ? true : undefined));

  assert.deepEqual(lifecycle(group).map(summary), [
    { msg: 'member joined', member: memberId },
    { msg: 'rebalance started', generation: generationId, members: 1 },
    { msg: 'rebalance completed', generation: generationId, members: 1, state: 'Stable' },
    { msg: 'member left', member: memberId, cause: 'left' },
    { msg: 'rebalance started', generation: generationId + 1, members: 0 },
    { msg: 'rebalance completed', generation: generationId + 1, members: 0, state: 'Empty' },
  ]);
  assert.ok(lifecycle(group).every((l) => l['type'] === 'consumer'));
});

test('a member that stops heartbeating expires; offsets past retention expire with their Empty group; DeleteGroups', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const { log, lifecycle } = capture();
  const broker = await startBrook({ log, groupMinSessionTimeoutMs: 100 });
  cleanup.add('stop broker', () => broker.stop());
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'logs-raw' });
  cleanup.add('close connection', () => conn.close());

  // JoinGroup v3 (no KIP-394 member id round trip), the leader's SyncGroup, then silence.
  const group = 'logs-expiring';
  const joined = await conn.request('JoinGroup', 3, {
    groupId: group, sessionTimeoutMs: 300, rebalanceTimeoutMs: 1_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }],
  });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const synced = await conn.request('SyncGroup', 3, { groupId: group, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, assignments: [] });
  assert.equal(synced.errorCode, ErrorCode.NONE);
  await until('the member expired', 10_000, async () => (lifecycle(group).some((l) => l.msg === 'rebalance completed' && l['state'] === 'Empty') ? true : undefined));
  const lines = lifecycle(group);
  assert.deepEqual(lines.map(summary).slice(3), [
    { msg: 'member expired', member: joined.memberId, cause: 'session-timeout' },
    { msg: 'rebalance started', generation: joined.generationId, members: 0 },
    { msg: 'rebalance completed', generation: joined.generationId + 1, members: 0, state: 'Empty' },
  ]);
  assert.match(String(lines[4]!['reason']), /heartbeat expiration/);

  const deleted = await conn.request('DeleteGroups', 2, { groupsNames: [group] });
  assert.equal(deleted.results[0]!.errorCode, ErrorCode.NONE);
  await until('the deletion logged', 5_000, async () => (lifecycle(group).at(-1)?.msg === 'group deleted' ? true : undefined));
  assert.equal(lifecycle(group).at(-1)!['reason'], 'DeleteGroups');

  // Offsets of a simple group, past offsets.retention.minutes at the next check.
  const { log: log2, lifecycle: lifecycle2 } = capture();
  const expiring = await startBrook({ log: log2, offsetsRetentionMs: 200, offsetsRetentionCheckIntervalMs: 100 });
  cleanup.add('stop second broker', () => expiring.stop());
  expiring.createTopic('logs-offsets', 2);
  const conn2 = await RawConnection.connect(expiring.host, expiring.port, { clientId: 'logs-raw' });
  cleanup.add('close second connection', () => conn2.close());
  const commit = await conn2.request('OffsetCommit', 2, {
    groupId: 'logs-simple', generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: -1n,
    topics: [{ name: 'logs-offsets', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }, { partitionIndex: 1, committedOffset: 0n, committedMetadata: null }] }],
  });
  assert.deepEqual(commit.topics[0]!.partitions.map((p) => p.errorCode), [ErrorCode.NONE, ErrorCode.NONE]);
  await until('the offsets expired', 10_000, async () => (lifecycle2('logs-simple').length === 2 ? true : undefined));
  assert.deepEqual(lifecycle2('logs-simple').map((l) => [l.msg, l['count'] ?? l['reason']]), [
    ['offsets expired', 2],
    ['group deleted', 'its offsets expired and it has no members'],
  ]);
});
