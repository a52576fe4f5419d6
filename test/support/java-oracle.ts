/**
 * Talks to the Java conformance program (test/support/java): Apache Kafka's own generated
 * message classes, asked to encode JSON values and decode bytes, one JSON line per request.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseJson, stringify, RawJson, type Json, JsonNumber } from './kafka-json.js';

const javaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'support', 'java');

/** Builds the jar when missing or stale; returns its path. */
export function buildJavaSupport(): string {
  const result = spawnSync('bash', [join(javaDir, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error(`test/support/java/build.sh failed (${result.status})`);
  return result.stdout.trim();
}

export function javaCommand(mainClass: string): string[] {
  return ['java', '-cp', buildJavaSupport(), mainClass];
}

export interface OracleReply {
  ok: boolean;
  error?: string;
  hex?: string;
  data?: Json;
  reencodedHex?: string;
  messages?: Record<string, { lowest: number; highest: number }>;
}

export class JavaOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (reply: OracleReply) => void>();
  private nextId = 1;

  private constructor(jar: string) {
    this.child = spawn('java', ['-jar', jar], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d: Buffer) => process.stderr.write(`[java oracle] ${d.toString()}`));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const parsed = parseJson(line) as Record<string, Json>;
      const id = Number((parsed['id'] as JsonNumber).raw);
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(this.toReply(parsed));
    });
  }

  static start(): JavaOracle {
    return new JavaOracle(buildJavaSupport());
  }

  private toReply(p: Record<string, Json>): OracleReply {
    const reply: OracleReply = { ok: p['ok'] === true };
    if (typeof p['error'] === 'string') reply.error = p['error'];
    if (typeof p['hex'] === 'string') reply.hex = p['hex'];
    if (typeof p['reencodedHex'] === 'string') reply.reencodedHex = p['reencodedHex'];
    if (p['data'] !== undefined) reply.data = p['data'];
    if (p['messages'] !== undefined) {
      const messages: Record<string, { lowest: number; highest: number }> = {};
      for (const [name, range] of Object.entries(p['messages'] as Record<string, Record<string, JsonNumber>>)) {
        messages[name] = { lowest: Number(range['lowest']!.raw), highest: Number(range['highest']!.raw) };
      }
      reply.messages = messages;
    }
    return reply;
  }

  private send(request: Record<string, unknown>): Promise<OracleReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${stringify({ id, ...request })}\n`);
    });
  }

  versions(): Promise<OracleReply> {
    return this.send({ op: 'versions' });
  }

  encode(message: string, version: number, kafkaJson: string): Promise<OracleReply> {
    return this.send({ op: 'encode', message, version, data: new RawJson(kafkaJson) });
  }

  decode(message: string, version: number, bytes: Buffer): Promise<OracleReply> {
    return this.send({ op: 'decode', message, version, hex: bytes.toString('hex') });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => this.child.on('close', resolve));
  }
}
