/**
 * Kafka's SASL listener settings: `sasl.enabled.mechanisms` and its per-listener override
 * `listener.name.<name>.sasl.enabled.mechanisms`, checked when the broker starts. Brook
 * serves PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. Kafka's default, GSSAPI (Kerberos), and
 * OAUTHBEARER need machinery Brook does not have: naming them fails the start, and so does
 * a SASL listener with no mechanisms set (Kafka would enable GSSAPI there, which Brook
 * cannot serve; guessing another one would let clients in a way the operator did not pick).
 */
import type { ListenerPlan } from '../listener-config.js';

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

/** The enabled mechanisms of every SASL listener of the plan, by listener name; throws on a bad setting. */
export function saslListeners(plan: ListenerPlan, settings: SaslSettings): Map<string, readonly SaslMechanismName[]> {
  const perListener = new Map(Object.entries(settings.listenerSaslEnabledMechanisms ?? {}).map(([name, v]) => [name.toUpperCase(), v]));
  const result = new Map<string, readonly SaslMechanismName[]>();
  for (const l of plan.listeners) {
    if (l.securityProtocol !== 'SASL_PLAINTEXT' && l.securityProtocol !== 'SASL_SSL') continue;
    const own = perListener.get(l.name);
    if (own !== undefined) {
      result.set(l.name, mechanisms(own, `listener.name.${l.name.toLowerCase()}.sasl.enabled.mechanisms`, l.name));
    } else if (settings.saslEnabledMechanisms !== undefined) {
      result.set(l.name, mechanisms(settings.saslEnabledMechanisms, 'sasl.enabled.mechanisms', l.name));
    } else {
      throw new Error(`listener ${l.name} is ${l.securityProtocol} but sasl.enabled.mechanisms is not set (Kafka's default, GSSAPI, is not served by Brook): `
        + `set sasl.enabled.mechanisms to some of ${SASL_MECHANISMS.join(', ')}`);
    }
  }
  return result;
}
