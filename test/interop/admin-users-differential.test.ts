/**
 * Kafka 4.4.0's `kafka-configs --entity-type users` against Apache Kafka 4.4.0 and Brook
 * side by side: the same SCRAM users created with `--alter --add-config`, then `--describe`
 * (all users, one user, an unknown user) prints the same lines on both. DescribeClientQuotas
 * (which `--describe` sends first) answers bad filters with Kafka's codes and messages; and
 * since Brook enforces no quotas, `--add-config producer_byte_rate=...` is refused by Brook
 * (Kafka takes it), saying so. One broker of each for the file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { DiffPair } from '../support/differential/pair.js';
import type { ComponentData } from '../../src/protocol/messages/describe-client-quotas.js';

const CONFIG_COMMAND = 'org.apache.kafka.tools.ConfigCommand';

let pair: DiffPair;

before(async () => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  kafkaClasspath();
  pair = await DiffPair.start({ 'num.partitions': '1' });
}, { timeout: 120_000 });

after(async () => {
  await pair?.stop();
});

function kafkaConfigs(bootstrap: string, args: readonly string[]): Promise<RunResult> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), CONFIG_COMMAND, '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });
}

const lines = (out: string): string[] => out.split('\n').filter((l) => l.trim() !== '');

/**
 * A describe line with its mechanisms sorted: Kafka lists a user's mechanisms in the
 * iteration order of a hash map keyed by an enum (identity hash codes), which changes from
 * one JVM to the next, so only the set of mechanisms per user is comparable.
 */
const sortedMechanisms = (line: string): string => line.replace(/ are (.*)$/, (_, list: string) => ` are ${list.split(', ').sort().join(', ')}`);

/** Runs the same kafka-configs command against both brokers. */
async function onBoth(args: readonly string[]): Promise<{ kafka: RunResult; brook: RunResult }> {
  const [kafka, brook] = await Promise.all([kafkaConfigs(pair.kafkaBroker.bootstrap, args), kafkaConfigs(`${pair.brookBroker.host}:${pair.brookBroker.port}`, args)]);
  return { kafka, brook };
}

test('kafka-configs --alter/--describe --entity-type users: the same SCRAM lines from Kafka 4.4.0 and Brook', { timeout: 180_000 }, async () => {
  const users = (name: string, config: string) => ['--alter', '--entity-type', 'users', '--entity-name', name, '--add-config', config];
  // One mechanism per command: Kafka refuses a user twice in one AlterUserScramCredentials.
  for (const args of [users('alice', 'SCRAM-SHA-512=[iterations=8192,password=alice-secret]'), users('alice', 'SCRAM-SHA-256=[password=alice-256]'),
    users('bob', 'SCRAM-SHA-256=[password=bob-secret]')]) {
    const { kafka, brook } = await onBoth(args);
    assert.equal(kafka.code, 0, kafka.stderr);
    assert.equal(brook.code, 0, brook.stderr);
    assert.deepEqual(lines(brook.stdout), lines(kafka.stdout));
  }
  for (const args of [
    ['--describe', '--entity-type', 'users'],
    ['--describe', '--entity-type', 'users', '--entity-name', 'alice'],
    ['--describe', '--entity-type', 'users', '--entity-name', 'bob'],
    ['--describe', '--entity-type', 'users', '--entity-name', 'nobody'],
  ]) {
    const { kafka, brook } = await onBoth(args);
    assert.equal(kafka.code, 0, `${args.join(' ')}: ${kafka.stderr}`);
    assert.equal(brook.code, 0, `${args.join(' ')}: ${brook.stderr}`);
    // Kafka lists users, and each user's mechanisms, in its own maps' order.
    assert.deepEqual(lines(brook.stdout).map(sortedMechanisms).sort(), lines(kafka.stdout).map(sortedMechanisms).sort(), args.join(' '));
  }
  // The oracle's lines name the mechanisms and iterations (a sanity check of what was compared).
  const { kafka } = await onBoth(['--describe', '--entity-type', 'users', '--entity-name', 'alice']);
  assert.deepEqual(lines(kafka.stdout).map(sortedMechanisms), ["SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=4096, SCRAM-SHA-512=iterations=8192"]);

  // Quotas: Kafka stores one; Brook refuses, saying why.
  const quota = await onBoth(users('alice', 'producer_byte_rate=1024'));
  assert.equal(quota.kafka.code, 0, quota.kafka.stderr);
  assert.notEqual(quota.brook.code, 0);
  assert.match(quota.brook.stdout + quota.brook.stderr, /Client quotas are not supported/);
});

test('DescribeClientQuotas: bad filters get Kafka 4.4.0\'s codes and messages; good ones no entries where Kafka has no quotas', { timeout: 60_000 }, async () => {
  const c = (entityType: string, matchType: number, match: string | null): ComponentData => ({ entityType, matchType, match });
  const filters: [string, ComponentData[], boolean][] = [
    ['duplicate type', [c('user', 2, null), c('user', 0, 'alice')], false],
    ['empty type', [c('', 2, null)], false],
    ['custom type', [c('tenant', 2, null)], false],
    ['ip with user', [c('ip', 2, null), c('user', 2, null)], false],
    ['exact without a name', [c('user', 0, null)], false],
    ['unknown match type', [c('user', 7, null)], false],
    ['exact client-id', [c('client-id', 0, 'nobody')], true],
    ['default user', [c('user', 1, null)], false],
    ['any ip', [c('ip', 2, null)], false],
  ];
  const answers: { kafka: unknown[]; brook: unknown[] } = { kafka: [], brook: [] };
  for (const [what, components, strict] of filters) {
    for (const version of [0, 1]) {
      const r = await pair.both('DescribeClientQuotas', version, { components, strict });
      answers.kafka.push([`${what} v${version}`, r.kafka.errorCode, r.kafka.errorMessage, r.kafka.entries]);
      answers.brook.push([`${what} v${version}`, r.brook.errorCode, r.brook.errorMessage, r.brook.entries]);
    }
  }
  assert.deepEqual(answers.brook, answers.kafka);
});
