/**
 * The `brook groups` actions that go beyond describe/list/reset-to-a-point: reset
 * --to-current, --by-duration, --export and --from-file, delete-offsets, describe --members
 * and --state with a live KafkaJS member, and lag --watch (plain output when not a TTY,
 * exit 0 on SIGINT; redrawn in place on a TTY). Expected values come from KafkaJS: the
 * timestamps and offsets it produced and committed, and what its admin client describes.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { projectRoot, startBrook, tempDir } from '../support/brook.js';
import { runProcess, until } from '../support/clients/run.js';
import { createTopicWithKafkaJs, kafkaJs } from '../support/clients/kafkajs.js';
import { watch } from '../../src/cli/commands/groups-lag.js';

const BIN = join(projectRoot, 'bin', 'brook');
const TOPIC = 'ga';
const PARTITIONS = 3;
/** Per partition: OLD records stamped two hours ago, then NEW records stamped now. */
const OLD = 5;
const NEW = 5;

let broker: Awaited<ReturnType<typeof startBrook>>;
const dir = tempDir();

before(async () => {
  broker = await startBrook();
  await createTopicWithKafkaJs(broker.bootstrap, TOPIC, PARTITIONS);
  const producer = kafkaJs(broker.bootstrap).producer();
  await producer.connect();
  const old = String(Date.now() - 2 * 3_600_000);
  for (let p = 0; p < PARTITIONS; p++) {
    // Old and new records in batches of their own: KafkaJS's batch header carries the
    // largest timestamp given explicitly (records stamped "now" do not count), and Brook's
    // broker searches by that header where Kafka's recomputes it on append.
    await producer.send({ topic: TOPIC, messages: Array.from({ length: OLD }, (_, i) => ({ partition: p, value: `old-${i}`, timestamp: old })) });
    await producer.send({ topic: TOPIC, messages: Array.from({ length: NEW }, (_, i) => ({ partition: p, value: `new-${i}` })) });
  }
  await producer.disconnect();
});

after(async () => {
  await broker.stop();
  dir.remove();
});

function brook(args: readonly string[]) {
  return runProcess(process.execPath, [BIN, ...args, '-b', broker.bootstrap], { timeoutMs: 30_000 });
}

/** Committed offsets as KafkaJS's admin client reads them (-1: none). */
async function committed(group: string): Promise<Map<number, number>> {
  const admin = kafkaJs(broker.bootstrap).admin();
  await admin.connect();
  try {
    const [topic] = await admin.fetchOffsets({ groupId: group, topics: [TOPIC] });
    return new Map(topic!.partitions.map((p) => [p.partition, Number(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}

async function setOffsets(group: string, offsets: Record<number, number>): Promise<void> {
  const admin = kafkaJs(broker.bootstrap).admin();
  await admin.connect();
  try {
    await admin.setOffsets({ groupId: group, topic: TOPIC, partitions: Object.entries(offsets).map(([p, o]) => ({ partition: Number(p), offset: String(o) })) });
  } finally {
    await admin.disconnect();
  }
}

const planOf = (stdout: string): [string, string][] => JSON.parse(stdout).map((p: { topic: string; partition: number; offset: number }) => [`${p.topic}:${p.partition}`, String(p.offset)]);

test('reset-offsets --to-current: the committed offset, the log end where none; --by-duration: the first record newer than now - D', async () => {
  await setOffsets('g-current', { 0: 2, 2: 7 });
  const current = await brook(['groups', 'reset-offsets', 'g-current', '--topic', TOPIC, '--to-current', '--json']);
  assert.equal(current.code, 0, current.stderr);
  assert.deepEqual(planOf(current.stdout), [[`${TOPIC}:0`, '2'], [`${TOPIC}:1`, String(OLD + NEW)], [`${TOPIC}:2`, '7']]);
  const hour = await brook(['groups', 'reset-offsets', 'g-current', '--topic', TOPIC, '--by-duration', 'PT1H', '--json']);
  assert.equal(hour.code, 0, hour.stderr);
  assert.deepEqual(planOf(hour.stdout).map(([, o]) => o), ['5', '5', '5'], 'the old records are two hours old');
  const days = await brook(['groups', 'reset-offsets', 'g-current', '--topic', TOPIC, '--by-duration', 'P1DT0.5S', '--json']);
  assert.deepEqual(planOf(days.stdout).map(([, o]) => o), ['0', '0', '0']);
  const bad = await brook(['groups', 'reset-offsets', 'g-current', '--topic', TOPIC, '--by-duration', '1h']);
  assert.equal(bad.code, 2);
});

test('reset-offsets --export writes Kafka\'s CSV; --from-file reads it (and group,topic,partition,offset lines), clamped into the log, --execute commits it', async () => {
  await setOffsets('g-file', { 0: 1, 1: 4, 2: 9 });
  const exported = await brook(['groups', 'reset-offsets', 'g-file', '--all-topics', '--to-current', '--export']);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(exported.stdout, `${TOPIC},0,1\n${TOPIC},1,4\n${TOPIC},2,9\n`);
  await setOffsets('g-file', { 0: 0, 1: 0, 2: 0 });
  const planFile = join(dir.path, 'plan.csv');
  writeFileSync(planFile, exported.stdout);
  const applied = await brook(['groups', 'reset-offsets', 'g-file', '--from-file', planFile, '--execute']);
  assert.equal(applied.code, 0, applied.stderr);
  assert.deepEqual([...(await committed('g-file'))].sort(), [[0, 1], [1, 4], [2, 9]]);
  writeFileSync(planFile, `other,${TOPIC},0,3\ng-file,${TOPIC},0,999\ng-file,${TOPIC},2,6\n`);
  const grouped = await brook(['groups', 'reset-offsets', 'g-file', '--from-file', planFile, '--json']);
  assert.equal(grouped.code, 0, grouped.stderr);
  assert.deepEqual(planOf(grouped.stdout), [[`${TOPIC}:0`, String(OLD + NEW)], [`${TOPIC}:2`, '6']]);
  writeFileSync(planFile, `other,${TOPIC},0,3\n`);
  const none = await brook(['groups', 'reset-offsets', 'g-file', '--from-file', planFile]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No reset plan for group g-file found\./);
});

test('delete-offsets removes the committed offsets of the partitions given (KafkaJS then reads none)', async () => {
  await setOffsets('g-del', { 0: 3, 1: 3, 2: 3 });
  const r = await brook(['groups', 'delete-offsets', 'g-del', '--topic', `${TOPIC}:0,2`]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Request succeeded for deleting offsets from group g-del\./);
  assert.match(r.stdout, new RegExp(`^${TOPIC}\\s+0\\s+Successful$`, 'm'));
  assert.deepEqual([...(await committed('g-del'))].sort(), [[0, -1], [1, 3], [2, -1]]);
  const unknown = await brook(['groups', 'delete-offsets', 'g-del', '--topic', 'no-such-topic']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stdout, /no-such-topic\s+-\s+Error: UNKNOWN_TOPIC_OR_PARTITION/);
});

test('describe --members and --state with a live KafkaJS member agree with KafkaJS\'s describeGroups; delete-offsets of its subscribed topic is refused', { timeout: 60_000 }, async (t) => {
  const consumer = kafkaJs(broker.bootstrap, 'kjs-member').consumer({ groupId: 'g-live', sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
  t.after(() => consumer.disconnect());
  const admin = kafkaJs(broker.bootstrap).admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const described = await until('KafkaJS member Stable', 30_000, async () => {
    const { groups } = await admin.describeGroups(['g-live']);
    return groups[0]?.state === 'Stable' && groups[0].members.length === 1 ? groups[0] : undefined;
  });
  const member = described.members[0]!;
  const cluster = await admin.describeCluster();

  const members = await brook(['groups', 'describe', 'g-live', '--members']);
  assert.equal(members.code, 0, members.stderr);
  const lines = members.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
  assert.deepEqual(lines[0], ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']);
  assert.deepEqual(lines[1], ['g-live', member.memberId, member.clientHost, member.clientId, String(PARTITIONS)]);

  const state = await brook(['groups', 'describe', 'g-live', '--state']);
  assert.equal(state.code, 0, state.stderr);
  const rows = state.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
  const coordinator = cluster.brokers.find((b) => b.nodeId === cluster.controller) ?? cluster.brokers[0]!;
  assert.deepEqual(rows[0], ['GROUP', 'COORDINATOR', '(ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS']);
  assert.deepEqual(rows[1], ['g-live', `${coordinator.host}:${coordinator.port}`, `(${coordinator.nodeId})`, described.protocol, 'Stable', '1']);

  const verbose = await brook(['groups', 'describe', 'g-live', '--members', '--verbose', '--json']);
  assert.deepEqual((JSON.parse(verbose.stdout) as { members: { memberId: string }[] }).members.map((m) => m.memberId), [member.memberId]);

  const refused = await brook(['groups', 'delete-offsets', 'g-live', '--topic', TOPIC]);
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /Error: GROUP_SUBSCRIBED_TO_TOPIC/);
  assert.equal(refused.stderr.trim(), 'brook groups: Encountered some partition-level error, see the follow-up details.');
});

test('lag --watch when stdout is not a TTY: the table again after each timestamped header; SIGINT ends it with exit 0', { timeout: 30_000 }, async () => {
  await setOffsets('g-watch', { 0: 1, 1: 2, 2: 3 });
  const child = spawn(process.execPath, [BIN, 'groups', 'lag', 'g-watch', '--watch', '--interval', '0.2', '-b', broker.bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  await until('two refreshes', 20_000, async () => ((out.match(/^Every 0.2s: brook groups lag g-watch /gm) ?? []).length >= 2 ? true : undefined), 50);
  child.kill('SIGINT');
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.ok(!out.includes('\x1b['), 'no terminal escapes in a pipe');
  const lags = out.split('\n').filter((l) => l.startsWith('g-watch ')).slice(0, 3).map((l) => l.trim().split(/\s+/).slice(1, 6));
  assert.deepEqual(lags, [0, 1, 2].map((p) => [TOPIC, String(p), String(p + 1), String(OLD + NEW), String(OLD + NEW - p - 1)]));
});

test('watch on a TTY redraws in place (cursor home, clear each line and below) and returns when aborted', async () => {
  const written: string[] = [];
  const out = new Writable({ write(chunk: Buffer, _enc, cb) { written.push(chunk.toString()); cb(); } });
  const stop = new AbortController();
  let renders = 0;
  await watch(async () => {
    if (++renders === 2) stop.abort();
    return `row ${renders}`;
  }, { out, tty: true, intervalMs: 10, title: 'brook groups lag g', signal: stop.signal, now: () => new Date(0) });
  assert.equal(renders, 2);
  assert.deepEqual(written, [1, 2].map((n) => `\x1b[HEvery 0.01s: brook groups lag g    1970-01-01T00:00:00.000Z\x1b[K\n\x1b[K\nrow ${n}\x1b[K\n\x1b[J`));
});
