/**
 * Drives third-party Kafka clients against the capture server so their real request
 * frames can be recorded: kcat (librdkafka), KafkaJS, and Apache Kafka's Java client
 * (through the Java test-support program).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaptureServer } from './capture-server.js';
import { GOLDEN_GROUP, GOLDEN_TOPIC } from './golden.js';


const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Runs a command for at most `ms` (then SIGTERM, so clients leave their groups cleanly). */
function run(cmd: string, args: string[], input: string | null, ms: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    const timer = setTimeout(() => child.kill('SIGTERM'), ms);
    const hard = setTimeout(() => child.kill('SIGKILL'), ms + 5000);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(hard);
      resolve({ code, stderr });
    });
    if (input !== null) child.stdin.end(input);
    else child.stdin.end();
  });
}

export async function captureKcat(server: CaptureServer): Promise<void> {
  const broker = `127.0.0.1:${server.port}`;
  await run('kcat', ['-b', broker, '-L', '-t', GOLDEN_TOPIC], null, 10_000);
  await run('kcat', ['-b', broker, '-P', '-t', GOLDEN_TOPIC, '-K', ':', '-z', 'none'], 'k1:v1\nk2:v2\n:no-key\n', 10_000);
  await run('kcat', ['-b', broker, '-G', GOLDEN_GROUP, '-o', 'beginning', '-e', GOLDEN_TOPIC], null, 5_000);
}

export async function captureKafkaJs(server: CaptureServer): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({ clientId: 'golden-kafkajs', brokers: [`127.0.0.1:${server.port}`], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await producer.send({ topic: GOLDEN_TOPIC, acks: -1, messages: [{ key: 'k1', value: 'v1', headers: { h: 'x' } }, { value: 'v2' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: GOLDEN_GROUP, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [GOLDEN_TOPIC], fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
  await new Promise((r) => setTimeout(r, 2500));
  await consumer.disconnect();
}

/** The Java client driver lives in the Java test-support project (built by its build.sh). */
export function javaSupportAvailable(): boolean {
  return existsSync(join(projectRoot, 'test', 'support', 'java', 'target', 'classpath.txt'))
    || existsSync(join(projectRoot, 'test', 'support', 'java', 'target', 'brook-conformance.jar'));
}

export async function captureJava(server: CaptureServer, javaCommand: string[]): Promise<void> {
  const result = await run(javaCommand[0]!, [...javaCommand.slice(1), `127.0.0.1:${server.port}`, GOLDEN_TOPIC, GOLDEN_GROUP], null, 20_000);
  if (result.code !== 0 && result.code !== null && result.code !== 143) {
    throw new Error(`java client traffic exited ${result.code}: ${result.stderr.slice(-2000)}`);
  }
}
