/**
 * `brook broker`: runs the broker until SIGTERM/SIGINT. The contract (docs/CLI.md):
 * prints one line containing `listening on HOST:PORT` when ready (the first listener's
 * advertised address); shuts down cleanly with exit code 0 on a signal.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { Broker } from '../../broker/broker.js';
import type { BrokerConfig } from '../../broker/config.js';
import type { ConsumerGroupMigrationPolicy } from '../../coordinator/types.js';
import type { Command } from '../command.js';
import { topicDefaultsFromBrokerConfig, TOPIC_CONFIG_DEFS } from '../../storage/topic-configs.js';
import { atLeast, javaTrim, parseBoolean, parseInt32, parseInt64, parseProperties } from '../properties.js';
import { createLogger, parseLogFormat, parseLogLevel } from '../../util/log.js';
import { UsageError } from '../options.js';
import { parseClientAuth, sslSettingOf, type BrokerSslConfig } from '../../broker/ssl-config.js';

function isTopicDefaultSetting(key: string): boolean {
  for (const d of TOPIC_CONFIG_DEFS.values()) if (d.synonyms.some((s) => s.name === key)) return true;
  return false;
}

export const BROKER_HELP = `Usage: brook broker [options]

Runs a Kafka-compatible broker.

Options:
  --host HOST                              address to listen on (default 127.0.0.1)
  --port PORT                              port to listen on (default 9092; 0 = any free port)
  --listeners LIST                         Kafka's listeners, e.g. PLAINTEXT://0.0.0.0:9092,SSL://:9093
                                           (replaces --host and --port; PLAINTEXT, SSL, SASL_PLAINTEXT
                                           and SASL_SSL are served)
  --advertised-listeners LIST              Kafka's advertised.listeners (default: the listeners)
  --data-dir DIR                           where data lives (default ./data)
  --group-initial-rebalance-delay-ms MS    Kafka's group.initial.rebalance.delay.ms (default 3000)
  --group-min-session-timeout-ms MS        Kafka's group.min.session.timeout.ms (default 6000)
  --group-max-session-timeout-ms MS        Kafka's group.max.session.timeout.ms (default 1800000)
  --group-max-size N                       Kafka's group.max.size (default unbounded)
  --metrics-port PORT                      serve GET /metrics (Prometheus) and GET /health on HOST:PORT
                                           (0 = any free port; default: no metrics endpoint)
  --log-level LEVEL                        debug, info, warn, error or silent (default info, or BROOK_LOG_LEVEL)
  --log-format FORMAT                      text (logfmt: key=value) or json (one object per line)
                                           (default text, or BROOK_LOG_FORMAT)
  --config FILE                            a Kafka-style properties file (Java's .properties format)
  -h, --help                               show this help

Logs go to stderr. Besides requests and storage, the broker logs every group's lifecycle at
info: members joining, leaving or expiring, rebalances starting (with the reason) and
completing (generation, members, duration), offsets expiring, groups deleted.

Properties understood in --config: listeners, advertised.listeners,
listener.security.protocol.map, ssl.keystore.type (PEM), ssl.keystore.location,
ssl.keystore.certificate.chain, ssl.keystore.key, ssl.key.password, ssl.truststore.type (PEM),
ssl.truststore.location, ssl.truststore.certificates, ssl.client.auth (required, requested,
none), each also as listener.name.<name>.ssl.*, sasl.enabled.mechanisms (PLAIN, SCRAM-SHA-256,
SCRAM-SHA-512; required by SASL listeners), listener.name.<name>.sasl.enabled.mechanisms,
listener.name.<name>.<mechanism>.sasl.jaas.config (PLAIN: its user_NAME="PASSWORD" options are
users; SCRAM: checked only), sasl.mechanism.inter.broker.protocol (checked; no effect on a
single broker), sasl.server.max.receive.size, host, port, advertised.host.name, node.id, log.dirs,
num.partitions, auto.create.topics.enable, group.initial.rebalance.delay.ms,
group.min.session.timeout.ms, group.max.session.timeout.ms, group.max.size,
group.coordinator.rebalance.protocols, group.consumer.session.timeout.ms,
group.consumer.min.session.timeout.ms, group.consumer.max.session.timeout.ms,
group.consumer.heartbeat.interval.ms, group.consumer.min.heartbeat.interval.ms,
group.consumer.max.heartbeat.interval.ms, group.consumer.max.size, group.consumer.assignors,
group.consumer.assignment.interval.ms, group.consumer.min.assignment.interval.ms,
group.consumer.max.assignment.interval.ms,
group.consumer.migration.policy, offsets.retention.minutes, offsets.retention.check.interval.ms, offsets.topic.segment.bytes,
transaction.max.timeout.ms, transactional.id.expiration.ms, add.partitions.to.txn.retry.backoff.ms,
add.partitions.to.txn.retry.backoff.max.ms,
transaction.abort.timed.out.transaction.cleanup.interval.ms,
transaction.remove.expired.transaction.cleanup.interval.ms, transaction.state.log.num.partitions,
transaction.state.log.segment.bytes, log.cleaner.enable, log.cleaner.backoff.ms, socket.request.max.bytes,
connections.max.idle.ms, max.connections, socket.listen.backlog.size, log.retention.check.interval.ms,
log.flush.policy (always|never|<ms>), metrics.port, authorizer.class.name
(org.apache.kafka.metadata.authorizer.StandardAuthorizer), super.users,
allow.everyone.if.no.acl.found, and the broker
settings that are topic defaults (log.retention.hours/ms/bytes, log.segment.bytes,
log.roll.ms, message.max.bytes, log.message.timestamp.type, ...).`;

export { parseProperties };

/** An INT setting of the command line or --config (Java's Integer.parseInt, as Kafka). */
function int(name: string, value: string): number {
  return parseInt32(name, value);
}

/** Kafka's LIST type: comma-separated, trimmed, case-insensitive names (here lower-cased). */
function list(value: string): string[] {
  return value.split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '');
}

/** Kafka's atLeast(1) settings (group.max.size, offsets.retention.minutes, ...). */
function positive(name: string, value: string): number {
  return atLeast(name, parseInt32(name, value), 1);
}

/** Kafka's CaseInsensitiveValidString for group.consumer.migration.policy, with its message. */
function migrationPolicy(value: string): ConsumerGroupMigrationPolicy {
  const policy = value.toLowerCase();
  if (policy === 'bidirectional' || policy === 'upgrade' || policy === 'downgrade' || policy === 'disabled') return policy;
  throw new Error(`Invalid value ${value} for configuration group.consumer.migration.policy: String must be one of (case insensitive): bidirectional, upgrade, downgrade, disabled`);
}

/** A malformed option value is a usage error (exit code 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

type BrokerSettings = { -readonly [K in keyof BrokerConfig]?: BrokerConfig[K] };

const LISTENER_SSL = /^listener\.name\.([^.]+)\.(ssl\..+)$/;

/**
 * An `ssl.*` or `listener.name.<name>.ssl.*` property into `config`; false when it is not one
 * Brook knows. (`ssl.endpoint.identification.algorithm` is taken and ignored: on a broker it
 * only concerns the connections Kafka's brokers open to each other.)
 */
function sslProperty(config: BrokerSettings, key: string, value: string): boolean {
  const m = LISTENER_SSL.exec(key);
  const property = m === null ? key : m[2]!;
  if (m === null && property === 'ssl.endpoint.identification.algorithm') return true;
  const setting = sslSettingOf(property);
  if (setting === undefined) return false;
  const parsed = setting === 'clientAuth' ? parseClientAuth(value) : value;
  if (m === null) {
    config.ssl = { ...config.ssl, [setting]: parsed };
  } else {
    const name = m[1]!.toUpperCase();
    const listeners: Record<string, BrokerSslConfig> = { ...config.listenerSsl };
    listeners[name] = { ...listeners[name], [setting]: parsed };
    config.listenerSsl = listeners;
  }
  return true;
}

const LISTENER_SASL_MECHANISMS = /^listener\.name\.([^.]+)\.sasl\.enabled\.mechanisms$/;
const LISTENER_SASL_JAAS = /^listener\.name\.([^.]+)\.(plain|scram-sha-256|scram-sha-512)\.sasl\.jaas\.config$/;

/**
 * `listener.name.<name>.sasl.enabled.mechanisms` or `listener.name.<name>.<mechanism>.sasl.jaas.config`
 * into `config`; false when `key` is neither. (Kafka spells the mechanism in lower case there.)
 */
function saslProperty(config: BrokerSettings, key: string, value: string): boolean {
  const m = LISTENER_SASL_MECHANISMS.exec(key);
  if (m !== null) {
    config.listenerSaslEnabledMechanisms = { ...config.listenerSaslEnabledMechanisms, [m[1]!.toUpperCase()]: value };
    return true;
  }
  const j = LISTENER_SASL_JAAS.exec(key);
  if (j === null) return false;
  const listener = j[1]!.toUpperCase();
  const jaas: Record<string, Record<string, string>> = { ...config.listenerSaslJaasConfig };
  jaas[listener] = { ...jaas[listener], [j[2]!.toUpperCase()]: value };
  config.listenerSaslJaasConfig = jaas;
  return true;
}

export function configFromProperties(props: Map<string, string>): BrokerSettings {
  const config: BrokerSettings = {};
  const unhandled: Record<string, string> = {};
  for (const [key, raw] of props) {
    // Kafka's ConfigDef trims every value before parsing it (strings included).
    const value = javaTrim(raw);
    const long = (): number => parseInt64(key, value);
    switch (key) {
      case 'listeners': config.listeners = value; break;
      case 'advertised.listeners': config.advertisedListeners = value; break;
      case 'listener.security.protocol.map': config.listenerSecurityProtocolMap = value; break;
      case 'host': config.host = value; break;
      case 'port': config.port = int(key, value); break;
      case 'advertised.host.name': config.advertisedHost = value; break;
      case 'log.dirs': case 'log.dir': config.dataDir = javaTrim(value.split(',')[0]!); break;
      case 'node.id': case 'broker.id': config.nodeId = int(key, value); break;
      case 'num.partitions': config.numPartitions = positive(key, value); break;
      case 'auto.create.topics.enable': config.autoCreateTopics = parseBoolean(key, value); break;
      case 'group.initial.rebalance.delay.ms': config.groupInitialRebalanceDelayMs = int(key, value); break;
      case 'group.min.session.timeout.ms': config.groupMinSessionTimeoutMs = int(key, value); break;
      case 'group.max.session.timeout.ms': config.groupMaxSessionTimeoutMs = int(key, value); break;
      case 'group.max.size': config.groupMaxSize = positive(key, value); break;
      case 'group.coordinator.rebalance.protocols': config.groupCoordinatorRebalanceProtocols = list(value); break;
      case 'group.consumer.session.timeout.ms': config.groupConsumerSessionTimeoutMs = positive(key, value); break;
      case 'group.consumer.min.session.timeout.ms': config.groupConsumerMinSessionTimeoutMs = positive(key, value); break;
      case 'group.consumer.max.session.timeout.ms': config.groupConsumerMaxSessionTimeoutMs = positive(key, value); break;
      case 'group.consumer.heartbeat.interval.ms': config.groupConsumerHeartbeatIntervalMs = positive(key, value); break;
      case 'group.consumer.min.heartbeat.interval.ms': config.groupConsumerMinHeartbeatIntervalMs = positive(key, value); break;
      case 'group.consumer.max.heartbeat.interval.ms': config.groupConsumerMaxHeartbeatIntervalMs = positive(key, value); break;
      case 'group.consumer.max.size': config.groupConsumerMaxSize = positive(key, value); break;
      case 'group.consumer.assignors': config.groupConsumerAssignors = list(value); break;
      case 'group.consumer.assignment.interval.ms': config.groupConsumerAssignmentIntervalMs = atLeast(key, int(key, value), 0); break;
      case 'group.consumer.min.assignment.interval.ms': config.groupConsumerMinAssignmentIntervalMs = atLeast(key, int(key, value), 0); break;
      case 'group.consumer.max.assignment.interval.ms': config.groupConsumerMaxAssignmentIntervalMs = atLeast(key, int(key, value), 0); break;
      case 'group.consumer.migration.policy': config.groupConsumerMigrationPolicy = migrationPolicy(value); break;
      case 'offsets.retention.minutes': config.offsetsRetentionMs = positive(key, value) * 60_000; break;
      case 'offsets.retention.check.interval.ms': config.offsetsRetentionCheckIntervalMs = atLeast(key, long(), 1); break;
      case 'offsets.topic.segment.bytes': config.offsetsTopicSegmentBytes = positive(key, value); break;
      case 'transaction.max.timeout.ms': config.transactionMaxTimeoutMs = positive(key, value); break;
      case 'add.partitions.to.txn.retry.backoff.ms': config.addPartitionsToTxnRetryBackoffMs = positive(key, value); break;
      case 'add.partitions.to.txn.retry.backoff.max.ms': config.addPartitionsToTxnRetryBackoffMaxMs = atLeast(key, int(key, value), 0); break;
      case 'transactional.id.expiration.ms': config.transactionalIdExpirationMs = positive(key, value); break;
      case 'transaction.abort.timed.out.transaction.cleanup.interval.ms': config.transactionAbortTimedOutTransactionCleanupIntervalMs = positive(key, value); break;
      case 'transaction.remove.expired.transaction.cleanup.interval.ms': config.transactionRemoveExpiredTransactionCleanupIntervalMs = positive(key, value); break;
      case 'transaction.state.log.num.partitions': config.transactionStateLogNumPartitions = positive(key, value); break;
      case 'transaction.state.log.segment.bytes': config.transactionStateLogSegmentBytes = positive(key, value); break;
      case 'log.cleaner.enable': config.logCleanerEnable = parseBoolean(key, value); break;
      case 'log.cleaner.backoff.ms': config.logCleanerBackoffMs = atLeast(key, long(), 0); break;
      case 'socket.request.max.bytes': config.maxRequestBytes = positive(key, value); break;
      case 'sasl.enabled.mechanisms': config.saslEnabledMechanisms = value; break;
      case 'sasl.mechanism.inter.broker.protocol': config.saslMechanismInterBrokerProtocol = value; break;
      case 'sasl.server.max.receive.size': config.saslServerMaxReceiveSize = positive(key, value); break;
      case 'connections.max.idle.ms': config.connectionsMaxIdleMs = long(); break;
      case 'max.connections': config.maxConnections = atLeast(key, int(key, value), 0); break;
      case 'socket.listen.backlog.size': config.listenBacklog = positive(key, value); break;
      case 'log.retention.check.interval.ms': config.retentionCheckIntervalMs = atLeast(key, long(), 1); break;
      case 'metrics.port': config.metricsPort = atLeast(key, int(key, value), 0); break;
      case 'authorizer.class.name': config.authorizerClassName = value; break;
      case 'super.users': config.superUsers = value; break;
      // StandardAuthorizer reads it with Boolean.parseBoolean: anything but "true" is false.
      case 'allow.everyone.if.no.acl.found': config.allowEveryoneIfNoAclFound = value.toLowerCase() === 'true'; break;
      case 'log.flush.policy':
        config.flush = value === 'always' || value === 'never' ? value : { intervalMs: long() };
        break;
      default:
        if (!sslProperty(config, key, value) && !saslProperty(config, key, value)) unhandled[key] = raw;
    }
  }
  // Broker settings that are topic defaults (log.retention.hours, message.max.bytes, ...).
  const topicDefaults = topicDefaultsFromBrokerConfig(unhandled);
  const unknown = Object.keys(unhandled).filter((k) => !isTopicDefaultSetting(k));
  if (unknown.length > 0) throw new Error(`unknown broker properties: ${unknown.join(', ')}`);
  if (Object.keys(topicDefaults).length > 0) config.topicDefaults = topicDefaults;
  return config;
}

export const BROKER_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  listeners: { type: 'string' },
  'advertised-listeners': { type: 'string' },
  'data-dir': { type: 'string' },
  'group-initial-rebalance-delay-ms': { type: 'string' },
  'group-min-session-timeout-ms': { type: 'string' },
  'group-max-session-timeout-ms': { type: 'string' },
  'group-max-size': { type: 'string' },
  'metrics-port': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const brokerCommand: Command = {
  name: 'broker',
  gracefulStopMs: null,
  async run(args, context) {
    const { values } = parseArgs({
      args,
      options: BROKER_OPTIONS,
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${BROKER_HELP}\n`);
      return 0;
    }
    const config: BrokerSettings = values.config ? configFromProperties(parseProperties(readFileSync(values.config, 'utf8'))) : {};
    if (values.host !== undefined) config.host = values.host;
    if (values.port !== undefined) config.port = int('--port', values.port);
    if (values.listeners !== undefined) config.listeners = values.listeners;
    if (values['advertised-listeners'] !== undefined) config.advertisedListeners = values['advertised-listeners'];
    if (values['data-dir'] !== undefined) config.dataDir = values['data-dir'];
    if (values['group-initial-rebalance-delay-ms'] !== undefined) {
      config.groupInitialRebalanceDelayMs = int('--group-initial-rebalance-delay-ms', values['group-initial-rebalance-delay-ms']);
    }
    const minSession = values['group-min-session-timeout-ms'];
    if (minSession !== undefined) config.groupMinSessionTimeoutMs = int('--group-min-session-timeout-ms', minSession);
    const maxSession = values['group-max-session-timeout-ms'];
    if (maxSession !== undefined) config.groupMaxSessionTimeoutMs = int('--group-max-session-timeout-ms', maxSession);
    if (values['group-max-size'] !== undefined) config.groupMaxSize = positive('--group-max-size', values['group-max-size']);
    if (values['metrics-port'] !== undefined) config.metricsPort = atLeast('--metrics-port', int('--metrics-port', values['metrics-port']), 0);
    const level = values['log-level'] !== undefined ? usage(() => parseLogLevel(values['log-level']!)) : undefined;
    const format = values['log-format'] !== undefined ? usage(() => parseLogFormat(values['log-format']!)) : undefined;
    const broker = await Broker.start({ ...config, log: createLogger('broker', level, undefined, format) });
    process.stdout.write(`brook broker listening on ${broker.host}:${broker.port}\n`);
    if (broker.metricsPort !== null) process.stdout.write(`brook broker metrics at http://${broker.host}:${broker.metricsPort}/metrics\n`);
    return new Promise<number>((resolve) => {
      const shutdown = (signal: string): void => {
        process.stderr.write(`brook broker: ${signal}, shutting down\n`);
        broker.stop().then(() => resolve(0), (err: unknown) => {
          process.stderr.write(`brook broker: shutdown failed: ${(err as Error).message}\n`);
          resolve(1);
        });
      };
      // A second signal exits at once (the CLI's main): acknowledged data is already fsynced.
      context.interrupted.addEventListener('abort', () => shutdown(String(context.interrupted.reason)), { once: true });
    });
  },
};
