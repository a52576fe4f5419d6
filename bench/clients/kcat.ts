/**
 * kcat (librdkafka). It cannot time itself, so a run is the process's wall time: librdkafka
 * starts in a few milliseconds, which is counted. Produce reads one record per line from
 * stdin (a file prepared before the clock starts is piped in); consume is a balanced consumer
 * (-G) that exits after `records` records (-c), printing nothing per record.
 */
import { commandWorks } from '../../test/support/clients/run.js';
import { runChild } from '../lib/child.js';
import type { ThroughputClient, ThroughputRun } from './types.js';

const inputs = new Map<string, Buffer>();

function linesOf(records: number, valueBytes: number): Buffer {
  const key = `${records}/${valueBytes}`;
  let buf = inputs.get(key);
  if (buf === undefined) {
    const line = Buffer.from(`${'x'.repeat(valueBytes)}\n`);
    buf = Buffer.alloc(line.length * records);
    for (let i = 0; i < records; i++) line.copy(buf, i * line.length);
    inputs.clear();
    inputs.set(key, buf);
  }
  return buf;
}

export const kcatClient: ThroughputClient = {
  name: 'kcat',
  inProcess: false,
  unavailable: () => (commandWorks('kcat', ['-V']) ? null : 'kcat not found'),
  async consume(spec): Promise<ThroughputRun> {
    const result = await runChild('kcat', [
      '-b', spec.bootstrap, '-G', spec.group, '-c', String(spec.records), '-f', '', '-q',
      '-X', 'auto.offset.reset=earliest', spec.topic,
    ], { timeoutMs: spec.timeoutMs, onPid: spec.onPid, ignoreStdout: true });
    if (result.code !== 0) throw new Error(`kcat -G exited ${result.code}: ${result.stderr.slice(-2000)}`);
    return { records: spec.records, ms: result.ms, clientRssBytes: result.peakRssBytes };
  },
  async produce(spec): Promise<ThroughputRun> {
    const input = linesOf(spec.records, spec.valueBytes);
    const result = await runChild('kcat', [
      '-b', spec.bootstrap, '-P', '-t', spec.topic, '-X', `acks=${spec.acks === -1 ? 'all' : '1'}`,
      ...(spec.acks === 1 ? ['-X', 'enable.idempotence=false'] : []),
    ], { timeoutMs: spec.timeoutMs, onPid: spec.onPid, input });
    if (result.code !== 0 || /ERROR|Failed to produce|failed to deliver/i.test(result.stderr)) {
      throw new Error(`kcat -P exited ${result.code}: ${result.stderr.slice(-2000)}`);
    }
    return { records: spec.records, ms: result.ms, clientRssBytes: result.peakRssBytes };
  },
};
