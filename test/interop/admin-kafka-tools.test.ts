/**
 * Brook's admin client and `brook groups` next to Apache Kafka's own tools:
 *  1. against Brook's broker, `kafka-consumer-groups` (ConsumerGroupCommand from Kafka 4.4.0's
 *     tools jar) and `brook groups` agree on describe (offsets, log end, lag, consumer id,
 *     host, client id) and on reset-offsets plans, for an active and an Empty group, and
 *     print the same sentence for resetting an active group; for an unknown group Kafka's
 *     tool prints against Brook what it prints against Kafka 4.4 (DescribeGroups v6's
 *     GROUP_ID_NOT_FOUND, KIP-1043), and `brook groups` fails with the sentence Kafka's
 *     tool printed for a Dead group before v6;
 *     describe --members and --state (and --verbose) print the same rows; resets
 *     --to-current, --by-duration and --from-file plan the same, --export writes the same
 *     CSV, and offsets deleted by either tool are gone for both;
 *  2. against Apache Kafka 4.4.0 (KRaft), Brook's CLI agrees with Kafka's tool on describe
 *     (offsets, --members, --state), lag and reset plans, and its resets are what Kafka's tool then reads back;
 *  3. against Brook's broker, `kafka-topics` (TopicCommand, Kafka 4.4.0) creates, lists,
 *     describes and deletes topics, and `brook topics describe` prints the same lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, until, type RunResult } from '../support/clients/run.js';
import { brookCli, runGroup, seedTopic } from '../support/admin-fixture.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';

const CONSUMER_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand';
const TOPIC_COMMAND = 'org.apache.kafka.tools.TopicCommand';

function java(mainClass: string, args: readonly string[], input?: string): Promise<RunResult> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), mainClass, ...args], { timeoutMs: 60_000, input });
}

const kafkaGroups = (bootstrap: string, args: readonly string[]): Promise<RunResult> =>
  java(CONSUMER_GROUP_COMMAND, ['--bootstrap-server', bootstrap, ...args]);

/** The data rows of a Kafka-style table (after the `GROUP ...` header), split on blanks, sorted. */
function rows(stdout: string): string[][] {
  const lines = stdout.split('\n');
  const header = lines.findIndex((l) => l.startsWith('GROUP '));
  assert.ok(header >= 0, `no table in: ${stdout}`);
  return lines.slice(header + 1).filter((l) => l.trim() !== '' && !l.startsWith('Consumer group')).map((l) => l.trim().split(/\s+/))
    .sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : 1));
}

async function sameDescribe(bootstrap: string, group: string, what: string): Promise<string[][]> {
  const kafka = await kafkaGroups(bootstrap, ['--describe', '--group', group]);
  assert.equal(kafka.code, 0, `kafka-consumer-groups --describe: ${kafka.stderr}`);
  const brook = await brookCli(['groups', 'describe', group, '-b', bootstrap]);
  assert.equal(brook.code, 0, brook.stderr);
  assert.deepEqual(rows(brook.stdout), rows(kafka.stdout), `${what}: brook groups describe = kafka-consumer-groups --describe`);
  return rows(kafka.stdout);
}

async function samePlan(bootstrap: string, group: string, scenario: readonly string[], execute: boolean): Promise<string[][]> {
  const kafka = await kafkaGroups(bootstrap, ['--reset-offsets', '--group', group, ...scenario, execute ? '--execute' : '--dry-run']);
  assert.equal(kafka.code, 0, `kafka-consumer-groups --reset-offsets ${scenario.join(' ')}: ${kafka.stderr}`);
  // Brook plans the same reset as a dry run (Kafka's run may just have executed it).
  const brook = await brookCli(['groups', 'reset-offsets', group, ...scenario, '-b', bootstrap]);
  assert.equal(brook.code, 0, brook.stderr);
  assert.deepEqual(rows(brook.stdout), rows(kafka.stdout), `plan for ${scenario.join(' ')}`);
  return rows(kafka.stdout);
}

/** `--describe --members` / `--state` (with or without --verbose): the same rows from both tools. */
async function sameView(bootstrap: string, group: string, view: readonly string[]): Promise<void> {
  const kafka = await kafkaGroups(bootstrap, ['--describe', '--group', group, ...view]);
  assert.equal(kafka.code, 0, `kafka-consumer-groups --describe ${view.join(' ')}: ${kafka.stderr}`);
  const brook = await brookCli(['groups', 'describe', group, ...view, '-b', bootstrap]);
  assert.equal(brook.code, 0, brook.stderr);
  assert.deepEqual(rows(brook.stdout), rows(kafka.stdout), `brook groups describe ${view.join(' ')} = kafka-consumer-groups --describe ${view.join(' ')}`);
}

/** The sentence after "Error: " in Kafka's tool output. */
/** What Kafka 4.4's tool prints for a group its broker answers GROUP_ID_NOT_FOUND for (DescribeGroups v6). */
const UNKNOWN_GROUP = (group: string): RegExp => new RegExp(`GroupIdNotFoundException: Group ${group} not found\\.$`);

function kafkaError(r: RunResult): string {
  const m = /Error: (.*)/.exec(r.stdout + r.stderr);
  assert.ok(m, `an error from Kafka's tool: ${r.stdout} ${r.stderr}`);
  return m[1]!.trim();
}

test('kafka-consumer-groups and brook groups agree against Brook\'s broker', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const planDir = tempDir();
  cleanup.add('remove plan dir', () => planDir.remove());
  const bootstrap = broker.bootstrap;
  const topic = 'interop-admin-topic';
  const group = 'interop-admin-group';
  await seedTopic(bootstrap, topic, 3, 10);
  const running = await runGroup(bootstrap, group, topic, 2, 30, 'interop-admin-client');
  cleanup.add('stop consumers', () => running.stop());
  await until('Stable, all committed', 20_000, async () => {
    const r = JSON.parse((await brookCli(['groups', 'describe', group, '--json', '-b', bootstrap])).stdout) as { state: string; offsets: { lag: number | null }[] };
    return r.state === 'Stable' && r.offsets.length === 3 && r.offsets.every((o) => o.lag === 0) ? true : undefined;
  });

  const activeRows = await sameDescribe(bootstrap, group, 'active group');
  assert.ok(activeRows.every((r) => r[5] === '0' && r[6] !== '-' && r[8] === 'interop-admin-client'), 'lag 0 and a consumer per row');
  for (const view of [['--members'], ['--members', '--verbose'], ['--state'], ['--state', '--verbose']]) {
    await sameView(bootstrap, group, view);
  }

  const kafkaRefusal = await kafkaGroups(bootstrap, ['--reset-offsets', '--group', group, '--topic', topic, '--to-earliest', '--execute']);
  const brookRefusal = await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-earliest', '--execute', '-b', bootstrap]);
  assert.notEqual(brookRefusal.code, 0);
  assert.ok(brookRefusal.stderr.includes(kafkaError(kafkaRefusal)), `same refusal: ${brookRefusal.stderr} / ${kafkaError(kafkaRefusal)}`);

  await running.stop();
  await until('Empty', 15_000, async () => ((await brookCli(['groups', 'describe', group, '--json', '-b', bootstrap])).stdout.includes('"state":"Empty"') ? true : undefined));
  await sameDescribe(bootstrap, group, 'Empty group');

  assert.deepEqual((await samePlan(bootstrap, group, ['--topic', topic, '--to-earliest'], false)).map((r) => r[3]), ['0', '0', '0']);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-earliest'], true);
  const rewound = await sameDescribe(bootstrap, group, 'after Kafka reset to earliest');
  assert.deepEqual(rewound.map((r) => r[5]), ['10', '10', '10'], 'lag = records');
  await samePlan(bootstrap, group, ['--topic', topic, '--to-offset', '4'], true);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-offset', '99'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--shift-by', '-2'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--shift-by', '-20'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-latest'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-datetime', '2024-01-01T00:00:06.000'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-datetime', '2030-01-01T00:00:00.000'], false);
  await samePlan(bootstrap, group, ['--topic', `${topic}:0,2`, '--to-earliest'], false);
  await samePlan(bootstrap, group, ['--all-topics', '--to-latest'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-current'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--by-duration', 'P1D'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--by-duration', 'PT0S'], false);
  const plan = join(planDir.path, 'plan.csv');
  writeFileSync(plan, `${topic},0,2\n${topic},2,99\n`);
  await samePlan(bootstrap, group, ['--from-file', plan], false);
  // Both tools' --export: the same CSV lines (Kafka's in hash order, one blank line after).
  const kafkaCsv = await kafkaGroups(bootstrap, ['--reset-offsets', '--group', group, '--topic', topic, '--to-earliest', '--export', '--dry-run']);
  const brookCsv = await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-earliest', '--export', '-b', bootstrap]);
  assert.deepEqual(brookCsv.stdout.trim().split('\n').sort(), kafkaCsv.stdout.trim().split('\n').sort());
  // Kafka's tool deletes offsets; Brook's sees them gone, and the other way round.
  const kafkaDeleted = await kafkaGroups(bootstrap, ['--delete-offsets', '--group', group, '--topic', `${topic}:0`]);
  assert.match(kafkaDeleted.stdout, /Request succeeded for deleting offsets from group/);
  const brookDeleted = await brookCli(['groups', 'delete-offsets', group, '--topic', `${topic}:1`, '-b', bootstrap]);
  assert.equal(brookDeleted.code, 0, brookDeleted.stderr);
  assert.match(brookDeleted.stdout, /^Request succeeded for deleting offsets from group /);
  assert.deepEqual((await sameDescribe(bootstrap, group, 'after deleting offsets of partitions 0 and 1')).map((r) => r[2]), ['2']);
  // Brook executes, Kafka's tool reads it back.
  assert.equal((await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-offset', '6', '--execute', '-b', bootstrap])).code, 0);
  assert.deepEqual((await sameDescribe(bootstrap, group, 'after Brook reset to 6')).map((r) => [r[3], r[5]]), [['6', '4'], ['6', '4'], ['6', '4']]);

  const kafkaUnknown = await kafkaGroups(bootstrap, ['--describe', '--group', 'interop-no-such-group']);
  const brookUnknown = await brookCli(['groups', 'describe', 'interop-no-such-group', '-b', bootstrap]);
  t.diagnostic(`Kafka's tool on an unknown group: ${kafkaError(kafkaUnknown)}`);
  assert.match(kafkaError(kafkaUnknown), UNKNOWN_GROUP('interop-no-such-group'));
  assert.notEqual(brookUnknown.code, 0);
  assert.match(brookUnknown.stderr, /Consumer group 'interop-no-such-group' does not exist\./);
});

test('brook groups against Apache Kafka 4.4.0 agrees with kafka-consumer-groups', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0', 'num.partitions': '1', 'offsets.topic.replication.factor': '1' } });
  cleanup.add('stop kafka', () => kafka.stop());
  const bootstrap = kafka.bootstrap;
  const topic = 'kafka-admin-topic';
  const group = 'kafka-admin-group';
  const b = ['-b', bootstrap];

  assert.equal((await brookCli(['topics', 'create', topic, '--partitions', '3', ...b])).code, 0);
  const described = JSON.parse((await brookCli(['topics', 'describe', topic, '--json', ...b])).stdout) as { partitions: unknown[] };
  assert.equal(described.partitions.length, 3);
  // 60 keyed records through Kafka's console producer.
  const lines = Array.from({ length: 60 }, (_, i) => `key-${i}:value-${i}`).join('\n');
  const produced = await java('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', bootstrap, '--topic', topic, '--property', 'parse.key=true', '--property', 'key.separator=:'], `${lines}\n`);
  assert.equal(produced.code, 0, produced.stderr);

  // A live member: Kafka's console consumer in the group (classic protocol), committing often.
  const consumer = spawn('java', ['-cp', kafkaClasspath(), 'org.apache.kafka.tools.consumer.ConsoleConsumer', '--bootstrap-server', bootstrap,
    '--topic', topic, '--group', group, '--from-beginning', '--consumer-property', 'auto.commit.interval.ms=200',
    '--consumer-property', 'client.id=kafka-console-member'], { stdio: ['ignore', 'ignore', 'ignore'] });
  const consumerExited = new Promise((resolve) => consumer.on('exit', resolve));
  cleanup.add('stop console consumer', async () => { consumer.kill('SIGKILL'); await consumerExited; });
  await until('the console consumer Stable with lag 0', 60_000, async () => {
    const r = JSON.parse((await brookCli(['groups', 'describe', group, '--json', ...b])).stdout) as { state: string; offsets: { lag: number | null }[]; members: unknown[] };
    return r.state === 'Stable' && r.members.length === 1 && r.offsets.length === 3 && r.offsets.every((o) => o.lag === 0) ? true : undefined;
  }, 500);
  const listed = JSON.parse((await brookCli(['groups', 'list', '--json', ...b])).stdout) as { group: string; state: string; type: string }[];
  assert.deepEqual(listed.find((g) => g.group === group), { group, state: 'Stable', type: 'classic', protocolType: 'consumer' });
  const active = await sameDescribe(bootstrap, group, 'Kafka: active group');
  assert.ok(active.every((r) => r[5] === '0' && r[8] === 'kafka-console-member'));
  for (const view of [['--members'], ['--members', '--verbose'], ['--state'], ['--state', '--verbose']]) await sameView(bootstrap, group, view);

  const refused = await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-earliest', '--execute', ...b]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, new RegExp(`Assignments can only be reset if the group '${group}' is inactive, but the current state is Stable\\.`));

  consumer.kill('SIGTERM');
  await consumerExited;
  await until('Empty', 30_000, async () => ((await brookCli(['groups', 'describe', group, '--json', ...b])).stdout.includes('"state":"Empty"') ? true : undefined), 500);
  await sameDescribe(bootstrap, group, 'Kafka: Empty group');

  // Brook resets, Kafka's tool reads the result: lag = all 60 records.
  assert.equal((await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-earliest', '--execute', ...b])).code, 0);
  const rewound = await sameDescribe(bootstrap, group, 'Kafka: after Brook reset to earliest');
  assert.equal(rewound.reduce((sum, r) => sum + Number(r[5]), 0), 60, 'total lag = records');
  await samePlan(bootstrap, group, ['--topic', topic, '--to-offset', '5'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--shift-by', '3'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-latest'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-datetime', '2000-01-01T00:00:00.000'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-datetime', '2100-01-01T00:00:00.000'], false);
  await samePlan(bootstrap, group, ['--topic', `${topic}:1`, '--to-latest'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--to-current'], false);
  await samePlan(bootstrap, group, ['--topic', topic, '--by-duration', 'P1D'], false);

  // Delete: the group, then it is gone for both tools.
  const deleted = await brookCli(['groups', 'delete', group, ...b]);
  assert.equal(deleted.code, 0, deleted.stderr);
  const kafkaAfter = await kafkaGroups(bootstrap, ['--describe', '--group', group]);
  const brookAfter = await brookCli(['groups', 'describe', group, ...b]);
  t.diagnostic(`Kafka's tool after delete: ${kafkaError(kafkaAfter)}`);
  assert.match(kafkaError(kafkaAfter), UNKNOWN_GROUP(group));
  assert.notEqual(brookAfter.code, 0);
  assert.match(brookAfter.stderr, /does not exist/);
  assert.equal((await brookCli(['topics', 'delete', topic, ...b])).code, 0);
});

test('kafka-topics (Kafka 4.4.0) against Brook\'s broker: create, list, describe, delete; brook topics describe prints the same lines', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = broker.bootstrap;
  const kafkaTopics = (args: readonly string[]): Promise<RunResult> => java(TOPIC_COMMAND, ['--bootstrap-server', bootstrap, ...args]);
  const topic = 'interop-kafka-topics';

  const created = await kafkaTopics(['--create', '--topic', topic, '--partitions', '3', '--replication-factor', '1', '--config', 'retention.ms=60000']);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stdout.trim(), `Created topic ${topic}.`);
  const listed = await kafkaTopics(['--list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(listed.stdout.split('\n').includes(topic), listed.stdout);

  // kafka-topics --describe: a topic line, then one line per partition, fields tab-separated.
  const described = await kafkaTopics(['--describe', '--topic', topic]);
  assert.equal(described.code, 0, described.stderr);
  const kafkaLines = described.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split('\t'));
  const node = String(broker.config.nodeId);
  assert.deepEqual(kafkaLines[0]!.filter((f) => !f.startsWith('TopicId: ')),
    [`Topic: ${topic}`, 'PartitionCount: 3', 'ReplicationFactor: 1', 'Configs: retention.ms=60000']);
  // Elr and LastKnownElr (KIP-966) come from DescribeTopicPartitions: empty for a single replica.
  assert.deepEqual(kafkaLines.slice(1), [0, 1, 2].map((p) => [`Topic: ${topic}`, `Partition: ${p}`, `Leader: ${node}`, `Replicas: ${node}`, `Isr: ${node}`, 'Elr: ', 'LastKnownElr:']));
  // brook topics describe prints the leading fields of the same lines (no Elr, LastKnownElr).
  const brook = await brookCli(['topics', 'describe', topic, '-b', bootstrap]);
  assert.equal(brook.code, 0, brook.stderr);
  const brookLines = brook.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split('\t'));
  assert.equal(brookLines.length, kafkaLines.length);
  brookLines.forEach((fields, i) => assert.deepEqual(fields, kafkaLines[i]!.slice(0, fields.length), `line ${i}`));
  // Not an empty prefix: Topic, TopicId, PartitionCount, ReplicationFactor, Configs; Topic, Partition, Leader, Replicas, Isr.
  assert.deepEqual(brookLines.map((f) => f.length), [5, 5, 5, 5]);

  const unknown = await kafkaTopics(['--describe', '--topic', 'interop-no-such-topic']);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stdout + unknown.stderr, /Topic 'interop-no-such-topic' does not exist as expected/);

  const deleted = await kafkaTopics(['--delete', '--topic', topic]);
  assert.equal(deleted.code, 0, deleted.stderr);
  const after = await brookCli(['topics', 'list', '-b', bootstrap]);
  assert.equal(after.code, 0, after.stderr);
  assert.ok(!after.stdout.split('\n').includes(topic), after.stdout);
});
