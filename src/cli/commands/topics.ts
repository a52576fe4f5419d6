/**
 * `brook topics create|list|describe|alter|delete`: what `kafka-topics.sh` does, over the admin client.
 */
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';
import { topicsDeleteRecords } from './topics-delete-records.js';

export const TOPICS_HELP = `Usage:
  brook topics create NAME --partitions N [--replication-factor N] [--config KEY=VALUE ...]
  brook topics list [--json]
  brook topics describe NAME [--json]
  brook topics alter NAME --partitions N
  brook topics delete NAME
  brook topics delete-records NAME ...     (its options: brook topics delete-records --help)

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  --json                                   machine-readable output
  -h, --help                               show this help`;

export const TOPICS_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  partitions: { type: 'string' },
  'replication-factor': { type: 'string' },
  config: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const topicsCommand: Command = {
  name: 'topics',
  gracefulStopMs: 5_000,
  async run(args, context) {
    if (args[0] === 'delete-records') return topicsDeleteRecords(args.slice(1), context);
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: TOPICS_OPTIONS,
    });
    const [action, name] = positionals;
    if (values.help || action === undefined) {
      process.stdout.write(`${TOPICS_HELP}\n`);
      return values.help ? 0 : 2;
    }
    const bootstrap = connectionFrom(values);
    switch (action) {
      case 'create': {
        if (!name) throw new UsageError('topics create needs a topic NAME');
        const partitions = values.partitions === undefined ? -1 : Number(values.partitions);
        if (!Number.isInteger(partitions) || (partitions < 1 && partitions !== -1)) throw new UsageError('--partitions must be a positive integer');
        const replicationFactor = values['replication-factor'] === undefined ? -1 : Number(values['replication-factor']);
        const configs: Record<string, string> = {};
        for (const kv of values.config ?? []) {
          const eq = kv.indexOf('=');
          if (eq <= 0) throw new UsageError(`--config expects KEY=VALUE, got '${kv}'`);
          configs[kv.slice(0, eq)] = kv.slice(eq + 1);
        }
        await withAdmin(bootstrap, context.interrupted, (admin) => admin.createTopic({ name, partitions, replicationFactor, configs }));
        process.stdout.write(`Created topic ${name}.\n`);
        return 0;
      }
      case 'list': {
        const names = await withAdmin(bootstrap, context.interrupted, (admin) => admin.listTopics());
        process.stdout.write(values.json ? `${JSON.stringify(names)}\n` : names.map((n) => `${n}\n`).join(''));
        return 0;
      }
      case 'describe': {
        if (!name) throw new UsageError('topics describe needs a topic NAME');
        const [topic, entries] = await withAdmin(bootstrap, context.interrupted, (admin) => Promise.all([
          admin.describeTopic(name),
          admin.describeConfigs({ type: 'topic', name }),
        ]));
        // As kafka-topics: every config whose value is not Kafka's default, by name.
        const configs = Object.fromEntries(entries.filter((e) => e.source !== 'DEFAULT_CONFIG').map((e) => [e.name, e.value]));
        if (values.json) {
          process.stdout.write(`${JSON.stringify({ ...topic, configs })}\n`);
          return 0;
        }
        const rf = topic.partitions[0]?.replicas.length ?? 0;
        const shown = Object.entries(configs).map(([k, v]) => `${k}=${v}`).join(',');
        const lines = [`Topic: ${topic.name}\tTopicId: ${topic.topicId}\tPartitionCount: ${topic.partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${shown}`];
        for (const p of topic.partitions) {
          lines.push(`\tTopic: ${topic.name}\tPartition: ${p.partition}\tLeader: ${p.leader}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}`);
        }
        process.stdout.write(`${lines.join('\n')}\n`);
        return 0;
      }
      case 'alter': {
        if (!name) throw new UsageError('topics alter needs a topic NAME');
        if (values.partitions === undefined) throw new UsageError('topics alter needs --partitions N');
        const partitions = Number(values.partitions);
        if (!Number.isInteger(partitions) || partitions < 1) throw new UsageError('--partitions must be a positive integer');
        await withAdmin(bootstrap, context.interrupted, (admin) => admin.createPartitions(name, partitions));
        process.stdout.write(`Topic ${name} now has ${partitions} partitions.\n`);
        return 0;
      }
      case 'delete': {
        if (!name) throw new UsageError('topics delete needs a topic NAME');
        await withAdmin(bootstrap, context.interrupted, (admin) => admin.deleteTopic(name));
        process.stdout.write(`Deleted topic ${name}.\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown topics action '${action}' (create, list, describe, alter, delete, delete-records)`);
    }
  },
};
