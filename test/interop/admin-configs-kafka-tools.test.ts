/**
 * Apache Kafka 4.4.0's `kafka-topics` (TopicCommand) and `kafka-configs` (ConfigCommand)
 * against Brook's broker: adding partitions, setting and deleting topic and broker configs,
 * and describing them; `brook topics describe` and `brook configs describe` print the same
 * lines as Kafka's tools. Each tool run is a JVM, so the steps share one broker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';

const TOPIC_COMMAND = 'org.apache.kafka.tools.TopicCommand';
const CONFIG_COMMAND = 'org.apache.kafka.tools.ConfigCommand';

function java(mainClass: string, args: readonly string[]): Promise<RunResult> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), mainClass, ...args], { timeoutMs: 60_000 });
}

function ok(r: RunResult, what: string): string {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const lines = (out: string): string[] => out.split('\n').filter((l) => l.trim() !== '');

test('kafka-topics --alter --partitions and kafka-configs --alter/--describe (Kafka 4.4.0) against Brook; brook prints the same', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = broker.bootstrap;
  const b = ['-b', bootstrap];
  const node = String(broker.config.nodeId);
  const topic = 'interop-configs';
  const kafkaTopics = (args: readonly string[]) => java(TOPIC_COMMAND, ['--bootstrap-server', bootstrap, ...args]);
  const kafkaConfigs = (args: readonly string[]) => java(CONFIG_COMMAND, ['--bootstrap-server', bootstrap, ...args]);
  ok(await brookCli(['topics', 'create', topic, '--partitions', '2', ...b]), 'brook topics create');

  // Partitions: Kafka's tool grows the topic; a decrease is refused with Kafka's sentence.
  ok(await kafkaTopics(['--alter', '--topic', topic, '--partitions', '4']), 'kafka-topics --alter --partitions 4');
  const shrink = await kafkaTopics(['--alter', '--topic', topic, '--partitions', '3']);
  assert.notEqual(shrink.code, 0);
  assert.match(shrink.stdout + shrink.stderr, new RegExp(`The topic ${topic} currently has 4 partition\\(s\\); 3 would not be an increase\\.`));

  // Topic configs, with a list value kafka-configs writes in brackets.
  assert.equal(ok(await kafkaConfigs(['--alter', '--entity-type', 'topics', '--entity-name', topic, '--add-config', 'retention.ms=120000,cleanup.policy=[compact,delete]']),
    'kafka-configs --alter --add-config').trim(), `Completed updating config for topic ${topic}.`);
  const kafkaDescribe = lines(ok(await kafkaTopics(['--describe', '--topic', topic]), 'kafka-topics --describe')).map((l) => l.trim().split('\t'));
  assert.deepEqual(kafkaDescribe[0]!.filter((f) => !f.startsWith('TopicId: ')),
    [`Topic: ${topic}`, 'PartitionCount: 4', 'ReplicationFactor: 1', 'Configs: cleanup.policy=compact,delete,retention.ms=120000']);
  assert.equal(kafkaDescribe.length, 5);
  const brookDescribe = lines(ok(await brookCli(['topics', 'describe', topic, ...b]), 'brook topics describe')).map((l) => l.trim().split('\t'));
  assert.equal(brookDescribe.length, kafkaDescribe.length);
  // The header line whole; partition lines up to Isr (Kafka adds Elr fields).
  brookDescribe.forEach((fields, i) => assert.deepEqual(fields, kafkaDescribe[i]!.slice(0, fields.length), `line ${i}`));
  assert.equal(brookDescribe[0]!.length, 5);

  const described = ok(await kafkaConfigs(['--describe', '--entity-type', 'topics', '--entity-name', topic]), 'kafka-configs --describe topic');
  assert.deepEqual(lines(described), [
    `Dynamic configs for topic ${topic} are:`,
    '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}',
    '  retention.ms=120000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=120000}',
  ]);
  assert.deepEqual(lines(ok(await brookCli(['configs', 'describe', '--topic', topic, ...b]), 'brook configs describe --topic')), lines(described));

  ok(await kafkaConfigs(['--alter', '--entity-type', 'topics', '--entity-name', topic, '--delete-config', 'retention.ms']), 'kafka-configs --delete-config');
  // Kafka 4.4's tool deletes a config that is not set without complaint, as Brook's does.
  const missing = await kafkaConfigs(['--alter', '--entity-type', 'topics', '--entity-name', topic, '--delete-config', 'retention.ms']);
  assert.equal(ok(missing, 'kafka-configs --delete-config again').trim(), `Completed updating config for topic ${topic}.`);
  assert.equal(ok(await brookCli(['configs', 'alter', '--topic', topic, '--delete', 'retention.ms', ...b]), 'brook configs alter --delete').trim(),
    `Completed updating config for topic ${topic}.`);
  assert.deepEqual(lines(ok(await brookCli(['configs', 'describe', '--topic', topic, ...b]), 'brook configs describe')),
    lines(ok(await kafkaConfigs(['--describe', '--entity-type', 'topics', '--entity-name', topic]), 'kafka-configs --describe after the delete')));

  // Broker configs: one of those Brook takes dynamically, then the same lines from both.
  ok(await kafkaConfigs(['--alter', '--entity-type', 'brokers', '--entity-name', node, '--add-config', 'log.retention.ms=7200000']), 'kafka-configs --alter broker');
  const brokerDescribed = ok(await kafkaConfigs(['--describe', '--entity-type', 'brokers', '--entity-name', node]), 'kafka-configs --describe broker');
  assert.deepEqual(lines(brokerDescribed), [
    `Dynamic configs for broker ${node} are:`,
    '  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=7200000, DEFAULT_CONFIG:log.retention.hours=168}',
  ]);
  assert.deepEqual(lines(ok(await brookCli(['configs', 'describe', '--broker', node, ...b]), 'brook configs describe --broker')), lines(brokerDescribed));
  const topicNow = lines(ok(await brookCli(['configs', 'describe', '--topic', topic, '--all', ...b]), 'brook configs describe --all'));
  assert.ok(topicNow.includes('  retention.ms=7200000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=7200000, DEFAULT_CONFIG:log.retention.hours=168}'), topicNow.join('\n'));
  const refused = await kafkaConfigs(['--alter', '--entity-type', 'brokers', '--entity-name', node, '--add-config', 'num.partitions=3']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stdout + refused.stderr, /Cannot update these configs dynamically: \[num\.partitions\]/);
});
