/**
 * KafkaJS's own example applications (test/interop/kafkajs-examples, vendored unmodified from
 * KafkaJS v2.2.4) as child processes: a temp directory laid out as they expect it (the CA at
 * ./testHelpers/certs/cert-signed, `ip` and the client package in node_modules) with only
 * their `require('../index')` line pointed at a client package; their PrettyConsoleLogger
 * output read back into entries; and the "shape" of an entry (its keys and value types) to
 * compare runs whose values differ.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot, tempDir } from './brook.js';

export const EXAMPLES_DIR = join(projectRoot, 'test', 'interop', 'kafkajs-examples');

/** The examples' Git blob ids at KafkaJS's tag v2.2.4 (the vendored copies must match). */
export const EXAMPLE_BLOBS: Readonly<Record<string, string>> = {
  'admin.js': 'b38812fc0f55553840186ac18f812e1afa6b6a6b',
  'consumer.js': '71b0c8a1f2a108f6cde7963ce26852f5972edd2a',
  'producer.js': '00a14ccdb23abd1a6121454904d56dbe4f4d8e60',
  'prettyConsoleLogger.js': 'dfd278944d3dc88ba33a12ee768c8e787e0a0a45',
};

const ORIGINAL_REQUIRE = "require('../index')";

/** The id `git hash-object` gives a file's bytes. */
export function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Where the `ip` package the examples require is installed (a devDependency; NODE_PATH is honoured). */
function ipPackageDir(): string {
  try {
    return dirname(createRequire(join(projectRoot, 'package.json')).resolve('ip/package.json'));
  } catch {
    throw new Error("KafkaJS's examples require the 'ip' package: it is a devDependency, run npm install (or put it on NODE_PATH)");
  }
}

export interface ExamplesDir {
  readonly path: string;
  remove(): void;
}

/**
 * The four example files in a fresh temp dir with `require('../index')` replaced by
 * `require('<clientPackage>')` (the only line changed in each), `testHelpers/certs/cert-signed`
 * holding `caPem`, and node_modules linking `brook` (this checkout), `kafkajs` and `ip`.
 */
export function layOutExamples(clientPackage: 'brook/kafkajs' | 'kafkajs', caPem: string): ExamplesDir {
  const dir = tempDir('brook-kafkajs-examples-');
  const modules = join(dir.path, 'node_modules');
  mkdirSync(modules);
  symlinkSync(projectRoot, join(modules, 'brook'), 'dir');
  symlinkSync(realpathSync(join(projectRoot, 'node_modules', 'kafkajs')), join(modules, 'kafkajs'), 'dir');
  symlinkSync(ipPackageDir(), join(modules, 'ip'), 'dir');
  // No "type" field: the examples are CommonJS, as in KafkaJS's repository.
  writeFileSync(join(dir.path, 'package.json'), '{ "private": true }\n');
  mkdirSync(join(dir.path, 'testHelpers', 'certs'), { recursive: true });
  writeFileSync(join(dir.path, 'testHelpers', 'certs', 'cert-signed'), caPem);
  for (const [file, blob] of Object.entries(EXAMPLE_BLOBS)) {
    const bytes = readFileSync(join(EXAMPLES_DIR, file));
    assert.equal(gitBlobId(bytes), blob, `${file} is not KafkaJS v2.2.4's (unmodified) file`);
    const original = bytes.toString('utf8');
    const changed = original.replace(ORIGINAL_REQUIRE, `require('${clientPackage}')`);
    const before = original.split('\n');
    const after = changed.split('\n');
    assert.equal(after.length, before.length);
    assert.equal(after.filter((line, i) => line !== before[i]).length, 1, `${file}: exactly one line changes`);
    writeFileSync(join(dir.path, file), changed);
  }
  return dir;
}

/** One PrettyConsoleLogger entry: its level label, head line ("[namespace] message") and extra fields. */
export interface LogEntry {
  readonly stream: 'stdout' | 'stderr';
  readonly level: string;
  readonly title: string;
  readonly extra: Record<string, unknown>;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1B\[[0-9;]*m/g;
const TAGGED = /^(info|error|warn|debug):\s+([▪┏┃┗]) ?(.*)$/;

/**
 * Reads PrettyConsoleLogger's lines back: "label: ┏ title", then "label: ┃ [n] json line" and
 * "label: ┗ [n] }" (every entry has extra fields: the timestamp at least). Lines of neither
 * form (a blank line the examples print on a signal, Node's own warnings) go to `stray`.
 */
class EntryParser {
  readonly entries: LogEntry[] = [];
  readonly stray: string[] = [];
  private open: { level: string; title: string; json: string[] } | null = null;

  constructor(private readonly stream: 'stdout' | 'stderr') {}

  line(raw: string): void {
    const text = raw.replace(ANSI, '');
    const m = TAGGED.exec(text);
    if (!m) {
      if (this.open) this.open.title += `\n${text}`;
      else if (text.trim() !== '') this.stray.push(text);
      return;
    }
    const [, level, mark, rest] = m as unknown as [string, string, string, string];
    if (mark === '┏' || mark === '▪') {
      this.open = { level, title: rest, json: [] };
      if (mark === '▪') this.close();
      return;
    }
    if (!this.open) {
      this.stray.push(text);
      return;
    }
    this.open.json.push(rest.replace(/^\[\s*\d+\] /, ''));
    if (mark === '┗') this.close();
  }

  private close(): void {
    const { level, title, json } = this.open!;
    this.open = null;
    const extra = json.length > 0 ? (JSON.parse(json.join('\n')) as Record<string, unknown>) : {};
    this.entries.push({ stream: this.stream, level, title, extra });
  }
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One example running as `node <file>` in its directory, with HOST_IP=127.0.0.1. */
export class ExampleProcess {
  private readonly child: ChildProcess;
  private readonly parsers = { stdout: new EntryParser('stdout'), stderr: new EntryParser('stderr') };
  readonly exited: Promise<ExitStatus>;
  private status: ExitStatus | null = null;

  constructor(readonly file: string, dir: string) {
    const env: NodeJS.ProcessEnv = { ...process.env, HOST_IP: '127.0.0.1' };
    delete env['NODE_TEST_CONTEXT'];
    delete env['KAFKAJS_LOG_LEVEL'];
    this.child = spawn(process.execPath, [file], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout! }).on('line', (l) => this.parsers.stdout.line(l));
    createInterface({ input: this.child.stderr! }).on('line', (l) => this.parsers.stderr.line(l));
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve((this.status = { code, signal }))));
  }

  /** Entries of both streams (each stream in its order; stdout's first). */
  entries(): LogEntry[] {
    return [...this.parsers.stdout.entries, ...this.parsers.stderr.entries];
  }

  stray(): string[] {
    return [...this.parsers.stdout.stray, ...this.parsers.stderr.stray];
  }

  hasExited(): boolean {
    return this.status !== null;
  }

  /** SIGTERM (the examples' own handler disconnects), then the exit; SIGKILL and fail after `ms`. */
  async terminate(ms = 20_000): Promise<ExitStatus> {
    if (this.status) return this.status;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), ms); });
    const result = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (result === 'late') {
      this.child.kill('SIGKILL');
      await this.exited;
      throw new Error(`${this.file} did not exit within ${ms} ms of SIGTERM`);
    }
    return result;
  }

  /** For cleanup: SIGKILL when still running. */
  async kill(): Promise<void> {
    if (this.status) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** The last lines it printed, for failure messages. */
  tail(n = 12): string {
    return this.entries().slice(-n).map((e) => `${e.level} ${e.title} ${JSON.stringify(e.extra).slice(0, 300)}`).concat(this.stray().slice(-n)).join('\n');
  }
}

/** Keys and value types of a value, recursively (an array by its first element): what two runs must share. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]));
  }
  return value === null ? 'null' : typeof value;
}

/** A title with its numbers replaced by N ("Sending 512 messages #3..." → "Sending N messages #N..."). */
export function titleShape(title: string): string {
  return title.replace(/\d+/g, 'N');
}
