/**
 * Kafka's server.properties names into the broker's settings (`brook broker --config FILE`):
 * each setting of the table (broker-configs.ts) under its name or an alias, parsed and checked
 * as Kafka's ConfigDef does; the families `ssl.*`, `listener.name.<name>.ssl.*`,
 * `listener.name.<name>.sasl.enabled.mechanisms` and
 * `listener.name.<name>.<mechanism>.sasl.jaas.config`; and the broker configs that set topic
 * defaults (log.retention.hours, message.max.bytes, ...). An unknown name is an error.
 */
import { topicDefaultsFromBrokerConfig } from '../storage/topic-configs.js';
import { javaTrim } from '../util/java-properties.js';
import { BROKER_TOPIC_DEFAULTS, SETTING_DEFS_BY_PROPERTY, type AnySettingDef } from './broker-configs.js';
import type { BrokerConfig } from './config.js';
import { problemError } from './config-types.js';
import { parseClientAuth, sslSettingOf, type BrokerSslConfig } from './ssl-config.js';

/** Some of the broker's settings, as `Broker.start` takes them. */
export type PartialBrokerConfig = { -readonly [K in keyof BrokerConfig]?: BrokerConfig[K] };

/**
 * A setting's value from text, as Kafka's ConfigDef reads it (parsed, then checked), in the
 * option's unit; errors name `name` (the property, or the flag it came from).
 */
export function settingFromText(def: AnySettingDef, text: string, name: string, parse = def.type.parse): unknown {
  const value = parse(text, name);
  const problem = def.check?.(value);
  if (problem) throw problemError(name, def.type.format(value) ?? text, problem);
  return def.scale === undefined ? value : (value as number) * def.scale;
}

const LISTENER_SSL = /^listener\.name\.([^.]+)\.(ssl\..+)$/;

/**
 * An `ssl.*` or `listener.name.<name>.ssl.*` property into `config`; false when it is not one
 * Brook knows. (`ssl.endpoint.identification.algorithm` is taken and ignored: on a broker it
 * only concerns the connections Kafka's brokers open to each other.)
 */
function sslProperty(config: PartialBrokerConfig, key: string, value: string): boolean {
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
function saslProperty(config: PartialBrokerConfig, key: string, value: string): boolean {
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

/** The settings a server.properties file sets (parsed with parseProperties of util/java-properties.ts). */
export function configFromProperties(props: ReadonlyMap<string, string>): PartialBrokerConfig {
  const config: PartialBrokerConfig = {};
  const settings = config as Record<string, unknown>;
  const topicDefaults: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [key, raw] of props) {
    // Kafka's ConfigDef trims every value before parsing it (strings included).
    const value = javaTrim(raw);
    const def = SETTING_DEFS_BY_PROPERTY.get(key);
    if (def !== undefined) settings[def.option] = settingFromText(def, value, key);
    else if (BROKER_TOPIC_DEFAULTS.has(key)) topicDefaults[key] = raw;
    else if (!sslProperty(config, key, value) && !saslProperty(config, key, value)) unknown.push(key);
  }
  // Broker settings that are topic defaults (log.retention.hours, message.max.bytes, ...).
  const defaults = topicDefaultsFromBrokerConfig(topicDefaults);
  if (unknown.length > 0) throw new Error(`unknown broker properties: ${unknown.join(', ')}`);
  if (Object.keys(defaults).length > 0) config.topicDefaults = defaults;
  return config;
}
