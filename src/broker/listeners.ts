/**
 * The broker's listeners: one TCP server per configured listener (listener-config.ts), a TLS
 * one for an SSL listener (ssl-config.ts), and
 * the address each advertises. A listener bound to port 0 advertises the port the OS chose
 * (Kafka's ListenerInfo.withEphemeralPortsCorrected); a wildcard host (empty, 0.0.0.0, ::)
 * advertises this machine's canonical host name, as Kafka's withWildcardHostnamesResolved
 * does for an empty host (InetAddress.getLocalHost().getCanonicalHostName()).
 */
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import type { SslListener } from './ssl-config.js';
import { hostname, networkInterfaces } from 'node:os';
import { lookup, lookupService } from 'node:dns/promises';
import { connectionString, isWildcardHost, type Endpoint, type ListenerPlan, type SecurityProtocol } from './listener-config.js';
import type { Logger } from '../util/log.js';
import type { SocketThread, WorkerListener } from './socket-thread.js';

/** A bound listener, as the broker reports it. */
export interface ListenerInfo {
  /** Kafka's listener name, e.g. `PLAINTEXT`. */
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
  /** The host it is bound to, as configured; null for every interface (an empty host). */
  readonly host: string | null;
  /** The port it is bound to (the OS's choice when configured as 0). */
  readonly port: number;
  /** What Metadata, FindCoordinator and DescribeCluster name to clients of this listener. */
  readonly advertisedHost: string;
  readonly advertisedPort: number;
}

/** A listener's server: on the event loop, or on the socket thread (socket-thread.ts). */
export type ListenerServer = Server | WorkerListener;

export interface BoundListener extends ListenerInfo {
  /**
   * A tls.Server for an SSL listener: its connections arrive as 'secureConnection'. A
   * plaintext listener's is a WorkerListener when the socket thread runs.
   */
  readonly server: ListenerServer;
}

/** The TLS settings of each SSL listener, by listener name (sslListeners). */
export type ListenerTls = ReadonlyMap<string, SslListener>;

function listen(endpoint: Endpoint, backlog: number, tls: TlsOptions | undefined, sockets: SocketThread | null): Promise<ListenerServer> {
  // TLS stays on the event loop (its handshakes and certificates are the broker's).
  if (tls === undefined && sockets !== null) return sockets.listen(endpoint.host, endpoint.port, backlog);
  const server = tls === undefined ? createServer({ noDelay: true }) : createTlsServer({ ...tls, noDelay: true });
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    // A null host: every interface (IPv6 and IPv4 where the OS has both), as Kafka binds an empty host.
    server.listen({ port: endpoint.port, host: endpoint.host ?? undefined, backlog }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export function closeServers(servers: readonly ListenerServer[]): Promise<void> {
  return Promise.all(servers.map((s) => new Promise<void>((resolve) => (s as Server).close(() => resolve())))).then(() => undefined);
}

/**
 * Java's InetAddress.getLocalHost().getCanonicalHostName(): the host name's address, then that
 * address's name. Where the host name does not resolve (Kafka then fails to start), the first
 * non-loopback IPv4 address, else 127.0.0.1: reachable from somewhere rather than nowhere.
 */
export async function canonicalHostName(): Promise<string> {
  let address: string;
  try {
    // Java prefers IPv4 addresses (java.net.preferIPv6Addresses=false).
    ({ address } = await lookup(hostname(), { family: 4 }).catch(() => lookup(hostname())));
  } catch {
    const external = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && i.family === 'IPv4' && !i.internal);
    return external?.address ?? '127.0.0.1';
  }
  try {
    return (await lookupService(address, 0)).hostname;
  } catch {
    return address;
  }
}

/**
 * Binds every listener of the plan, in order; when one fails, the ones already bound are
 * closed before the error is thrown, so a failed start holds no port.
 */
export async function bindListeners(plan: ListenerPlan, backlog: number, tls: ListenerTls, log: Logger, sockets: SocketThread | null = null): Promise<BoundListener[]> {
  const servers: ListenerServer[] = [];
  try {
    for (const endpoint of plan.listeners) {
      try {
        servers.push(await listen(endpoint, backlog, tls.get(endpoint.name)?.options, sockets));
      } catch (err) {
        log.error('cannot listen', { listener: connectionString(endpoint.name, endpoint.host, endpoint.port), err });
        throw err;
      }
    }
    let wildcardHost: Promise<string> | undefined;
    const bound: BoundListener[] = [];
    for (const [i, endpoint] of plan.listeners.entries()) {
      const server = servers[i]!;
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : endpoint.port;
      // A listener advertised.listeners leaves out advertises its own address (Kafka: its
      // clients see no broker in Metadata; see docs/ARCHITECTURE.md, deliberate differences).
      const advertised = plan.advertised.get(endpoint.name) ?? endpoint;
      let advertisedHost = advertised.host;
      if (isWildcardHost(advertisedHost)) {
        wildcardHost ??= canonicalHostName();
        advertisedHost = await wildcardHost;
        log.info('resolved wildcard host', { listener: endpoint.name, host: advertisedHost });
      }
      bound.push({
        name: endpoint.name, securityProtocol: endpoint.securityProtocol, host: endpoint.host, port, server,
        advertisedHost: advertisedHost!, advertisedPort: advertised.port === 0 ? port : advertised.port,
      });
    }
    return bound;
  } catch (err) {
    await closeServers(servers);
    throw err;
  }
}
