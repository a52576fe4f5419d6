/**
 * Kafka Streams 4.4 applications on streams groups (KIP-1071, `group.protocol=streams`): the
 * same scenarios on Apache Kafka 4.4 (the reference; it validates the scenarios) and on Brook
 * run as a child process (`brook broker --config FILE`, killable like Kafka).
 *
 * The application is test/support/java StreamsWordCount (lines → words → groupBy, through a
 * repartition topic → count, in a store with a changelog → output; record cache off, so every
 * count update is output). Two instances share the application id, each with its own state
 * directory (so its own process id). The input is produced in parts while the instances run,
 * so every part is processed after the event before it (an instance joining, closing, dying,
 * the broker dying). The true counts are counted here from the input.
 *
 * What the output must show, per word, read from the beginning:
 *   - exactly_once_v2 (read_committed): exactly the counts 1, 2, ..., true count, in order;
 *   - at_least_once, on a run where no instance or broker fails: every count 1..true count
 *     appears, in non-decreasing order, the last is the true count and none exceeds it. A
 *     count may repeat: at-least-once may write an update again (a task moved between
 *     instances replays its input from the last committed offset) but never count an input
 *     twice in its store without a failure, so nothing above the true count and no gap.
 *
 * Both brokers get the same streams-group settings (Kafka's names, in server.properties and in
 * Brook's --config file): session timeout 6 s and heartbeat interval 1 s (their minimums
 * lowered), so a killed instance's tasks move within seconds; all else is Kafka's default.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { buildJavaSupport } from '../support/java-oracle.js';
import { kafkaAvailable, startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import {
  produceLines, readWordCounts, startWordCountApp, totalWords, trueCounts, wordCountInput, wrongCounts, type WordCountApp, type WordCountOutput,
} from '../support/streams-word-count.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import type { StreamsGroupDescribeResponseDescribedGroup } from '../../src/protocol/messages/streams-group-describe.js';
import { Admin } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const PARTITIONS = 2;
const PARTS = [wordCountInput(400, 11), wordCountInput(400, 12), wordCountInput(400, 13)];
const STREAMS_GROUP_SETTINGS: Record<string, string> = {
  'group.streams.session.timeout.ms': '6000',
  'group.streams.min.session.timeout.ms': '6000',
  'group.streams.heartbeat.interval.ms': '1000',
  'group.streams.min.heartbeat.interval.ms': '1000',
};
/** Kafka only: a fast start, and a restart after kill -9 that does not wait 9 s for the dead broker's session. */
const KAFKA_SETTINGS: Record<string, string> = {
  ...STREAMS_GROUP_SETTINGS,
  'group.initial.rebalance.delay.ms': '0',
  'transaction.state.log.num.partitions': '1',
  'offsets.topic.num.partitions': '1',
  'broker.heartbeat.interval.ms': '500',
  'broker.session.timeout.ms': '2000',
};
const STREAMS = { 'group.protocol': 'streams' } as const;

/** One broker under test: where it listens, and how to kill -9 it and start it again on its data. */
interface Target {
  readonly name: 'kafka' | 'brook';
  readonly bootstrap: string;
  killAndRestart(): Promise<void>;
}

async function startKafkaTarget(cleanup: Cleanup): Promise<Target> {
  let kafka: KafkaBroker = await startKafka({ config: KAFKA_SETTINGS });
  // SIGKILL first: a controlled shutdown would wait for the applications' sessions.
  cleanup.add('stop kafka', async () => {
    await kafka.kill();
    await kafka.stop();
  });
  const dataDir = kafka.dataDir;
  return {
    name: 'kafka',
    bootstrap: kafka.bootstrap,
    async killAndRestart() {
      await kafka.kill();
      kafka = await startKafka({ dataDir, config: KAFKA_SETTINGS });
    },
  };
}

async function startBrookTarget(cleanup: Cleanup): Promise<Target> {
  const dir = tempDir('brook-streams-groups-');
  cleanup.add('remove the data dir', () => dir.remove());
  const configFile = join(dir.path, 'server.properties');
  writeFileSync(configFile, Object.entries(STREAMS_GROUP_SETTINGS).map(([k, v]) => `${k}=${v}\n`).join(''));
  const data = join(dir.path, 'data');
  const args = (port: number): string[] => ['--port', String(port), '--data-dir', data, '--config', configFile, '--group-initial-rebalance-delay-ms', '0', '--log-level', 'warn'];
  let broker: BrookProcess = await spawnBrook(args(0));
  cleanup.add('stop brook', () => broker.kill());
  const port = broker.port;
  return {
    name: 'brook',
    bootstrap: broker.bootstrap,
    async killAndRestart() {
      await broker.kill();
      await sleep(500);
      broker = await spawnBrook(args(port));
    },
  };
}

async function createTopics(bootstrap: string, names: string[]): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    for (const name of names) await admin.createTopic({ name, partitions: PARTITIONS });
  } finally {
    admin.close();
  }
}

/** StreamsGroupDescribe v1 of the application's group, through a raw connection. */
async function describeGroup(bootstrap: string, group: string): Promise<StreamsGroupDescribeResponseDescribedGroup> {
  const [host, port] = bootstrap.split(':');
  const conn = await RawConnection.connect(host!, Number(port), { timeoutMs: 10_000 });
  try {
    const r = await conn.request('StreamsGroupDescribe', 1, { groupIds: [group], includeAuthorizedOperations: false, includeTopologyDescription: false });
    return r.groups[0]!;
  } finally {
    conn.close();
  }
}

const tasksOf = (list: { subtopologyId: string; partitions: number[] }[]): string[] => list.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`)).sort();

/** Polls the group's description until `ok` holds for it (every member at the assignment's epoch); returns it. */
async function waitForGroup(bootstrap: string, group: string, what: string, ok: (g: StreamsGroupDescribeResponseDescribedGroup) => boolean, timeoutMs = 60_000): Promise<StreamsGroupDescribeResponseDescribedGroup> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const g = await describeGroup(bootstrap, group);
    if (g.errorCode === ErrorCode.NONE && g.members.every((m) => m.memberEpoch === g.assignmentEpoch) && ok(g)) return g;
    if (Date.now() > deadline) throw new Error(`${what}: the group never got there: ${JSON.stringify(g)}`);
    await sleep(250);
  }
}

/** Each member's active tasks, by process id. */
const activeByProcess = (g: StreamsGroupDescribeResponseDescribedGroup): Map<string, string[]> =>
  new Map(g.members.map((m) => [m.processId, tasksOf(m.assignment.activeTasks)]));

function assertExact(output: WordCountOutput, expected: ReadonlyMap<string, number>, what: string): void {
  assert.deepEqual(wrongCounts(output, expected), [], `${what}: every word's read_committed counts are exactly 1..true count`);
  assert.equal(output.records, totalWords(expected), `${what}: one output record per input word`);
}

/** The at-least-once check of the header: no gap, no count above the true count, the last one true. */
function atLeastOnceWrong(output: WordCountOutput, expected: ReadonlyMap<string, number>): string[] {
  const wrong: string[] = [];
  for (const [word, n] of expected) {
    const seq = output.sequences.get(word) ?? [];
    const ordered = seq.every((c, i) => i === 0 || c >= seq[i - 1]!);
    const noGap = seq.every((c, i) => i === 0 ? c === 1 : c - seq[i - 1]! <= 1);
    if (!ordered || !noGap || seq[seq.length - 1] !== n || seq.some((c) => c > n)) wrong.push(`${word}: true count ${n}, saw ${seq.join(',')}`);
  }
  for (const word of output.sequences.keys()) if (!expected.has(word)) wrong.push(`${word}: not in the input`);
  return wrong;
}

/** Two instances of the word count on `target`, each on its own state dir. */
function startInstances(target: Target, app: string, guarantee: 'exactly_once_v2' | 'at_least_once', cleanup: Cleanup, configs: Record<string, string> = {}): WordCountApp[] {
  return ['a', 'b'].map((n) => {
    const state = tempDir(`brook-streams-${n}-`);
    cleanup.add(`remove state dir ${n}`, () => state.remove());
    const instance = startWordCountApp({
      bootstrap: target.bootstrap, applicationId: app, input: `${app}-in`, output: `${app}-out`, guarantee, stateDir: state.path, configs: { ...STREAMS, ...configs },
    });
    cleanup.add(`stop instance ${n}`, () => instance.close(15_000));
    return instance;
  });
}

async function closeCleanly(instance: WordCountApp, what: string): Promise<void> {
  assert.equal(await instance.close(), 0, `${what} closes cleanly: ${instance.lines.join(' | ')}\n${instance.stderr().slice(-2000)}`);
  assert.deepEqual(instance.lines.filter((l) => l.startsWith('error')), [], `${what}: no stream thread died`);
}

const ALL_TASKS = ['0_0', '0_1', '1_0', '1_1'];

async function scenarios(t: import('node:test').TestContext, start: (cleanup: Cleanup) => Promise<Target>): Promise<void> {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const target = await start(cleanup);
  const { bootstrap } = target;

  await t.test('exactly_once_v2, two instances; one closes and the other takes all its tasks; counts exact', async (st) => {
    const app = 'sgs-eos';
    await createTopics(bootstrap, [`${app}-in`, `${app}-out`]);
    await produceLines(bootstrap, `${app}-in`, PARTS[0]!);
    const [a, b] = startInstances(target, app, 'exactly_once_v2', cleanup);
    await Promise.all([a!.waitFor(/^state RUNNING$/, 60_000), b!.waitFor(/^state RUNNING$/, 60_000)]);
    const both = await waitForGroup(bootstrap, app, 'both instances hold tasks', (g) => g.members.length === 2 && g.members.every((m) => m.assignment.activeTasks.length > 0));
    st.diagnostic(`active tasks by process: ${JSON.stringify([...activeByProcess(both)])}`);
    assert.equal(both.groupState, 'Stable');
    assert.deepEqual([...activeByProcess(both).values()].flat().sort(), ALL_TASKS, 'each task on exactly one instance');
    await produceLines(bootstrap, `${app}-in`, PARTS[1]!);
    assertExact(await readWordCounts(bootstrap, `${app}-out`, PARTITIONS, trueCounts([...PARTS[0]!, ...PARTS[1]!]), 90_000), trueCounts([...PARTS[0]!, ...PARTS[1]!]), `${target.name}, two instances`);

    await closeCleanly(b!, 'instance b');
    const alone = await waitForGroup(bootstrap, app, 'a holds every task', (g) => g.members.length === 1 && tasksOf(g.members[0]!.assignment.activeTasks).length === 4);
    assert.deepEqual(tasksOf(alone.members[0]!.assignment.activeTasks), ALL_TASKS);
    await produceLines(bootstrap, `${app}-in`, PARTS[2]!);
    const expected = trueCounts(PARTS.flat());
    assertExact(await readWordCounts(bootstrap, `${app}-out`, PARTITIONS, expected, 90_000), expected, `${target.name}, after b closed`);
    await closeCleanly(a!, 'instance a');
  });

  await t.test('at_least_once, two instances: every final count right, no gap, none above the true count', async () => {
    const app = 'sgs-alos';
    await createTopics(bootstrap, [`${app}-in`, `${app}-out`]);
    await produceLines(bootstrap, `${app}-in`, PARTS[0]!);
    const [a, b] = startInstances(target, app, 'at_least_once', cleanup);
    await waitForGroup(bootstrap, app, 'both instances hold tasks', (g) => g.members.length === 2 && g.members.every((m) => m.assignment.activeTasks.length > 0));
    await produceLines(bootstrap, `${app}-in`, PARTS[1]!);
    const expected = trueCounts([...PARTS[0]!, ...PARTS[1]!]);
    const output = await readWordCounts(bootstrap, `${app}-out`, PARTITIONS, expected, 90_000);
    assert.deepEqual(atLeastOnceWrong(output, expected), [], `${target.name}: at-least-once counts`);
    await Promise.all([closeCleanly(a!, 'instance a'), closeCleanly(b!, 'instance b')]);
  });

  await t.test('exactly_once_v2 with a standby replica: standbys on the other instance; kill -9 of an instance, then of the broker; counts exact', async (st) => {
    const app = 'sgs-kill';
    await createTopics(bootstrap, [`${app}-in`, `${app}-out`]);
    // The number of standby replicas of a streams group is the group's config (the client's
    // num.standby.replicas is set too, as an application would).
    const [host, port] = bootstrap.split(':');
    const conn = await RawConnection.connect(host!, Number(port), { timeoutMs: 10_000 });
    const altered = await conn.request('IncrementalAlterConfigs', 1, {
      resources: [{ resourceType: 32, resourceName: app, configs: [{ name: 'streams.num.standby.replicas', configOperation: 0, value: '1' }] }], validateOnly: false,
    });
    conn.close();
    assert.equal(altered.responses[0]!.errorCode, ErrorCode.NONE, `${target.name}: ${altered.responses[0]!.errorMessage}`);
    await produceLines(bootstrap, `${app}-in`, PARTS[0]!);
    const [a, b] = startInstances(target, app, 'exactly_once_v2', cleanup, { 'num.standby.replicas': '1' });
    const placed = await waitForGroup(bootstrap, app, 'active and standby tasks placed', (g) => g.members.length === 2
      && g.members.every((m) => m.assignment.activeTasks.length > 0 && m.assignment.standbyTasks.length > 0));
    for (const m of placed.members) {
      const other = placed.members.find((x) => x !== m)!;
      st.diagnostic(`${m.processId}: active ${tasksOf(m.assignment.activeTasks).join(',')}, standby ${tasksOf(m.assignment.standbyTasks).join(',')}`);
      // Only subtopology 1 has a store: its tasks get a standby, on the process not running them.
      assert.deepEqual(tasksOf(m.assignment.standbyTasks), tasksOf(other.assignment.activeTasks).filter((x) => x.startsWith('1_')), `${target.name}: ${m.processId}'s standbys`);
    }
    const [idA] = [...activeByProcess(placed).keys()];
    assert.ok(idA !== undefined);

    await produceLines(bootstrap, `${app}-in`, PARTS[1]!);
    b!.child.kill('SIGKILL');
    await b!.close();
    const alone = await waitForGroup(bootstrap, app, 'a holds every task after b was killed', (g) => g.members.length === 1 && tasksOf(g.members[0]!.assignment.activeTasks).length === 4);
    assert.equal(alone.members[0]!.assignment.standbyTasks.length, 0, 'no standby without another process');
    const two = trueCounts([...PARTS[0]!, ...PARTS[1]!]);
    assertExact(await readWordCounts(bootstrap, `${app}-out`, PARTITIONS, two, 90_000), two, `${target.name}, after b was killed`);

    await produceLines(bootstrap, `${app}-in`, PARTS[2]!);
    await target.killAndRestart();
    const expected = trueCounts(PARTS.flat());
    assertExact(await readWordCounts(bootstrap, `${app}-out`, PARTITIONS, expected, 120_000), expected, `${target.name}, after the broker was killed and restarted`);
    await closeCleanly(a!, 'instance a');
  });
}

test('Kafka Streams 4.4 with group.protocol=streams', { timeout: 600_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  buildJavaSupport();

  await t.test('on Kafka 4.4', async (st) => {
    const started = Date.now();
    await scenarios(st, startKafkaTarget);
    st.diagnostic(`${Date.now() - started} ms`);
  });

  await t.test('on Brook', async (st) => {
    const started = Date.now();
    await scenarios(st, startBrookTarget);
    st.diagnostic(`${Date.now() - started} ms`);
  });
});
