/**
 * The targets for scenarios 1 and 2: Brook's client at least 1.5x @platformatic/kafka
 * and 2x KafkaJS (records/s, on Brook's broker); "not measured" when either client was not
 * run (--clients, --brokers, or it failed).
 */
import type { Recorder, TargetCheck } from '../lib/scenario.js';

export function throughputTargets(rec: Recorder, caseName: string): TargetCheck[] {
  const ours = rec.find({ case: caseName, client: 'brook', broker: 'brook', metric: 'throughput' });
  const check = (peer: string, factor: number): TargetCheck => {
    const text = `Brook client >= ${factor}x ${peer} (records/s, Brook broker)`;
    const theirs = rec.find({ case: caseName, client: peer, broker: 'brook', metric: 'throughput' });
    if (ours === undefined || theirs === undefined) return { text, met: null, detail: `not measured (${ours === undefined ? 'brook' : peer} has no numbers in this run)` };
    const r = ours.median / theirs.median;
    return { text, met: r >= factor, detail: `${r.toFixed(2)}x` };
  };
  return [check('platformatic', 1.5), check('kafkajs', 2)];
}
