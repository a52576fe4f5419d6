/**
 * The targets of the scenarios, checked on the medians of a run: scenarios 1 and 2 (Brook's
 * client at least 1.5x @platformatic/kafka and 2x KafkaJS, records/s, on Brook's broker),
 * 4 (100 members stable <= 500 ms) and 5 (one change to stable <= 200 ms), with each group
 * protocol; "not measured" when a part was not run (--clients, --brokers, or it failed).
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

/** A target on a median of this run; "not measured" when it has none (--clients, --brokers, a failure). */
function medianAtMost(rec: Recorder, text: string, where: { case: string; client: string; metric: string }, limitMs: number): TargetCheck {
  const m = rec.find({ ...where, broker: 'brook' });
  if (m === undefined) return { text, met: null, detail: 'not measured' };
  return { text, met: m.median <= limitMs, detail: `${m.median.toFixed(0)} ms` };
}

/**
 * Scenario 4, on Brook's broker, for every group client: 100 members stable <= 500 ms, with
 * each group protocol of the run (classic: the client's range assignor; consumer: the
 * broker's uniform assignor). The case names are group.ts's formationCase.
 */
export function groupTargets(rec: Recorder, clients: readonly string[], protocols: readonly string[]): TargetCheck[] {
  return protocols.flatMap((protocol) => clients.map((client) =>
    medianAtMost(rec, `${protocol} protocol: 100 members stable <= 500 ms (${client} client, Brook broker)`, { case: `N=100 ${protocol}`, client, metric: 'all assigned' }, 500)));
}

/**
 * Scenario 5, on Brook's broker, for every group client: one change to stable <= 200 ms.
 * Classic: one leave, eager (range) and cooperative-sticky. Consumer protocol: one leave and
 * one join, with the broker's default assignor (uniform). The case names are rebalance.ts's
 * rebalanceCase.
 */
export function rebalanceTargets(rec: Recorder, clients: readonly string[], protocols: readonly string[]): TargetCheck[] {
  const cases = [
    ...(protocols.includes('classic') ? ['leave, eager (range)', 'leave, cooperative-sticky'] : []),
    ...(protocols.includes('consumer') ? ['leave, consumer (uniform)', 'join, consumer (uniform)'] : []),
  ];
  return clients.flatMap((client) => cases.map((label) =>
    medianAtMost(rec, `rebalance <= 200 ms (${client}, ${label}, Brook broker)`, { case: label, client, metric: 'to stable' }, 200)));
}
