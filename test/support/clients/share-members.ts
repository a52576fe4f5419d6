/**
 * Share group members in processes of their own, with the same contract: Apache Kafka's
 * KafkaShareConsumer (kafka-clients 4.4.0, `brook.conformance.ShareGroupConsumer` in the Java
 * test-support jar) and franz-go's share consumer (test/support/go/franz-share, built with the
 * Go toolchain). Every record a member acknowledged durably arrives here as it happens.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { javaJar } from './java.js';
import { commandWorks } from './run.js';
import { projectRoot } from '../brook.js';

export interface ShareDelivery {
  readonly p: number;
  readonly o: number;
  /** The delivery count the broker gave the record. */
  readonly d: number;
  readonly v: string;
  readonly ack: 'ACCEPT' | 'RELEASE';
}

export interface ShareMember {
  /** Every record the member acknowledged, in order, once its acknowledgement was durable. */
  readonly deliveries: ShareDelivery[];
  readonly errors: string[];
  /** Resolves when the JVM exits (after `stop`, or its timeout), with its exit code. */
  readonly exited: Promise<number | null>;
  /** Asks the member to close (it leaves the group) and waits for its JVM to exit. */
  stop(): Promise<void>;
  /** Kills the JVM at once (SIGKILL): the member neither leaves nor acknowledges. */
  kill(): void;
}

export interface ShareMemberOptions {
  /** Release (once) every record whose offset is a multiple of it; 0 (default): none. */
  readonly releaseEvery?: number;
  readonly timeoutMs?: number;
  readonly clientId?: string;
}

/** Starts one KafkaShareConsumer member. */
export function startJavaShareMember(bootstrap: string, topic: string, group: string, options: ShareMemberOptions = {}): ShareMember {
  return spawnMember((stopFile) => ['java', ['-cp', javaJar(), 'brook.conformance.ShareGroupConsumer', bootstrap, topic, group,
    String(options.releaseEvery ?? 0), stopFile, String(options.timeoutMs ?? 120_000), ...(options.clientId === undefined ? [] : [options.clientId])]]);
}

const GO_DIR = join(projectRoot, 'test', 'support', 'go', 'franz-share');
let franzBinary: string | null = null;

/** The Go toolchain is on PATH or in /usr/local/go (where CI installs it). */
export function goAvailable(): boolean {
  return commandWorks(goCommand(), ['version']);
}

function goCommand(): string {
  return commandWorks('go', ['version']) ? 'go' : '/usr/local/go/bin/go';
}

/** Starts one franz-go share consumer member (the binary is built once per process). */
export function startFranzShareMember(bootstrap: string, topic: string, group: string, options: ShareMemberOptions = {}): ShareMember {
  if (franzBinary === null) {
    const out = join(mkdtempSync(join(tmpdir(), 'brook-franz-share-')), 'franz-share');
    execFileSync(goCommand(), ['build', '-o', out, '.'], { cwd: GO_DIR, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
    franzBinary = out;
  }
  const binary = franzBinary;
  return spawnMember((stopFile) => [binary, [bootstrap, topic, group, String(options.releaseEvery ?? 0), stopFile, String(options.timeoutMs ?? 120_000)]]);
}

function spawnMember(command: (stopFile: string) => [string, string[]]): ShareMember {
  const dir = mkdtempSync(join(tmpdir(), 'brook-share-member-'));
  const stopFile = join(dir, 'stop');
  const [file, args] = command(stopFile);
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const deliveries: ShareDelivery[] = [];
  const errors: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const parsed = JSON.parse(line) as Partial<ShareDelivery> & { error?: string; closed?: boolean };
    if (parsed.error !== undefined) errors.push(parsed.error);
    else if (parsed.o !== undefined) deliveries.push(parsed as ShareDelivery);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0 && code !== null) errors.push(`exit ${code}: ${stderr.slice(-2000)}`);
      resolve(code);
    });
  });
  return {
    deliveries,
    errors,
    exited,
    async stop() {
      if (existsSync(dir)) writeFileSync(stopFile, '');
      await exited;
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}
