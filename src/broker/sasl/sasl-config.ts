/**
 * Kafka's SASL listener settings: `sasl.enabled.mechanisms` and its per-listener override
 * `listener.name.<name>.sasl.enabled.mechanisms`, checked when the broker starts. Brook
 * serves PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. Kafka's default, GSSAPI (Kerberos), and
 * OAUTHBEARER need machinery Brook does not have: naming them fails the start, and so does
 * a SASL listener with no mechanisms set (Kafka would enable GSSAPI there, which Brook
 * cannot serve; guessing another one would let clients in a way the operator did not pick).
 *
 * Kafka's per-listener JAAS settings, `listener.name.<l>.<mechanism>.sasl.jaas.config`, are
 * read too: for PLAIN its `user_<name>="<password>"` options are users (Kafka's
 * PlainServerCallbackHandler), beside the credential store's; for SCRAM Kafka's server takes
 * nothing from it (its users live in the metadata log, Brook's in the credential store), so
 * it is only checked. `sasl.mechanism.inter.broker.protocol` is checked and has no effect:
 * a single broker opens no connections to others.
 */
import type { ListenerPlan } from '../listener-config.js';
import { passwordLoginEntry } from '../../protocol/sasl/jaas-config.js';

export type SaslMechanismName = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SASL_MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** Kafka's `sasl.server.max.receive.size` default: the largest frame read before authentication. */
export const DEFAULT_SASL_MAX_RECEIVE_SIZE = 524_288;

/** What the SASL settings a broker takes look like (BrokerConfig's `sasl*` fields). */
export interface SaslSettings {
  /** `sasl.enabled.mechanisms`: Kafka's comma-separated list, or a list. */
  readonly saslEnabledMechanisms?: string | readonly string[];
  /** `listener.name.<name>.sasl.enabled.mechanisms`, by listener name. */
  readonly listenerSaslEnabledMechanisms?: Readonly<Record<string, string | readonly string[]>>;
  /** `listener.name.<name>.<mechanism>.sasl.jaas.config`, by listener name, then mechanism (both upper case). */
  readonly listenerSaslJaasConfig?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** `sasl.mechanism.inter.broker.protocol`: checked, without effect on a single broker. */
  readonly saslMechanismInterBrokerProtocol?: string;
}

/** A SASL listener: its enabled mechanisms and the PLAIN users of its JAAS setting (name to password). */
export interface SaslListener {
  readonly mechanisms: readonly SaslMechanismName[];
  readonly jaasPlainUsers: ReadonlyMap<string, string>;
}

/** The mechanism names Kafka knows; Kafka's default for sasl.mechanism.inter.broker.protocol is GSSAPI. */
const KAFKA_MECHANISMS: readonly string[] = ['GSSAPI', 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'];

const USER_OPTION = 'user_';

/** The JAAS setting of one listener and mechanism, checked; for PLAIN its users. */
function jaasUsers(text: string, property: string, mechanism: string): Map<string, string> {
  let entry;
  try {
    entry = passwordLoginEntry(text);
  } catch (err) {
    throw new Error(`${property}: ${(err as Error).message}`);
  }
  const users = new Map<string, string>();
  if (mechanism !== 'PLAIN') return users;
  for (const [key, value] of entry.options) {
    if (key.startsWith(USER_OPTION) && key.length > USER_OPTION.length) users.set(key.slice(USER_OPTION.length), value);
  }
  return users;
}

function list(value: string | readonly string[]): string[] {
  const items = typeof value === 'string' ? value.split(',') : [...value];
  return items.map((v) => v.trim()).filter((v) => v !== '');
}

function mechanisms(value: string | readonly string[], property: string, listener: string): SaslMechanismName[] {
  const names = list(value);
  if (names.length === 0) throw new Error(`listener ${listener}: ${property} is empty: name at least one of ${SASL_MECHANISMS.join(', ')}`);
  for (const name of names) {
    if (name === 'GSSAPI' || name === 'OAUTHBEARER') {
      throw new Error(`listener ${listener}: ${property} names ${name}, which Brook does not serve (it serves ${SASL_MECHANISMS.join(', ')})`);
    }
    if (!(SASL_MECHANISMS as readonly string[]).includes(name)) {
      throw new Error(`listener ${listener}: ${property} names unknown SASL mechanism ${name} (Brook serves ${SASL_MECHANISMS.join(', ')})`);
    }
  }
  return [...new Set(names)] as SaslMechanismName[];
}

/** Every SASL listener of the plan, by listener name; throws on a bad setting. */
export function saslListeners(plan: ListenerPlan, settings: SaslSettings): Map<string, SaslListener> {
  const inter = settings.saslMechanismInterBrokerProtocol;
  if (inter !== undefined && !KAFKA_MECHANISMS.includes(inter)) {
    throw new Error(`sasl.mechanism.inter.broker.protocol names unknown SASL mechanism ${inter} (Kafka's are ${KAFKA_MECHANISMS.join(', ')})`);
  }
  const perListener = new Map(Object.entries(settings.listenerSaslEnabledMechanisms ?? {}).map(([name, v]) => [name.toUpperCase(), v]));
  const jaas = new Map(Object.entries(settings.listenerSaslJaasConfig ?? {}).map(([name, v]) => [name.toUpperCase(), v]));
  for (const [listener, byMechanism] of jaas) {
    for (const mechanism of Object.keys(byMechanism)) {
      if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism.toUpperCase())) {
        throw new Error(`listener.name.${listener.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config: Brook serves no SASL mechanism ${mechanism.toUpperCase()} (it serves ${SASL_MECHANISMS.join(', ')})`);
      }
    }
  }
  const result = new Map<string, SaslListener>();
  for (const l of plan.listeners) {
    if (l.securityProtocol !== 'SASL_PLAINTEXT' && l.securityProtocol !== 'SASL_SSL') continue;
    const own = perListener.get(l.name);
    let enabled: SaslMechanismName[];
    if (own !== undefined) {
      enabled = mechanisms(own, `listener.name.${l.name.toLowerCase()}.sasl.enabled.mechanisms`, l.name);
    } else if (settings.saslEnabledMechanisms !== undefined) {
      enabled = mechanisms(settings.saslEnabledMechanisms, 'sasl.enabled.mechanisms', l.name);
    } else {
      throw new Error(`listener ${l.name} is ${l.securityProtocol} but sasl.enabled.mechanisms is not set (Kafka's default, GSSAPI, is not served by Brook): `
        + `set sasl.enabled.mechanisms to some of ${SASL_MECHANISMS.join(', ')}`);
    }
    let jaasPlainUsers = new Map<string, string>();
    for (const [mechanism, text] of Object.entries(jaas.get(l.name) ?? {})) {
      const users = jaasUsers(text, `listener.name.${l.name.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config`, mechanism.toUpperCase());
      if (mechanism.toUpperCase() === 'PLAIN') jaasPlainUsers = users;
    }
    result.set(l.name, { mechanisms: enabled, jaasPlainUsers });
  }
  return result;
}
