/**
 * The broker config table (src/broker/broker-configs.ts) and what derives from it: every
 * default passes its own checks, names are unique, the families document the properties
 * broker-properties.ts reads, the coordinators get their settings, DescribeConfigs has a value
 * for every reported config, and `Broker.start` checks its options as `--config` checks
 * properties (Kafka's defaults and messages themselves are compared with Kafka's own
 * KafkaConfig in test/interop/broker-config-kafka.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Broker, silentLogger } from '../../src/index.js';
import { BROKER_CONFIG_ENTRIES, BROKER_TOPIC_DEFAULTS, DYNAMIC_BROKER_CONFIGS, OPTION_DEFS, type AnySettingDef } from '../../src/broker/broker-configs.js';
import { brokerConfigEntries } from '../../src/broker/broker-config-view.js';
import { brokerConfig, DEFAULT_BROKER_CONFIG, groupCoordinatorSettings, transactionCoordinatorSettings } from '../../src/broker/config.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';
import { SSL_PROPERTIES } from '../../src/broker/ssl-config.js';
import { DEFAULT_GROUP_COORDINATOR_CONFIG } from '../../src/coordinator/types.js';
import { DEFAULT_TRANSACTION_COORDINATOR_CONFIG } from '../../src/coordinator/transactions/types.js';
import { tempDir } from '../support/brook.js';

const SETTINGS = BROKER_CONFIG_ENTRIES.filter((d): d is AnySettingDef => d.kind === 'setting');

test('every default is of its type and passes its check; the defaults pass the checks between settings', () => {
  for (const d of OPTION_DEFS.values()) {
    if (d.default === undefined) continue;
    assert.ok(d.type.accepts(d.default), `${d.option}: ${String(d.default)}`);
    if (d.kind === 'setting') assert.equal(d.check?.(d.default) ?? null, null, d.option);
  }
  assert.deepEqual(brokerConfig(), DEFAULT_BROKER_CONFIG);
});

test('each name means one thing: settings, their aliases, reported configs and the broker configs that set topic defaults', () => {
  const settingNames = SETTINGS.flatMap((d) => [d.name, ...d.aliases]);
  // A reported config may be a setting's alias (broker.id, reported with node.id's value).
  const reported = BROKER_CONFIG_ENTRIES.flatMap((d) => (d.kind === 'reported' && !settingNames.includes(d.name) ? [d.name] : []));
  assert.deepEqual(BROKER_CONFIG_ENTRIES.flatMap((d) => (d.kind === 'reported' && settingNames.includes(d.name) ? [d.name] : [])), ['broker.id']);
  const names = [...settingNames, ...reported];
  const reportedTopicDefaults = new Set(['min.insync.replicas', 'compression.type', 'unclean.leader.election.enable', 'log.flush.interval.ms']);
  // A reported config may also set a topic default (it is reported with a fixed value); a setting never.
  const all = [...names, ...[...BROKER_TOPIC_DEFAULTS.keys()].filter((n) => !reportedTopicDefaults.has(n))];
  assert.deepEqual(all.filter((n, i) => all.indexOf(n) !== i), []);
  const options = [...OPTION_DEFS.keys()];
  assert.equal(new Set(options).size, BROKER_CONFIG_ENTRIES.filter((d) => d.kind !== 'reported').length);
  const flags = SETTINGS.flatMap((d) => (d.flag ? [d.flag.name] : []));
  assert.equal(new Set(flags).size, flags.length);
});

test('the ssl family documents exactly the ssl.* properties --config reads', () => {
  const ssl = BROKER_CONFIG_ENTRIES.find((d) => d.kind === 'family' && d.option === 'ssl');
  assert.ok(ssl !== undefined && ssl.kind === 'family');
  const documented = ssl.properties.flatMap((p) => p.names).sort();
  assert.deepEqual(documented, [...Object.values(SSL_PROPERTIES), 'ssl.endpoint.identification.algorithm'].sort());
  for (const name of documented) assert.doesNotThrow(() => configFromProperties(new Map([[name, name === 'ssl.client.auth' ? 'none' : 'PEM']])), name);
});

test('the coordinators get their settings from the broker\'s, and take their defaults from the coordinators\'', () => {
  const group = groupCoordinatorSettings(DEFAULT_BROKER_CONFIG);
  assert.equal(Object.keys(group).length, 24);
  for (const [key, value] of Object.entries(group)) assert.deepEqual(value, DEFAULT_GROUP_COORDINATOR_CONFIG[key as keyof typeof group], key);
  assert.deepEqual(transactionCoordinatorSettings(DEFAULT_BROKER_CONFIG), DEFAULT_TRANSACTION_COORDINATOR_CONFIG);
  const c = brokerConfig({ groupInitialRebalanceDelayMs: 7, offsetsRetentionMs: 60_000, groupConsumerMigrationPolicy: 'upgrade', transactionMaxTimeoutMs: 9, groupShareMaxSize: 3 });
  assert.equal(groupCoordinatorSettings(c).initialRebalanceDelayMs, 7);
  assert.equal(groupCoordinatorSettings(c).offsetsRetentionMs, 60_000);
  assert.equal(groupCoordinatorSettings(c).consumerGroupMigrationPolicy, 'upgrade');
  assert.equal(groupCoordinatorSettings(c).shareGroupMaxSize, 3);
  assert.equal(transactionCoordinatorSettings(c).transactionMaxTimeoutMs, 9);
});

test('DescribeConfigs has a value for every reported config, and the dynamic ones set topic defaults Brook implements', () => {
  const listeners = [{ name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' as const, host: null, port: 9092, advertisedHost: 'broker', advertisedPort: 9092 }];
  const entries = brokerConfigEntries(DEFAULT_BROKER_CONFIG, listeners, { dynamicBroker: {}, dynamicDefault: {}, staticTopicDefaults: {} });
  for (const d of BROKER_CONFIG_ENTRIES) {
    if (d.kind !== 'reported') continue;
    assert.notEqual(entries.find((e) => e.name === d.name)?.value ?? null, null, d.name);
  }
  assert.equal(entries.find((e) => e.name === 'listeners')!.value, 'PLAINTEXT://:9092');
  assert.equal(entries.find((e) => e.name === 'log.flush.interval.ms')!.value, '0');
  for (const name of DYNAMIC_BROKER_CONFIGS) {
    const d = BROKER_TOPIC_DEFAULTS.get(name)!;
    assert.ok(d.topic.implemented && d.topic.synonyms[0]!.name === name, name);
    assert.equal(entries.find((e) => e.name === name)?.readOnly, false, name);
  }
  assert.ok(DYNAMIC_BROKER_CONFIGS.has('log.retention.ms') && !DYNAMIC_BROKER_CONFIGS.has('log.retention.hours') && !DYNAMIC_BROKER_CONFIGS.has('max.connections'));
});

test('Broker.start checks each option as --config checks the property, with Kafka\'s messages', () => {
  assert.throws(() => brokerConfig({ groupMaxSize: 0 }), /^Error: Invalid value 0 for configuration group.max.size: Value must be at least 1$/);
  assert.throws(() => brokerConfig({ numPartitions: -1 }), /^Error: Invalid value -1 for configuration num.partitions: Value must be at least 1$/);
  assert.throws(() => brokerConfig({ maxConnections: -5 }), /^Error: Invalid value -5 for configuration max.connections: Value must be at least 0$/);
  assert.throws(() => brokerConfig({ groupInitialRebalanceDelayMs: 1.5 }), /^Error: Invalid value 1.5 for configuration group.initial.rebalance.delay.ms: Not a number of type INT$/);
  assert.throws(() => brokerConfig({ groupMaxSessionTimeoutMs: 2 ** 31 }), /Not a number of type INT/);
  assert.throws(() => brokerConfig({ groupMaxSize: '5' as unknown as number }), /^Error: Invalid value "5" for configuration group.max.size: Not a number of type INT$/);
  assert.throws(() => brokerConfig({ autoCreateTopics: 'true' as unknown as boolean }), /Expected value to be either true or false/);
  assert.throws(() => brokerConfig({ groupCoordinatorRebalanceProtocols: ['classic', 'stream'] }),
    /^Error: Invalid value stream for configuration group.coordinator.rebalance.protocols: String must be one of: consumer, classic, share, streams$/);
  assert.throws(() => brokerConfig({ groupConsumerMigrationPolicy: 'Upgrade' as 'upgrade' }), /DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL/);
  assert.throws(() => brokerConfig({ flush: { intervalMs: 0.5 } }), /log.flush.policy/);
  assert.throws(() => brokerConfig({ metricsPort: -1 }), /^Error: Invalid value -1 for configuration metrics.port: Value must be at least 0$/);
  // An option in another unit than its property is named as the option.
  assert.throws(() => brokerConfig({ offsetsRetentionMs: 0 }), /^Error: Invalid value 0 for configuration offsetsRetentionMs: Value must be at least 1$/);
  assert.equal(brokerConfig({ offsetsRetentionMs: 2_147_483_647 * 60_000 }).offsetsRetentionMs, 2_147_483_647 * 60_000);
  // What Kafka accepts is accepted; null where the option may be absent; undefined keeps the default.
  assert.equal(brokerConfig({ metricsPort: null, dataDir: null, authorizerClassName: null }).dataDir, null);
  assert.equal(brokerConfig({ groupMaxSize: undefined }).groupMaxSize, DEFAULT_BROKER_CONFIG.groupMaxSize);
  assert.deepEqual(brokerConfig({ listeners: ['PLAINTEXT://:0'], superUsers: ['User:a'], flush: { intervalMs: 100 } }).listeners, ['PLAINTEXT://:0']);
  // A settings record may hold a key without a value (as `{ ...ssl, keyPassword: undefined }` makes).
  assert.deepEqual(brokerConfig({ ssl: { keystoreType: 'PEM', keyPassword: undefined } }).ssl, { keystoreType: 'PEM', keyPassword: undefined });
  assert.throws(() => brokerConfig({ ssl: { keystoreType: 7 } as never }), /for configuration ssl: Expected ssl\.\* settings/);
});

test('Broker.start refuses an option it does not know, before opening anything', async () => {
  const dir = tempDir();
  try {
    const typo = { port: 0, dataDir: `${dir.path}/data`, log: silentLogger, groupInitialRebalanceDelay: 0 } as Parameters<typeof Broker.start>[0];
    await assert.rejects(Broker.start(typo), /^Error: Unknown broker option: groupInitialRebalanceDelay$/);
    await assert.rejects(Broker.start({ port: 0, dataDir: `${dir.path}/data`, log: silentLogger, groupMaxSize: 0 }), /group.max.size/);
    // Nothing was opened: no data directory (and its lock) was made.
    assert.equal(existsSync(`${dir.path}/data`), false);
  } finally {
    dir.remove();
  }
});
