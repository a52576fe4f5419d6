/**
 * The web console's HTTP server (node:http, on `console.host` and `console.port`): the pages
 * (plain ES modules, CSS and hand-written SVG from the package's `console/` folder; no build
 * step, nothing fetched from elsewhere) and the JSON API they read (console-api.ts):
 *
 * - `GET /`, `GET /groups/<id>`: the page (one document; the script draws the view the path names);
 * - `GET /assets/<file>`: its scripts and style sheet;
 * - `GET /api/overview`, `GET /api/groups/<id>`, `GET /api/groups/<id>/lag-history`;
 * - `GET /api/events`: Server-Sent Events, `timeline` (each new flight recorder entry of a
 *   group the caller may describe) and `tick` (every 2 s: keeps the stream open through proxies
 *   and tells the page it is live; the page also polls);
 * - `POST /api/groups/<id>/reset-offsets`, `DELETE /api/groups/<id>`: with console.writes.enable.
 *
 * Unknown paths get 404, other methods 405 (with Allow), API answers `Cache-Control: no-store`.
 * Writes need a JSON body (POST) and refuse a cross-origin `Origin`, so that another site's
 * page cannot send them through the operator's browser. Authentication: console-auth.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../util/log.js';
import type { BrokerContext } from '../broker-context.js';
import { AclOperation, ResourceType, authorize } from '../authorization.js';
import { consoleContext, type ConsoleCaller } from './kafka-calls.js';
import { ConsoleApi, type ApiAnswer } from './console-api.js';
import { BASIC_CHALLENGE, type ConsoleAuth } from './console-auth.js';
import type { LagHistory } from './lag-history.js';

/** Longest URL served (a longer one: 414). */
const MAX_URL_LENGTH = 4096;
/** Largest request body read (a write's JSON). */
const MAX_BODY_BYTES = 64 * 1024;
const TICK_MS = 2_000;
/** Open event streams at most (each an open connection); more get 503 and the page polls. */
export const MAX_EVENT_STREAMS = 64;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml',
};
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;
const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

/**
 * The package's `console/` folder: next to `dist/` when running the build (the broker's module
 * is dist/src/broker/console/), next to `src/` when running the sources.
 */
export function consoleAssetsDir(): string {
  for (const up of ['../../../../console/', '../../../console/']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error('the console\'s assets (the package\'s console/ folder) are missing');
}

/** The assets, read once: a few small files. */
function loadAssets(dir: string): Map<string, { body: Buffer; type: string }> {
  const assets = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(dir)) {
    const m = ASSET_NAME.exec(name);
    if (m !== null) assets.set(name, { body: readFileSync(`${dir}${name}`), type: CONTENT_TYPES[m[1]!]! });
  }
  return assets;
}

interface Route {
  readonly kind: 'page' | 'asset' | 'overview' | 'group' | 'lag-history' | 'events' | 'reset-offsets';
  readonly methods: readonly string[];
  readonly groupId?: string;
  readonly asset?: string;
}

/** The route of a path (segments decoded one by one, so a group id may hold `/`); null: 404; 'bad': undecodable. */
export function route(path: string): Route | null | 'bad' {
  const raw = path.split('/').slice(1);
  let seg: string[];
  try {
    seg = raw.map((s) => decodeURIComponent(s));
  } catch {
    return 'bad';
  }
  const GET = ['GET', 'HEAD'];
  if (path === '/') return { kind: 'page', methods: GET };
  if (seg.length === 2 && seg[0] === 'groups' && seg[1] !== '') return { kind: 'page', methods: GET, groupId: seg[1] };
  if (seg.length === 2 && seg[0] === 'assets') return { kind: 'asset', methods: GET, asset: seg[1] };
  if (seg[0] !== 'api') return null;
  if (seg.length === 2 && seg[1] === 'overview') return { kind: 'overview', methods: GET };
  if (seg.length === 2 && seg[1] === 'events') return { kind: 'events', methods: ['GET'] };
  if (seg[1] !== 'groups' || seg.length < 3 || seg[2] === '') return null;
  if (seg.length === 3) return { kind: 'group', methods: [...GET, 'DELETE'], groupId: seg[2] };
  if (seg.length === 4 && seg[3] === 'lag-history') return { kind: 'lag-history', methods: GET, groupId: seg[2] };
  if (seg.length === 4 && seg[3] === 'reset-offsets') return { kind: 'reset-offsets', methods: ['POST'], groupId: seg[2] };
  return null;
}

export interface ConsoleServerOptions {
  readonly broker: BrokerContext;
  readonly auth: ConsoleAuth;
  readonly lagHistory: LagHistory;
  readonly writesEnabled: boolean;
  readonly log: Logger;
}

export class ConsoleServer {
  private readonly api: ConsoleApi;
  private readonly assets: Map<string, { body: Buffer; type: string }>;
  /** Open event streams, with who opened each (an entry goes only to those who may describe its group). */
  private readonly streams = new Map<ServerResponse, ConsoleCaller>();
  private readonly tick: NodeJS.Timeout;
  private unsubscribe: () => void = () => undefined;

  private constructor(
    private readonly server: Server,
    /** The port it listens on (the OS's choice when asked for 0). */
    readonly port: number,
    private readonly options: ConsoleServerOptions,
  ) {
    this.api = new ConsoleApi(options.broker, options.lagHistory, options.writesEnabled);
    this.assets = loadAssets(consoleAssetsDir());
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((err: unknown) => {
        options.log.error('console request failed', { err, url: (req.url ?? '').slice(0, 200) });
        if (!res.headersSent) this.json(res, 500, { error: 'INTERNAL', message: 'the console failed to answer; see the broker log' });
        else res.destroy();
      });
    });
    this.tick = setInterval(() => this.broadcast('tick', { timeMs: Date.now() }, null), TICK_MS);
    this.tick.unref();
    this.unsubscribe = options.broker.timeline.subscribe((entry) => this.broadcast('timeline', entry, entry.group));
  }

  /** Listens on host:port; rejects (nothing left open) when it cannot, e.g. the port is taken. */
  static async listen(host: string, port: number, options: ConsoleServerOptions): Promise<ConsoleServer> {
    consoleAssetsDir();
    const server = createServer({ maxHeaderSize: 16 * 1024 });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => options.log.error('console endpoint error', { err }));
    const address = server.address();
    const bound = typeof address === 'object' && address !== null ? address.port : port;
    return new ConsoleServer(server, bound, options);
  }

  /** Closes the listener and every connection (event streams and keep-alive ones too). */
  close(): Promise<void> {
    clearInterval(this.tick);
    this.unsubscribe();
    for (const s of this.streams.keys()) s.end();
    this.streams.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (url.length > MAX_URL_LENGTH) return this.text(res, 414, 'URI too long\n');
    const path = url.split('?', 1)[0]!;
    const r = route(path);
    if (r === 'bad') return this.json(res, 400, { error: 'BAD_REQUEST', message: 'malformed percent-encoding in the path' });
    if (r === null) return path.startsWith('/api/') ? this.json(res, 404, { error: 'NOT_FOUND', message: 'no such endpoint' }) : this.text(res, 404, 'not found\n');
    const method = req.method ?? 'GET';
    if (!r.methods.includes(method)) {
      res.setHeader('Allow', r.methods.join(', '));
      return this.json(res, 405, { error: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed here` });
    }
    const who = await this.options.auth.authenticate(req);
    if (who === null) {
      res.setHeader('WWW-Authenticate', BASIC_CHALLENGE);
      return this.json(res, 401, { error: 'UNAUTHORIZED', message: 'sign in with a SASL user of the broker' });
    }
    const caller: ConsoleCaller = { principal: who.principal, clientHost: `/${req.socket.remoteAddress ?? 'unknown'}` };
    const head = method === 'HEAD';
    switch (r.kind) {
      case 'page': return this.asset(res, 'index.html', head);
      case 'asset': return this.asset(res, r.asset!, head);
      case 'overview': return this.answer(res, await this.api.overview(caller), head);
      case 'lag-history': return this.answer(res, await this.api.lagHistory(caller, r.groupId!), head);
      case 'events': return this.events(req, res, caller);
      case 'group':
        if (method === 'DELETE') {
          if (!this.sameOrigin(req)) return this.json(res, 403, { error: 'CROSS_ORIGIN', message: 'writes must come from the console\'s own pages' });
          return this.answer(res, await this.api.deleteGroup(caller, r.groupId!), false);
        }
        return this.answer(res, await this.api.group(caller, r.groupId!), head);
      case 'reset-offsets': {
        if (!this.sameOrigin(req)) return this.json(res, 403, { error: 'CROSS_ORIGIN', message: 'writes must come from the console\'s own pages' });
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return this.json(res, 415, { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'send JSON' });
        const body = await readJson(req);
        if (body === TOO_LARGE) return this.json(res, 413, { error: 'TOO_LARGE', message: `at most ${MAX_BODY_BYTES} bytes` });
        if (body === BAD_JSON) return this.json(res, 400, { error: 'BAD_REQUEST', message: 'the body is not JSON' });
        return this.answer(res, await this.api.resetOffsets(caller, r.groupId!, body), false);
      }
    }
  }

  /** A write's Origin, when the browser sends one, must be this server's (Host). */
  private sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }

  private events(req: IncomingMessage, res: ServerResponse, caller: ConsoleCaller): void {
    if (this.streams.size >= MAX_EVENT_STREAMS) return this.json(res, 503, { error: 'BUSY', message: `${MAX_EVENT_STREAMS} event streams are open already` });
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', ...SECURITY_HEADERS });
    res.write(': brook console events\n\n');
    this.streams.set(res, caller);
    req.on('close', () => this.streams.delete(res));
  }

  /** Sends an event to every stream; one about a group only to those who may describe it. */
  private broadcast(event: string, data: unknown, groupId: string | null): void {
    if (this.streams.size === 0) return;
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const [s, caller] of this.streams) {
      if (groupId !== null && !authorize(consoleContext(this.options.broker, caller), AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) continue;
      s.write(text);
    }
  }

  private asset(res: ServerResponse, name: string, head: boolean): void {
    const a = this.assets.get(name);
    if (a === undefined) return this.text(res, 404, 'not found\n');
    res.writeHead(200, { 'Content-Type': a.type, 'Content-Length': a.body.length, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS });
    res.end(head ? undefined : a.body);
  }

  private answer(res: ServerResponse, a: ApiAnswer, head: boolean): void {
    this.json(res, a.status, a.body, head);
  }

  private json(res: ServerResponse, status: number, body: unknown, head = false): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
    res.end(head ? undefined : text);
  }

  private text(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
    res.end(body);
  }
}

const TOO_LARGE = Symbol('too large');
const BAD_JSON = Symbol('bad json');

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
      } catch {
        resolve(BAD_JSON);
      }
    });
    req.on('error', () => {
      if (!done) resolve(BAD_JSON);
      done = true;
    });
  });
}
