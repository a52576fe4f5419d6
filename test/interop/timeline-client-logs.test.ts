/**
 * The flight recorder's timeline against what clients Brook did not write say about their
 * own rebalances. Per client, a classic group on a 4-partition topic: member A joins, member
 * B joins, B leaves (LeaveGroup), A leaves. Each client reports, per generation, its member
 * id and the partitions it was given:
 *
 * - Apache Kafka's Java KafkaConsumer (test/support/java GroupConsumer, range assignor): the
 *   `onPartitionsAssigned` callback with `groupMetadata()` (generation id, member id);
 * - librdkafka 2.16 through confluent-kafka (test/support/python/group_consumer.py, range):
 *   the `on_assign` callback with `memberid()`, the generation from librdkafka's own cgrp
 *   debug log ("JoinGroup response: GenerationId N");
 * - KafkaJS: its "Received assignment" debug log (generation id, member id, assignment),
 *   checked against its GROUP_JOIN instrumentation event (member id, assignment).
 *
 * And Java's KafkaConsumer and librdkafka with `group.protocol=consumer` (KIP-848): the same
 * steps in a consumer group. Java's `groupMetadata().generationId()` is the member epoch;
 * librdkafka logs it ("ConsumerGroupHeartbeat response received for member id X with epoch
 * N"). Callbacks are no record of a group epoch's assignment (a member revoking toward epoch
 * E+1 still says epoch E, and a member whose partitions do not change reaches E+1 without a
 * callback), so there the record is each member's view (member epoch, member id, its
 * assignment), which the member processes print after every poll, taken once the broker says
 * the group is Stable and every member says the group epoch. (The classic tests use the views
 * only to know each member served its callbacks before the next step.)
 *
 * `brook groups timeline G --json` must show every generation the clients report, with the
 * same members and the same partitions per member, the joins and leaves, and the moved
 * partitions (test/support/timeline-check.ts).
 *
 * Needs: java 17+ and Maven (test/support/java), python3 with confluent-kafka 2.16.x.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { Kafka, logLevel, type Consumer as KafkaJsConsumer } from 'kafkajs';
import { projectRoot, startBrook, tempDir } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { assertLibrdkafka216 } from '../support/clients/confluent-kafka.js';
import { until, type RunResult } from '../support/clients/run.js';
import { createTopic } from '../support/consumer-helpers.js';
import { assertTimelineMatches, timelineOf, type ObservedAssignment } from '../support/timeline-check.js';
import { Admin } from '../../src/client/admin.js';

const PARTITIONS = 4;
const MEMBER_TIMEOUT_MS = 40_000;

let broker: Awaited<ReturnType<typeof startBrook>>;
let admin: Admin;
const dir = tempDir('brook-timeline-');

before(async () => {
  // A short consumer-group heartbeat, so KIP-848 members learn of new epochs quickly.
  broker = await startBrook({ groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 500 });
  admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
});

after(async () => {
  admin.close();
  await broker.stop();
  dir.remove();
});

/**
 * Waits until the group is in `state` with `members` members (Stable: every member has its
 * assignment; a consumer group's at the epoch of its target assignment).
 */
async function groupReaches(group: string, state: string, members: number): Promise<void> {
  await until(`${group} ${state} with ${members} member(s)`, 20_000, async () => {
    const d = await admin.describeGroup(group);
    return d.state === state && d.members.length === members && d.groupEpoch === d.assignmentEpoch ? true : undefined;
  }, 100);
}

interface MemberEvent { type: string; gen: number; member?: string; partitions: number[]; owned: number[] }
interface MemberSummary { events: MemberEvent[]; errors: string[] }

function summaryOf(r: RunResult, what: string): MemberSummary {
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  assert.ok(r.code === 0 && line !== undefined, `${what} exited ${r.code}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr.slice(-3000)}`);
  const summary = JSON.parse(line) as MemberSummary;
  assert.deepEqual(summary.errors, [], `${what}: no errors`);
  return summary;
}

/**
 * Each assignment a member reported, with its generation and member id: `partitions`, what
 * the callback was given (an eager member's whole assignment; librdkafka assigns after its
 * callback), or `owned`, the consumer's assignment in the callback (Java assigns before it:
 * with the incremental KIP-848 protocol the whole assignment).
 */
function assignments(summary: MemberSummary, field: 'partitions' | 'owned'): ObservedAssignment[] {
  return summary.events.filter((e) => e.type === 'assigned').map((e) => ({ gen: e.gen, member: e.member!, partitions: e[field] }));
}

/**
 * A member process printing its view on stderr, `state {"gen","member","owned"}` lines
 * (GroupConsumer with -Dbrook.groupconsumer.states=true, group_consumer.py with
 * GROUP_CONSUMER_GENERATIONS=1); `latest()`: its last one.
 */
interface LiveMember {
  latest(): ObservedAssignment | null;
  stop(): void;
  readonly done: Promise<RunResult>;
  kill(): void;
}

function startLive(cmd: string, args: readonly string[], stopFile: string): LiveMember {
  const started = Date.now();
  const child = spawn(cmd, [...args, stopFile], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GROUP_CONSUMER_GENERATIONS: '1' } });
  let stdout = '';
  let stderr = '';
  let latest: ObservedAssignment | null = null;
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.startsWith('state ')) {
      const v = JSON.parse(line.slice('state '.length)) as { gen: number; member: string; owned: number[] };
      latest = { gen: v.gen, member: v.member, partitions: v.owned };
    } else {
      stderr += `${line}\n`;
    }
  });
  const done = new Promise<RunResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut: false })));
  return { latest: () => latest, stop: () => writeFileSync(stopFile, ''), done, kill: () => child.kill('SIGKILL') };
}

/**
 * Once the group is Stable (a consumer group at its target epoch) and every member says the
 * same generation (a consumer group's epoch), with the partitions split among them: each
 * one's view.
 */
async function settledLive(group: string, members: readonly LiveMember[]): Promise<ObservedAssignment[]> {
  return until(`${group}: ${members.length} member(s) settled`, 20_000, async () => {
    const d = await admin.describeGroup(group);
    if (d.state !== 'Stable' || d.members.length !== members.length || d.groupEpoch !== d.assignmentEpoch) return undefined;
    const seen = members.map((m) => m.latest());
    const gen = d.groupEpoch ?? seen[0]?.gen ?? -1;
    if (gen <= 0 || seen.some((o) => o === null || o.gen !== gen)) return undefined;
    const owned = seen.flatMap((o) => o!.partitions).sort((x, y) => x - y);
    return owned.length === PARTITIONS && owned.every((p, i) => p === i) ? seen as ObservedAssignment[] : undefined;
  }, 50);
}

/**
 * A, then B, B leaves, A leaves: member processes, each step once the group settled (so a
 * member has served its rebalance callbacks before it is stopped). Returns the members'
 * views at each settled point, and their summaries (A's, B's).
 */
async function scenario(name: string, group: string, start: (stopFile: string) => LiveMember): Promise<{ views: ObservedAssignment[]; summaries: MemberSummary[] }> {
  const a = start(join(dir.path, `${group}-a.stop`));
  let b: LiveMember | null = null;
  try {
    const views = [...await settledLive(group, [a])];
    b = start(join(dir.path, `${group}-b.stop`));
    views.push(...await settledLive(group, [a, b]));
    b.stop();
    const bSummary = summaryOf(await b.done, `${name} member B`);
    views.push(...await settledLive(group, [a]));
    a.stop();
    const aSummary = summaryOf(await a.done, `${name} member A`);
    await groupReaches(group, 'Empty', 0);
    return { views, summaries: [aSummary, bSummary] };
  } finally {
    a.kill();
    b?.kill();
  }
}

async function checkTimeline(group: string, topic: string, observed: ObservedAssignment[], what: string): Promise<void> {
  // Generations 1 (A), 2 (A and B), 3 (A): all three must have been reported.
  assert.ok(new Set(observed.map((o) => o.gen)).size >= 3, `${what}: the clients reported three generations: ${JSON.stringify(observed)}`);
  const entries = await timelineOf(broker.bootstrap, group);
  const checked = assertTimelineMatches(entries, observed, topic, what);
  assert.ok(checked.length >= 3, `${what}: checked generations ${checked.join(', ')}`);
}

test('timeline vs Java KafkaConsumer (classic, range): the generations, members and assignments it reported', { timeout: 60_000 }, async () => {
  assert.ok(javaAvailable(), 'java 17+ and Maven are required (test/support/java)');
  const jar = javaJar();
  const topic = 'timeline-java';
  const group = 'timeline-java-group';
  await createTopic(broker.bootstrap, topic, PARTITIONS);
  const args = ['-Dbrook.groupconsumer.states=true', '-cp', jar, 'brook.conformance.GroupConsumer', broker.bootstrap, topic, group, 'range', '1000000000', String(MEMBER_TIMEOUT_MS)];
  const { summaries } = await scenario('java', group, (stopFile) => startLive('java', args, stopFile));
  await checkTimeline(group, topic, summaries.flatMap((s) => assignments(s, 'owned')), 'java');
});

test('timeline vs Java KafkaConsumer (group.protocol=consumer): the member epochs, members and assignments it reported', { timeout: 60_000 }, async () => {
  assert.ok(javaAvailable(), 'java 17+ and Maven are required (test/support/java)');
  const jar = javaJar();
  const topic = 'timeline-java-kip848';
  const group = 'timeline-java-kip848-group';
  await createTopic(broker.bootstrap, topic, PARTITIONS);
  const args = ['-Dbrook.groupconsumer.states=true', '-cp', jar, 'brook.conformance.GroupConsumer', broker.bootstrap, topic, group, 'consumer-uniform', '1000000000', String(MEMBER_TIMEOUT_MS)];
  const { views } = await scenario('java kip-848', group, (stopFile) => startLive('java', args, stopFile));
  await checkTimeline(group, topic, views, 'java kip-848');
});

test('timeline vs librdkafka 2.16 (group.protocol=consumer): the member epochs of its heartbeat log, members and assignments', { timeout: 60_000 }, async (t) => {
  t.diagnostic(`librdkafka ${assertLibrdkafka216().librdkafka}`);
  const topic = 'timeline-rdkafka-kip848';
  const group = 'timeline-rdkafka-kip848-group';
  await createTopic(broker.bootstrap, topic, PARTITIONS);
  const args = [join(projectRoot, 'test', 'support', 'python', 'group_consumer.py'), broker.bootstrap, topic, group, 'consumer-uniform', '1000000000', String(MEMBER_TIMEOUT_MS)];
  const { views } = await scenario('librdkafka kip-848', group, (stopFile) => startLive('python3', args, stopFile));
  await checkTimeline(group, topic, views, 'librdkafka kip-848');
});

test('timeline vs librdkafka 2.16 (classic, range): the generations of its JoinGroup log, members and assignments', { timeout: 60_000 }, async (t) => {
  t.diagnostic(`librdkafka ${assertLibrdkafka216().librdkafka}`);
  const topic = 'timeline-rdkafka';
  const group = 'timeline-rdkafka-group';
  await createTopic(broker.bootstrap, topic, PARTITIONS);
  const args = [join(projectRoot, 'test', 'support', 'python', 'group_consumer.py'), broker.bootstrap, topic, group, 'range', '1000000000', String(MEMBER_TIMEOUT_MS)];
  const { summaries } = await scenario('librdkafka', group, (stopFile) => startLive('python3', args, stopFile));
  const observed = summaries.flatMap((s) => assignments(s, 'partitions'));
  assert.ok(observed.every((o) => o.gen > 0), `librdkafka: a generation from its log for every assignment: ${JSON.stringify(observed)}`);
  await checkTimeline(group, topic, observed, 'librdkafka');
});

test('timeline vs KafkaJS: the generations, members and assignments of its own log and GROUP_JOIN events', { timeout: 60_000 }, async () => {
  const topic = 'timeline-kafkajs';
  const group = 'timeline-kafkajs-group';
  await createTopic(broker.bootstrap, topic, PARTITIONS);
  const observed: ObservedAssignment[] = [];
  const joins: { member: string; partitions: number[] }[] = [];
  const kafka = new Kafka({
    clientId: 'timeline-kafkajs', brokers: [broker.bootstrap], logLevel: logLevel.DEBUG, retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 },
    // KafkaJS logs each SyncGroup outcome: "Received assignment" with the generation, member id and assignment.
    logCreator: () => ({ log }) => {
      const l = log as { message?: string; groupId?: string; generationId?: number; memberId?: string; memberAssignment?: Record<string, number[]> };
      if (l.message === 'Received assignment' && l.groupId === group) {
        observed.push({ gen: l.generationId!, member: l.memberId!, partitions: [...(l.memberAssignment?.[topic] ?? [])].sort((x, y) => x - y) });
      }
    },
  });
  const member = async (): Promise<KafkaJsConsumer> => {
    const c = kafka.consumer({ groupId: group, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 100 });
    c.on(c.events.GROUP_JOIN, (e) => joins.push({ member: e.payload.memberId, partitions: [...(e.payload.memberAssignment[topic] ?? [])].sort((x, y) => x - y) }));
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    await c.run({ eachMessage: async () => undefined });
    return c;
  };
  // Each step once the group is Stable and the members told of it (GROUP_JOIN: one per member and generation).
  const settled = async (members: number, joinEvents: number): Promise<void> => {
    await groupReaches(group, 'Stable', members);
    await until(`${joinEvents} GROUP_JOIN events`, 20_000, async () => (joins.length >= joinEvents ? true : undefined), 20);
  };
  const a = await member();
  try {
    await settled(1, 1);
    const b = await member();
    await settled(2, 3);
    await b.disconnect();
    await settled(1, 4);
  } finally {
    await a.disconnect();
  }
  await groupReaches(group, 'Empty', 0);
  // The log and the instrumentation events tell the same story (the events carry no generation).
  assert.deepEqual(joins, observed.map((o) => ({ member: o.member, partitions: o.partitions })), 'KafkaJS GROUP_JOIN events = its "Received assignment" log');
  await checkTimeline(group, topic, observed, 'kafkajs');
});
