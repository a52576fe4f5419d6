/**
 * `brook configs describe|alter`: what `kafka-configs.sh --describe/--alter` does for topics,
 * brokers and groups, over the admin client, with its output lines.
 */
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';
import type { AlterConfigOp, ConfigEntry, ConfigResource, ConfigSourceName } from '../../client/admin/index.js';

export const CONFIGS_HELP = `Usage:
  brook configs describe (--topic NAME | --broker ID | --broker-defaults | --group NAME) [--all] [--json]
  brook configs alter (--topic NAME | --broker ID | --broker-defaults | --group NAME) [--set KEY=VALUE ...] [--delete KEY ...]

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  --topic NAME                             a topic's configs
  --broker ID                              one broker's configs (its node id)
  --broker-defaults                        the cluster-wide defaults of broker configs
  --group NAME                             a group's configs (consumer.session.timeout.ms, share.*, ...)
  --all                                    describe every config, not only the dynamic ones
  --set KEY=VALUE                          set a config (repeatable)
  --delete KEY                             remove a config, back to its default (repeatable)
  --json                                   machine-readable output
  -h, --help                               show this help`;

export const CONFIGS_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  topic: { type: 'string' },
  broker: { type: 'string' },
  'broker-defaults': { type: 'boolean' },
  group: { type: 'string' },
  all: { type: 'boolean' },
  set: { type: 'string', multiple: true },
  delete: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The source kafka-configs lists without --all: the resource's own dynamic configs. */
function dynamicSource(resource: ConfigResource): ConfigSourceName {
  if (resource.type === 'topic') return 'DYNAMIC_TOPIC_CONFIG';
  if (resource.type === 'group') return 'GROUP_CONFIG';
  return resource.name === '' ? 'DYNAMIC_DEFAULT_BROKER_CONFIG' : 'DYNAMIC_BROKER_CONFIG';
}

function resourceFrom(values: { topic?: string; broker?: string; 'broker-defaults'?: boolean; group?: string }): ConfigResource {
  const given = [values.topic !== undefined, values.broker !== undefined, values['broker-defaults'] === true, values.group !== undefined].filter(Boolean).length;
  if (given !== 1) throw new UsageError('give exactly one of --topic NAME, --broker ID, --broker-defaults, --group NAME');
  if (values.topic !== undefined) return { type: 'topic', name: values.topic };
  if (values.group !== undefined) return { type: 'group', name: values.group };
  if (values.broker !== undefined) {
    if (!/^\d+$/.test(values.broker)) throw new UsageError(`--broker needs a broker id (an integer), got '${values.broker}'`);
    return { type: 'broker', name: values.broker };
  }
  return { type: 'broker', name: '' };
}

/**
 * The names kafka-configs prints for a synonym's source: its admin client's
 * ConfigEntry.ConfigSource, which calls the group and client-metrics sources dynamic.
 */
const TOOL_SOURCE_NAMES: Partial<Record<ConfigSourceName, string>> = { GROUP_CONFIG: 'DYNAMIC_GROUP_CONFIG', CLIENT_METRICS_CONFIG: 'DYNAMIC_CLIENT_METRICS_CONFIG' };

/** kafka-configs' heading and lines. */
function describeLines(resource: ConfigResource, entries: readonly ConfigEntry[], all: boolean): string[] {
  const heading = resource.type === 'broker' && resource.name === ''
    ? 'Default configs for brokers in the cluster are:'
    : `${all ? 'All' : 'Dynamic'} configs for ${resource.type} ${resource.name} are:`;
  return [heading, ...entries.map((e) => {
    const synonyms = e.synonyms.map((s) => `${TOOL_SOURCE_NAMES[s.source] ?? s.source}:${s.name}=${s.value}`).join(', ');
    return `  ${e.name}=${e.value} sensitive=${e.sensitive} synonyms={${synonyms}}`;
  })];
}

export const configsCommand: Command = {
  name: 'configs',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: CONFIGS_OPTIONS,
    });
    const [action, extra] = positionals;
    if (values.help || action === undefined) {
      process.stdout.write(`${CONFIGS_HELP}\n`);
      return values.help ? 0 : 2;
    }
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const bootstrap = connectionFrom(values);
    const resource = resourceFrom(values);
    switch (action) {
      case 'describe': {
        if (values.set || values.delete) throw new UsageError('--set and --delete belong to configs alter');
        const source = dynamicSource(resource);
        const entries = await withAdmin(bootstrap, context.interrupted, (admin) => admin.describeConfigs(resource, { synonyms: true }));
        const shown = values.all ? entries : entries.filter((e) => e.source === source);
        if (values.json) {
          process.stdout.write(`${JSON.stringify(shown)}\n`);
          return 0;
        }
        process.stdout.write(`${describeLines(resource, shown, values.all === true).join('\n')}\n`);
        return 0;
      }
      case 'alter': {
        const ops: AlterConfigOp[] = [];
        for (const kv of values.set ?? []) {
          const eq = kv.indexOf('=');
          if (eq <= 0) throw new UsageError(`--set expects KEY=VALUE, got '${kv}'`);
          ops.push({ name: kv.slice(0, eq), op: 'set', value: kv.slice(eq + 1) });
        }
        for (const name of values.delete ?? []) ops.push({ name, op: 'delete' });
        if (ops.length === 0) throw new UsageError('configs alter needs --set KEY=VALUE or --delete KEY');
        await withAdmin(bootstrap, context.interrupted, (admin) => admin.incrementalAlterConfigs(resource, ops));
        process.stdout.write(resource.type === 'broker' && resource.name === ''
          ? 'Completed updating default config for brokers in the cluster.\n'
          : `Completed updating config for ${resource.type} ${resource.name}.\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown configs action '${action}' (describe, alter)`);
    }
  },
};
