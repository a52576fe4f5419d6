/**
 * `brook groups list [--type T[,T]] [--state S[,S]] [--json]`: Kafka's
 * `kafka-consumer-groups --list --type --state` table; the filters go to the brokers
 * (ListGroups v5 types, v4 states).
 */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import { withAdmin } from '../admin-session.js';
import { formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';

/** Kafka's GroupType names. */
const GROUP_TYPES = ['classic', 'consumer', 'share', 'streams'];

export const GROUPS_LIST_HELP = `Usage: brook groups list [--type TYPE[,TYPE]] [--state STATE[,STATE]] [--json] [-b HOST:PORT]

Lists every group of the cluster with its type (classic: JoinGroup/SyncGroup; consumer:
the consumer group protocol of KIP-848; share: the share groups of KIP-932; streams: the
streams groups of KIP-1071) and state.
  --type T     only groups of these types: classic, consumer, share, streams (comma-separated,
               repeatable; case-insensitive)
  --state S    only groups in these states, e.g. Stable, Empty, Assigning, Reconciling,
               PreparingRebalance, CompletingRebalance, NotReady (comma-separated, repeatable;
               case-insensitive)
  --json       one JSON array: [{"group","state","type","protocolType"}]
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

/** `--type a,b --type c` → ['a', 'b', 'c'] (Kafka's tool takes comma-separated lists). */
function listOption(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

export const GROUPS_LIST_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  type: { type: 'string', multiple: true },
  state: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function groupsList(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseArgs({
    args,
    options: GROUPS_LIST_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(`${GROUPS_LIST_HELP}\n`);
    return 0;
  }
  const types = listOption(values.type);
  const unknown = types.filter((t) => !GROUP_TYPES.includes(t.toLowerCase()));
  if (unknown.length > 0) throw new UsageError(`Invalid types list '${unknown.join(',')}'. Valid types are: ${GROUP_TYPES.join(', ')}`);
  const groups = await withAdmin(connectionFrom(values), context.interrupted, (admin) => admin.listGroups({ types, states: listOption(values.state) }));
  if (values.json) {
    process.stdout.write(`${toJson(groups)}\n`);
    return 0;
  }
  // Kafka's printGroupInfo widths: the group column is max(15, longest id) + 10, type and state 20.
  const groupWidth = Math.max(15, ...groups.map((g) => g.group.length)) + 10;
  const widths = [groupWidth, 20, 20];
  const lines = [formatRow(['GROUP', 'TYPE', 'STATE'], widths)];
  for (const g of groups) lines.push(formatRow([g.group, g.type || 'Unknown', g.state || 'Unknown'], widths));
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
