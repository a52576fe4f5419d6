/**
 * `brook cluster info [--json]`: the cluster's id, brokers, controller and topics with their
 * partitions, as `kcat -L` lists them (the lines after the first are kcat's).
 */
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';
import type { ClusterDescription } from '../../client/admin/index.js';
import { errorInfo } from '../../protocol/errors.js';

export const CLUSTER_HELP = `Usage:
  brook cluster info [--json]

Prints the cluster id and controller, then as kcat's metadata listing: the brokers, and every topic with
its partitions' leader, replicas and in-sync replicas.

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  --json                                   {"clusterId","controllerId","brokers":[{"nodeId","host","port","rack"}],
                                           "topics":[{"name","topicId","internal","partitions":
                                           [{"partition","leader","replicas","isr"}]}]}
  -h, --help                               show this help`;

export const CLUSTER_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const errorSuffix = (code: number): string => (code === 0 ? '' : `, ${errorInfo(code).name}`);

export function clusterText(c: ClusterDescription): string {
  const lines = [`Cluster ${c.clusterId ?? '-'} (controller ${c.controllerId}):`, ` ${c.brokers.length} brokers:`];
  for (const b of c.brokers) lines.push(`  broker ${b.nodeId} at ${b.host}:${b.port}${b.nodeId === c.controllerId ? ' (controller)' : ''}`);
  lines.push(` ${c.topics.length} topics:`);
  for (const t of c.topics) {
    lines.push(`  topic "${t.name}" with ${t.partitions.length} partitions:${errorSuffix(t.errorCode)}`);
    for (const p of t.partitions) {
      lines.push(`    partition ${p.partition}, leader ${p.leader}, replicas: ${p.replicas.join(',')}, isrs: ${p.isr.join(',')}${errorSuffix(p.errorCode)}`);
    }
  }
  return lines.join('\n');
}

export function clusterJson(c: ClusterDescription): unknown {
  return {
    clusterId: c.clusterId,
    controllerId: c.controllerId,
    brokers: c.brokers,
    topics: c.topics.map((t) => ({
      name: t.name, topicId: t.topicId, internal: t.internal,
      ...(t.errorCode === 0 ? {} : { error: errorInfo(t.errorCode).name }),
      partitions: t.partitions.map((p) => ({
        partition: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr,
        ...(p.errorCode === 0 ? {} : { error: errorInfo(p.errorCode).name }),
      })),
    })),
  };
}

export const clusterCommand: Command = {
  name: 'cluster',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: CLUSTER_OPTIONS });
    const [action, extra] = positionals;
    if (values.help) {
      process.stdout.write(`${CLUSTER_HELP}\n`);
      return 0;
    }
    if (action === undefined) throw new UsageError('cluster needs an action: info (see brook cluster --help)');
    if (action !== 'info') throw new UsageError(`unknown cluster action '${action}' (info)`);
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const cluster = await withAdmin(connectionFrom(values), context.interrupted, (admin) => admin.describeCluster());
    process.stdout.write(values.json ? `${JSON.stringify(clusterJson(cluster))}\n` : `${clusterText(cluster)}\n`);
    return 0;
  },
};
