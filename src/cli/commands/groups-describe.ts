/**
 * `brook groups describe GROUP [--json]`: the group's state and members, and per partition
 * the committed offset, log end offset and lag, as `kafka-consumer-groups --describe` shows
 * them ('-' where Kafka shows '-'; null in JSON).
 */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import type { GroupOffsets } from '../../client/admin/index.js';
import { withAdmin } from '../admin-session.js';
import { MISSING, formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, bootstrapFrom, UsageError } from '../options.js';

const HELP = `Usage: brook groups describe GROUP [--json] [-b HOST:PORT]

Shows the group's state and, per assigned or committed partition, CURRENT-OFFSET (the
committed offset), LOG-END-OFFSET, LAG and the member that owns it ('-' when unknown).
  --json   {"group","state","protocolType","protocol","generation",
            "members":[{"memberId","groupInstanceId","clientId","host","assignment":[{"topic","partition"}]}],
            "offsets":[{"topic","partition","committed","logEndOffset","lag"}]}
           unknown values (no committed offset, no lag, no generation) are null.`;

export function describeJson(result: GroupOffsets): unknown {
  const d = result.description;
  return {
    group: d.group,
    state: d.state,
    protocolType: d.protocolType,
    protocol: d.protocol,
    generation: d.generation,
    members: d.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      host: m.host,
      assignment: m.assignment.map((tp) => ({ topic: tp.topic, partition: tp.partition })),
    })),
    offsets: result.rows.map((r) => ({ topic: r.topic, partition: r.partition, committed: r.committed, logEndOffset: r.logEndOffset, lag: r.lag })),
  };
}

/** Kafka's describe table: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID. */
export function describeTable(result: GroupOffsets): string {
  const d = result.description;
  const rows = result.rows.map((r) => [
    d.group, r.topic, String(r.partition),
    r.committed === null ? MISSING : r.committed.toString(),
    r.logEndOffset === null ? MISSING : r.logEndOffset.toString(),
    r.lag === null ? MISSING : r.lag.toString(),
    r.memberId ?? MISSING, r.host ?? MISSING, r.clientId ?? MISSING,
  ]);
  // Kafka's printOffsetFormat: group, topic, consumer id and host at least 15 wide, the
  // partition 10, the three offsets 15, client id last and unpadded.
  const width = (col: number): number => Math.max(15, ...rows.map((r) => r[col]!.length));
  const widths = [width(0), width(1), 10, 15, 15, 15, width(6), width(7)];
  const header = ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'];
  return [header, ...rows].map((cells) => formatRow(cells, widths)).join('\n');
}

function stateLine(result: GroupOffsets): string {
  const d = result.description;
  const protocol = d.protocol === '' ? MISSING : d.protocol;
  return `Consumer group '${d.group}' is ${d.state} (protocol ${protocol}, ${d.members.length} member${d.members.length === 1 ? '' : 's'}, total lag ${result.totalLag}).`;
}

export async function groupsDescribe(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: { ...BOOTSTRAP_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (!group || extra !== undefined) throw new UsageError('groups describe needs exactly one GROUP');
  const result = await withAdmin(bootstrapFrom(values), context.interrupted, (admin) => admin.describeGroupOffsets(group));
  if (values.json) {
    process.stdout.write(`${toJson(describeJson(result))}\n`);
    return 0;
  }
  // As Kafka's tool: a blank line, then the table; no table when there is nothing to show.
  const table = result.rows.length > 0 ? `\n${describeTable(result)}\n` : '';
  process.stdout.write(`${stateLine(result)}\n${table}`);
  return 0;
}
