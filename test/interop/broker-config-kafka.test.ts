/**
 * The broker config table (src/broker/broker-configs.ts) against Apache Kafka 4.4's own
 * KafkaConfig, through test/support/kafka/BrokerConfigOracle.java: for every setting under a
 * Kafka name, Kafka's default is the one the table states (what DescribeConfigs reports as
 * DEFAULT_CONFIG, and the docs as "Kafka: ..."), and values from `--config` are read as
 * Kafka reads them: the same value, or the same error message, including Kafka's start-up
 * checks between settings. Brook's deliberate differences are listed below and asserted as such.
 *
 * Needs Java 17 and Kafka's classpath (test/support/kafka/build.sh).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BROKER_CONFIG_ENTRIES, BROKER_TOPIC_DEFAULTS, kafkaDefaultText, type AnySettingDef } from '../../src/broker/broker-configs.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';
import { brokerConfig } from '../../src/broker/config.js';
import { planListeners } from '../../src/broker/listener-config.js';
import { runProcess } from '../support/clients/run.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { projectRoot, tempDir } from '../support/brook.js';

const ORACLE = join(projectRoot, 'test', 'support', 'kafka', 'BrokerConfigOracle.java');

type Outcome = { values: Record<string, string | null>; unknown: string[] } | { error: string };

/** The settings under Kafka's names, but those the oracle's KRaft node sets itself. */
const ORACLE_SETS = new Set(['node.id', 'listener.security.protocol.map']);
const SETTINGS = BROKER_CONFIG_ENTRIES.filter((d): d is AnySettingDef => d.kind === 'setting' && d.brookOnly !== true && !ORACLE_SETS.has(d.name));
const NAMES = [...SETTINGS.map((d) => d.name), ...BROKER_TOPIC_DEFAULTS.keys()];

/** Kafka's outcome for each set of properties (written escaped as java.util.Properties reads them; the values are ASCII). */
async function kafka(cases: readonly Readonly<Record<string, string>>[]): Promise<Outcome[]> {
  const dir = tempDir('brook-broker-config-');
  try {
    const files = cases.map((props, i) => {
      const file = join(dir.path, `${i}.properties`);
      writeFileSync(file, Object.entries(props).map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\').replace(/^ /, '\\ ')}`).join('\n') + '\n', 'latin1');
      return file;
    });
    const result = await runProcess('java', ['-cp', kafkaClasspath(), ORACLE, NAMES.join(','), ...files], { timeoutMs: 120_000 });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Outcome);
  } finally {
    dir.remove();
  }
}

/**
 * Brook's reading of one property, with the checks of a start (the listeners' too): the
 * setting's value as Kafka's text (in the property's unit), or the error.
 */
function brook(name: string, value: string): { value: string | null } | { error: string } {
  const def = SETTINGS.find((d) => d.name === name)!;
  try {
    const config = brokerConfig(configFromProperties(new Map([[name, value]])));
    planListeners(config);
    const v = (config as unknown as Record<string, unknown>)[def.option];
    return { value: def.type.format(def.scale === undefined ? v : (v as number) / def.scale) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Settings whose Kafka default the table does not state, with why. Everything else must agree. */
const DEFAULT_DIFFERENCES: Readonly<Record<string, string>> = {
  'authorizer.class.name': "no authorizer: Brook's option is null, Kafka's default the empty string",
};

/** Names Kafka 4.4's KafkaConfig does not define, with why Brook takes them. */
const NOT_KAFKAS: Readonly<Record<string, string>> = {
  'advertised.host.name': 'removed in Kafka 4.0; Brook still takes it',
  'super.users': "StandardAuthorizer's own setting (the authorizer plugin reads it)",
  'allow.everyone.if.no.acl.found': "StandardAuthorizer's own setting",
};

test('Kafka\'s defaults are the table\'s, and every name but the listed ones is a KafkaConfig setting', { skip: !kafkaAvailable(), timeout: 180_000 }, async () => {
  const [outcome] = await kafka([{}]);
  assert.ok(outcome !== undefined && 'values' in outcome, JSON.stringify(outcome));
  assert.deepEqual(outcome.unknown.sort(), Object.keys(NOT_KAFKAS).sort());
  const differing = SETTINGS.filter((d) => !outcome.unknown.includes(d.name) && outcome.values[d.name] !== kafkaDefaultText(d))
    .map((d) => `${d.name}: Kafka ${JSON.stringify(outcome.values[d.name])}, table ${JSON.stringify(kafkaDefaultText(d))}`);
  assert.deepEqual(differing.map((l) => l.split(':')[0]).sort(), Object.keys(DEFAULT_DIFFERENCES).sort(), differing.join('\n'));
});

/** Broker configs that set topic defaults whose default the table does not state as KafkaConfig's, with why. */
const TOPIC_DEFAULT_DIFFERENCES: Readonly<Record<string, string>> = {
  'log.flush.scheduler.interval.ms': "KafkaConfig's default is Long.MAX_VALUE, but DescribeConfigs reports no default for it among flush.ms's "
    + 'synonyms (test/interop/broker-differential.test.ts compares them); the table says what is reported',
};

test('the defaults of the broker configs that set topic defaults are Kafka\'s', { skip: !kafkaAvailable(), timeout: 180_000 }, async () => {
  const [outcome] = await kafka([{}]);
  assert.ok(outcome !== undefined && 'values' in outcome, JSON.stringify(outcome));
  const differing = [...BROKER_TOPIC_DEFAULTS.values()].filter((d) => (outcome.values[d.name] ?? null) !== d.default)
    .map((d) => `${d.name}: Kafka ${JSON.stringify(outcome.values[d.name])}, table ${JSON.stringify(d.default)}`);
  assert.deepEqual(differing.map((l) => l.split(':')[0]).sort(), Object.keys(TOPIC_DEFAULT_DIFFERENCES).sort(), differing.join('\n'));
});

/** Values for each type of setting: valid ones, and each way Kafka refuses one. */
const VALUES: Readonly<Record<string, readonly string[]>> = {
  int: ['7', ' +7 ', '0', '-1', '2147483647', '2147483648', 'x', '1.5', '1e3', '0x10', ''],
  long: ['7', '0', '-1', '9007199254740991', 'x', '1.5', ''],
  boolean: ['true', ' FALSE ', 'yes', '1', ''],
  string: ['x', ' y '],
  list: ['a', 'a, b'],
};
const EXTRA: Readonly<Record<string, readonly string[]>> = {
  'group.coordinator.rebalance.protocols': ['classic', 'classic,consumer', 'Classic, Consumer', 'consumer', 'classic,share,streams', 'classic,nope', ''],
  'group.consumer.assignors': ['uniform', 'range,uniform', 'uniform, uniform', 'Uniform', 'nope', ''],
  'group.consumer.migration.policy': ['upgrade', 'Downgrade', 'DISABLED', 'sideways', ''],
  'group.consumer.session.timeout.ms': ['50000', '70000', '4000'],
  'group.consumer.heartbeat.interval.ms': ['6000', '50000'],
  'group.consumer.assignment.interval.ms': ['20000'],
  'group.consumer.max.assignment.interval.ms': ['500'],
  'group.share.assignors': ['simple', 'org.apache.kafka.coordinator.group.assignor.SimpleAssignor', 'simple,simple', 'nope', ''],
  'group.share.session.timeout.ms': ['50000', '70000', '4000'],
  'group.share.heartbeat.interval.ms': ['6000', '50000'],
  'group.share.max.size': ['1000', '1001'],
  'group.share.assignment.interval.ms': ['20000'],
  'group.share.max.assignment.interval.ms': ['500'],
};

/** Brook reads these values differently from Kafka, with why. */
const VALUE_DIFFERENCES: Readonly<Record<string, string>> = {
  'log.dirs="a, b"': 'Brook keeps its data in one directory: the first of the list',
  'group.consumer.migration.policy="Downgrade"': 'Brook keeps the policy in lower case; Kafka keeps the text and reads it case-insensitively',
  'group.consumer.migration.policy="DISABLED"': 'the same',
  'sasl.server.max.receive.size="0"': 'Kafka takes it and then refuses every request before authentication; Brook refuses it at start',
  'sasl.server.max.receive.size="-1"': 'the same',
  // Kafka requires connection.failed.authentication.delay.ms (100) below it; Brook has no such
  // delay (a failed authentication closes the connection at once), so no such bound.
  'connections.max.idle.ms="7"': 'no connection.failed.authentication.delay.ms',
  'connections.max.idle.ms="0"': 'the same',
  'num.network.threads="0"': 'Brook: every socket on the event loop, no socket thread; Kafka needs a network thread',
  'num.network.threads="-1"': 'refused by both, Brook at "at least 0"',
};

/** Brook's outcome is Kafka's: the same value, or an error whose message holds Kafka's (Brook may add why). */
function same(kafkaSide: { value: string | null } | { error: string }, b: { value: string | null } | { error: string }): boolean {
  if ('error' in kafkaSide) return 'error' in b && b.error.includes(kafkaSide.error);
  return 'value' in b && b.value === kafkaSide.value;
}

test('values from --config are read as Kafka reads them: the same value, or the same error', { skip: !kafkaAvailable(), timeout: 180_000 }, async () => {
  const cases = SETTINGS.filter((d) => !(d.name in NOT_KAFKAS)).flatMap((d) => {
    const values = EXTRA[d.name] ?? VALUES[d.type.kafkaType] ?? [];
    return values.map((v) => ({ name: d.name, value: v }));
  });
  const outcomes = await kafka(cases.map((c) => ({ [c.name]: c.value })));
  const differing: string[] = [];
  cases.forEach((c, i) => {
    const k = outcomes[i]!;
    const b = brook(c.name, c.value);
    const kafkaSide = 'error' in k ? { error: k.error } : { value: k.values[c.name] ?? null };
    if (!same(kafkaSide, b)) differing.push(`${c.name}=${JSON.stringify(c.value)}\n  kafka: ${JSON.stringify(kafkaSide)}\n  brook: ${JSON.stringify(b)}`);
  });
  const unexpected = differing.filter((l) => !(l.split('\n')[0]! in VALUE_DIFFERENCES));
  assert.deepEqual(unexpected, [], `${unexpected.length} of ${cases.length} differ:\n${unexpected.join('\n')}`);
  // The listed differences are still differences (else the list is stale).
  assert.deepEqual(differing.map((l) => l.split('\n')[0]!).sort(), Object.keys(VALUE_DIFFERENCES).sort());
});
