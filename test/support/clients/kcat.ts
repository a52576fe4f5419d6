/**
 * kcat (librdkafka) against a broker under test: produce lines, consume a whole topic
 * without a group (`-C -e`: assigns every partition, exits at the end of all of them),
 * records parsed from its JSON envelope (`-J`).
 */
import { commandWorks, runProcess, type RunResult } from './run.js';
import type { ClientRecord } from './records.js';

export function kcatAvailable(): boolean {
  return commandWorks('kcat', ['-V']);
}

/** `kcat -P -t TOPIC -K: -X acks=all ...extra`, one record per input line ("key:value"). */
export async function kcatProduce(bootstrap: string, topic: string, lines: readonly string[], extra: readonly string[] = [], timeoutMs = 30_000): Promise<RunResult> {
  const result = await runProcess('kcat', ['-b', bootstrap, '-P', '-t', topic, '-K:', '-X', 'acks=all', ...extra], {
    input: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
    timeoutMs,
  });
  if (result.code !== 0 || /ERROR|Failed to produce|failed to deliver/i.test(result.stderr)) {
    throw new Error(`kcat -P exited ${result.code}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.slice(-2000)}`);
  }
  return result;
}

interface KcatEnvelope {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  payload: string | null;
  headers?: string[];
}

/**
 * `kcat -C -t TOPIC -o beginning -e -J ...extra`: every record of every partition, in the order
 * kcat printed them. `extra`: e.g. `-X security.protocol=SASL_SSL ...`.
 */
export async function kcatConsume(bootstrap: string, topic: string, timeoutMs = 30_000, extra: readonly string[] = []): Promise<ClientRecord[]> {
  const result = await runProcess('kcat', ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-J', '-q', ...extra], { timeoutMs });
  if (result.code !== 0) {
    throw new Error(`kcat -C exited ${result.code}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.slice(-2000)}`);
  }
  return result.stdout.split('\n').filter((l) => l.trim() !== '').map((line) => {
    const e = JSON.parse(line) as KcatEnvelope;
    const headers: Record<string, string> = {};
    for (let i = 0; i + 1 < (e.headers?.length ?? 0); i += 2) headers[e.headers![i]!] = e.headers![i + 1]!;
    return { partition: e.partition, offset: BigInt(e.offset), key: e.key, value: e.payload, headers };
  });
}
