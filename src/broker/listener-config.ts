/**
 * Kafka's listener settings, parsed and checked as Kafka's KafkaConfig does it: `listeners`
 * (`NAME://HOST:PORT,...`; an empty host binds every interface), `advertised.listeners`
 * (what Metadata, FindCoordinator and DescribeCluster name; defaults to `listeners`) and
 * `listener.security.protocol.map` (listener name to security protocol; by default each
 * protocol's own name). Errors carry Kafka's messages. Brook serves all four of Kafka's
 * security protocols: PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL.
 *
 * Without `listeners`, Brook's `host` and `port` make the one listener `PLAINTEXT://host:port`
 * (as Kafka's old `host.name` and `port` did), and `advertisedHost` (Kafka's old
 * `advertised.host.name`) its advertised host.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { BrokerConfig } from './config.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

/** A listener as configured: `host` null for an empty host (every interface); `port` 0 for one the OS picks. */
export interface Endpoint {
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
  readonly host: string | null;
  readonly port: number;
}

export interface ListenerPlan {
  /** What to bind, in configured order (the first is the one the ready line names). */
  readonly listeners: readonly Endpoint[];
  /**
   * The advertised endpoint of each listener that has one, by listener name. A listener
   * without one advertises its own address (see listeners.ts).
   */
  readonly advertised: ReadonlyMap<string, Endpoint>;
}

/** The settings as an embedding program may give them: Kafka's comma-separated string, or a list. */
export type ListenerList = string | readonly string[];

/** SocketServerConfigs' URI_PARSE_REGEXP: NAME://HOST:PORT, the host optionally in brackets (IPv6). */
const ENDPOINT = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/;

/** Kafka's Csv.parseCsvList: split at commas with the spaces around them; empty items dropped. */
function csvList(value: ListenerList): string[] {
  const items = typeof value === 'string' ? value.trim().split(/\s*,\s*/) : value.map((v) => v.trim());
  return items.filter((v) => v !== '');
}

/** Wildcard addresses: they name no host a client can dial. */
export function isWildcardHost(host: string | null): boolean {
  return host === null || host === '0.0.0.0' || host === '::';
}

function securityProtocolMap(value: BrokerConfig['listenerSecurityProtocolMap']): Map<string, SecurityProtocol> {
  const name = 'listener.security.protocol.map';
  if (value === undefined) return new Map(SECURITY_PROTOCOLS.map((p) => [p, p]));
  let entries: [string, string][];
  if (typeof value === 'string') {
    // Kafka's Csv.parseCsvMap: each entry split at its last colon.
    entries = csvList(value).map((entry) => {
      const at = entry.lastIndexOf(':');
      if (at < 0) throw new Error(`Error parsing configuration property '${name}': ${entry} is not NAME:PROTOCOL`);
      return [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
    });
  } else {
    entries = Object.entries(value);
  }
  return new Map(entries.map(([listener, protocol]) => {
    const p = protocol.toUpperCase() as SecurityProtocol;
    if (!SECURITY_PROTOCOLS.includes(p)) throw new Error(`Invalid security protocol \`${protocol}\` defined in ${name}`);
    return [listener.toUpperCase(), p];
  }));
}

/** SocketServerConfigs.listenerListToEndPoints and the checks of Kafka's AbstractKafkaConfig.validate. */
function endpoints(value: ListenerList, protocols: ReadonlyMap<string, SecurityProtocol>, requireDistinctPorts: boolean): Endpoint[] {
  const items = csvList(value);
  // Kafka names the list as Java prints a List.
  const text = `[${items.join(', ')}]`;
  const fail = (message: string): never => {
    throw new Error(`Error creating broker listeners from '${text}': ${message}`);
  };
  const result = items.map((entry): Endpoint => {
    const m = ENDPOINT.exec(entry);
    if (!m) return fail(`Unable to parse ${entry} to a broker endpoint`);
    const name = m[1]!.toUpperCase();
    const port = Number(m[3]);
    // (Kafka takes any int here and fails when it binds.)
    if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`port out of range: ${m[3]} in ${entry}`);
    const securityProtocol = protocols.get(name) ?? fail(`No security protocol defined for listener ${name}`);
    return { name, securityProtocol, host: m[2] === '' ? null : m[2]!, port };
  });
  if (new Set(result.map((e) => e.name)).size !== result.length) fail(`Each listener must have a different name, listeners: ${text}`);
  if (requireDistinctPorts) {
    const byPort = new Map<number, Endpoint[]>();
    for (const e of result) if (e.port !== 0) byPort.set(e.port, [...(byPort.get(e.port) ?? []), e]);
    for (const [port, same] of byPort) {
      if (same.length < 2) continue;
      // Kafka allows two listeners on one port when one binds an IPv4 address and the other an IPv6 one.
      const ipHosts = same.filter((e) => e.host !== null && (isIPv4(e.host) || isIPv6(e.host)));
      const others = same.filter((e) => !ipHosts.includes(e));
      if (new Set(others.map((e) => e.port)).size !== others.length) fail(`Each listener must have a different port, listeners: ${text}`);
      if (ipHosts.length === 0) continue;
      if (ipHosts.length === 2) {
        const [a, b] = [ipHosts[0]!.host!, ipHosts[1]!.host!];
        if (!((isIPv4(a) && isIPv6(b)) || (isIPv6(a) && isIPv4(b))) || others.length > 0) {
          fail(`If you have two listeners on the same port then one needs to be IPv4 and the other IPv6, listeners: ${text}, port: ${port}`);
        }
        continue;
      }
      fail(`Each listener must have a different port unless exactly one listener has an IPv4 address and the other IPv6 address, listeners: ${text}, port: ${port}`);
    }
  }
  return result;
}

/** The listeners to bind and what each advertises; throws Kafka's message on a bad setting. */
export function planListeners(config: BrokerConfig): ListenerPlan {
  const protocols = securityProtocolMap(config.listenerSecurityProtocolMap);
  const plaintext = (host: string, port: number): Endpoint => {
    const securityProtocol = protocols.get('PLAINTEXT');
    if (securityProtocol === undefined) throw new Error('No security protocol defined for listener PLAINTEXT');
    return { name: 'PLAINTEXT', securityProtocol, host: host === '' ? null : host, port };
  };
  const listeners = config.listeners !== undefined ? endpoints(config.listeners, protocols, true) : [plaintext(config.host, config.port)];
  let advertised: Endpoint[];
  if (config.advertisedListeners !== undefined) advertised = endpoints(config.advertisedListeners, protocols, false);
  // Port 0: the port the PLAINTEXT listener is bound to.
  else if (config.advertisedHost !== undefined) advertised = [plaintext(config.advertisedHost, 0)];
  else advertised = listeners;

  if (advertised.length === 0) throw new Error('There must be at least one broker advertised listener.');
  const names = new Set(listeners.map((l) => l.name));
  if (advertised.some((a) => !names.has(a.name))) {
    throw new Error('advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. '
      + `Found ${advertised.map((a) => a.name).join(',')}. The valid options based on the current configuration are ${[...names].join(',')}`);
  }
  // Kafka refuses 0.0.0.0 in advertised.listeners only when it is set (its default, listeners
  // itself, may bind 0.0.0.0: Brook then advertises the host name, as for an empty host).
  if (config.advertisedListeners !== undefined && advertised.some((a) => a.host === '0.0.0.0' || a.host === '::')) {
    throw new Error('advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address.');
  }
  return { listeners, advertised: new Map(advertised.map((a) => [a.name, a])) };
}

/** `NAME://HOST:PORT`, Kafka's connection string (IPv6 hosts in brackets). */
export function connectionString(name: string, host: string | null, port: number): string {
  const h = host === null ? '' : isIPv6(host) ? `[${host}]` : host;
  return `${name}://${h}:${port}`;
}
