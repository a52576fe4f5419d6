/** `brook groups list [--json]`: Kafka's `kafka-consumer-groups --list --type --state` table. */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import { withAdmin } from '../admin-session.js';
import { formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, bootstrapFrom } from '../options.js';

const HELP = `Usage: brook groups list [--json] [-b HOST:PORT]

Lists every group of the cluster with its type and state.
  --json   one JSON array: [{"group","state","type","protocolType"}]`;

export async function groupsList(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseArgs({ args, options: { ...BOOTSTRAP_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const groups = await withAdmin(bootstrapFrom(values), context.interrupted, (admin) => admin.listGroups());
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
