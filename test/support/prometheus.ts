/**
 * Reading a Prometheus endpoint in tests: an HTTP GET, a parser of the text format written
 * here from the format's description (not Brook's writer), and Prometheus's own validator,
 * `promtool check metrics` (Debian package `prometheus`), when it is installed.
 */
import { request } from 'node:http';
import { commandWorks, runProcess } from './clients/run.js';

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export function httpGet(port: number, path: string, method = 'GET'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a text exposition (comments skipped; label values unescaped). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
    let at = 0;
    while (at < body.length) {
      pair.lastIndex = at;
      const p = pair.exec(body);
      if (p === null) throw new Error(`bad labels in: ${line}`);
      labels[p[1]!] = p[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      at = pair.lastIndex;
    }
    const raw = m[3]!;
    out.push({ name: m[1]!, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  return out;
}

/** The value of the one sample with that name and (at least) those labels; undefined when none. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples match`);
  return found[0]?.value;
}

export const PROMTOOL_MISSING = 'promtool (Debian package prometheus) is not installed';

export function promtoolAvailable(): boolean {
  return commandWorks('promtool', ['--version']);
}

/** `promtool check metrics` on the text: its exit code and what it said (lint problems). */
export async function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  const r = await runProcess('promtool', ['check', 'metrics'], { input: text, timeoutMs: 20_000 });
  return { code: r.code, output: (r.stdout + r.stderr).trim() };
}
