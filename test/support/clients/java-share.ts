/**
 * Share group members with Apache Kafka's KafkaShareConsumer (kafka-clients 4.4.0), through
 * `brook.conformance.ShareGroupConsumer` in the Java test-support jar: each member runs in its
 * own JVM, and every record it acknowledged durably arrives here as it happens.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { javaJar } from './java.js';

export interface ShareDelivery {
  readonly p: number;
  readonly o: number;
  /** The delivery count the broker gave the record. */
  readonly d: number;
  readonly v: string;
  readonly ack: 'ACCEPT' | 'RELEASE';
}

export interface JavaShareMember {
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

/** Starts one member; `releaseEvery`: release (once) every record whose offset is a multiple of it, 0 for none. */
export function startJavaShareMember(bootstrap: string, topic: string, group: string, options: { releaseEvery?: number; timeoutMs?: number; clientId?: string } = {}): JavaShareMember {
  const dir = mkdtempSync(join(tmpdir(), 'brook-share-member-'));
  const stopFile = join(dir, 'stop');
  const args = ['-cp', javaJar(), 'brook.conformance.ShareGroupConsumer', bootstrap, topic, group,
    String(options.releaseEvery ?? 0), stopFile, String(options.timeoutMs ?? 120_000), ...(options.clientId === undefined ? [] : [options.clientId])];
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
