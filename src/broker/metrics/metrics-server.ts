/**
 * The broker's HTTP endpoint for operators (node:http, on the broker's host and
 * `metricsPort`):
 *
 * - `GET /metrics`: every metric in Prometheus's text format (exposition.ts);
 * - `GET /health`: 200 `ok` while the broker serves requests, 503 before it does and once it
 *   is stopping (a load balancer or orchestrator takes it out of rotation then).
 *
 * HEAD is answered like GET, without a body; other methods get 405, other paths 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../../util/log.js';
import type { BrokerMetrics, MetricsSource } from './broker-metrics.js';
import { EXPOSITION_CONTENT_TYPE, Exposition } from './exposition.js';
import { ProcessMetrics } from './process-metrics.js';

interface Serving {
  readonly metrics: BrokerMetrics;
  readonly source: MetricsSource;
}

export class MetricsServer {
  private serving: Serving | null = null;
  private stopping = false;
  private readonly process = new ProcessMetrics();

  private constructor(
    private readonly server: Server,
    /** The port it listens on (the OS's choice when asked for 0). */
    readonly port: number,
    private readonly log: Logger,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res));
  }

  /** Listens on host:port; rejects (nothing left open) when it cannot, e.g. the port is taken. */
  static async listen(host: string | undefined, port: number, log: Logger): Promise<MetricsServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => log.error('metrics endpoint error', { err }));
    const address = server.address();
    const bound = typeof address === 'object' && address !== null ? address.port : port;
    return new MetricsServer(server, bound, log);
  }

  /** The broker is up: /metrics answers, /health says 200. */
  serve(metrics: BrokerMetrics, source: MetricsSource): void {
    this.serving = { metrics, source };
  }

  /** The broker is stopping: /health says 503 from now on. */
  markStopping(): void {
    this.stopping = true;
  }

  /** Closes the listener and every connection (keep-alive ones too). */
  close(): Promise<void> {
    this.stopping = true;
    this.process.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' && path !== '/health') return this.answer(res, 404, 'text/plain; charset=utf-8', 'not found: try /metrics or /health\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return this.answer(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    if (path === '/health') {
      if (this.serving !== null && !this.stopping) return this.answer(res, 200, 'text/plain; charset=utf-8', 'ok\n');
      return this.answer(res, 503, 'text/plain; charset=utf-8', this.stopping ? 'stopping\n' : 'starting\n');
    }
    if (this.serving === null) return this.answer(res, 503, 'text/plain; charset=utf-8', 'starting\n');
    let body: string;
    try {
      const e = this.serving.metrics.render(this.serving.source, new Exposition());
      this.process.render(e);
      body = e.text();
    } catch (err) {
      this.log.error('metrics scrape failed', { err });
      return this.answer(res, 500, 'text/plain; charset=utf-8', 'metrics unavailable\n');
    }
    this.answer(res, 200, EXPOSITION_CONTENT_TYPE, body);
  }

  private answer(res: ServerResponse, status: number, contentType: string, body: string): void {
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
    res.end(body);
  }
}
