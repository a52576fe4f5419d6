/**
 * `brook groups reset-offsets GROUP (--topic T ... | --all-topics) (--to-earliest | --to-latest
 * | --to-offset N | --shift-by N | --to-datetime ISO8601 | --by-duration PnDTnHnMnS |
 * --to-current | --from-file CSV) [--execute] [--export]`: `kafka-consumer-groups
 * --reset-offsets`. Without --execute it only prints the plan (Kafka's dry run); with it, it
 * commits the plan. A share group's start offsets are reset the same way (AlterShareGroupOffsets).
 */
import type { CommandContext } from '../command.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { PlannedOffset, ResetScope, ResetSpec } from '../../client/admin/index.js';
import { withAdmin } from '../admin-session.js';
import { formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, joinNegativeValues, UsageError } from '../options.js';
import { parseIsoDuration, parseResetCsv, resetCsv } from '../reset-plans.js';
import { shareGroupOrNull } from '../share-group-views.js';

export const GROUPS_RESET_HELP = `Usage: brook groups reset-offsets GROUP (--topic T[:P,P...] ... | --all-topics)
         (--to-earliest | --to-latest | --to-offset N | --shift-by N | --to-datetime ISO8601
          | --by-duration PnDTnHnMnS | --to-current | --from-file CSV)
         [--execute | --dry-run] [--json | --export] [-b HOST:PORT]

Plans new committed offsets for GROUP and, with --execute, commits them. Only while the
group has no active members (state Empty, or unknown). For a share group (KIP-932) the
offsets are its share-partitions' start offsets (--all-topics: those it has), altered with
AlterShareGroupOffsets, as Kafka's kafka-share-groups resets them.
  --topic T            every partition of T (repeatable); T:0,2 only partitions 0 and 2
  --all-topics         every partition the group has a committed offset for
  --to-earliest        the log start offset
  --to-latest          the log end offset
  --to-offset N        N, clamped into [log start, log end]
  --shift-by N         committed offset + N (N may be negative), clamped likewise
  --to-datetime T      first offset whose timestamp >= T (YYYY-MM-DDTHH:mm:SS.sss, with an
                       optional zone Z or +HH:MM; UTC without one); log end when none
  --by-duration D      first offset whose timestamp >= now - D (ISO-8601 duration, e.g.
                       PT30M, P1DT12H); log end when none
  --to-current         the committed offset (the log end where there is none)
  --from-file CSV      the offsets of a plan file: topic,partition,offset lines (or
                       group,topic,partition,offset; what --export writes), clamped into
                       [log start, log end]; no --topic or --all-topics needed
  --execute            commit the plan (default: print it only, a dry run)
  --dry-run            print the plan only (the default)
  --json               print the plan as [{"topic","partition","offset"}]
  --export             print the plan as CSV (topic,partition,offset), for --from-file
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

export const GROUPS_RESET_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  topic: { type: 'string', multiple: true },
  'all-topics': { type: 'boolean' },
  'to-earliest': { type: 'boolean' },
  'to-latest': { type: 'boolean' },
  'to-offset': { type: 'string' },
  'shift-by': { type: 'string' },
  'to-datetime': { type: 'string' },
  'by-duration': { type: 'string' },
  'to-current': { type: 'boolean' },
  'from-file': { type: 'string' },
  execute: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  export: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseInteger(option: string, text: string): bigint {
  if (!/^[+-]?\d+$/.test(text.trim())) throw new UsageError(`--${option} expects an integer, got '${text}'`);
  return BigInt(text.trim());
}

/** Kafka's Utils.getDateTime: ISO 8601 with a 'T'; no zone means UTC. */
export function parseDateTime(text: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,3})?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--to-datetime expects an ISO 8601 date-time such as 2024-01-31T12:00:00.000 (optional zone Z or +HH:MM), got '${text}'`);
  let zone = m[4] ?? 'Z';
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    zone = `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
  }
  const ms = Date.parse(`${m[1]}T${m[2]}${(m[3] ?? '.000').padEnd(4, '0')}${zone}`);
  if (Number.isNaN(ms)) throw new UsageError(`--to-datetime: '${text}' is not a valid date-time`);
  return BigInt(ms);
}

export function parseTopicArg(arg: string): { topic: string; partitions?: number[] } {
  const colon = arg.indexOf(':');
  if (colon < 0) return { topic: arg };
  const topic = arg.slice(0, colon);
  const partitions = arg.slice(colon + 1).split(',').map((p) => {
    if (!/^\d+$/.test(p.trim())) throw new UsageError(`Invalid partition '${p}' specified in topic arg '${arg}'`);
    return Number(p.trim());
  });
  if (topic === '') throw new UsageError(`Invalid topic arg '${arg}', expected topic name and partitions`);
  return { topic, partitions };
}

/** Kafka's printOffsetsToReset: GROUP TOPIC PARTITION NEW-OFFSET, group and topic at least 15 wide. */
export function planTable(group: string, plan: readonly PlannedOffset[]): string {
  const widths = [Math.max(15, group.length), Math.max(15, ...plan.map((p) => p.topic.length)), 10];
  const rows = [['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'], ...plan.map((p) => [group, p.topic, String(p.partition), p.offset.toString()])];
  return rows.map((r) => formatRow(r, widths)).join('\n');
}

/** Options whose value may be a negative number: `--shift-by -2` must not read as an option. */
const NUMERIC_OPTIONS = new Set(['--shift-by', '--to-offset']);

export async function groupsResetOffsets(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args: joinNegativeValues(args, NUMERIC_OPTIONS), allowPositionals: true, options: GROUPS_RESET_OPTIONS });
  if (values.help) {
    process.stdout.write(`${GROUPS_RESET_HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (!group || extra !== undefined) throw new UsageError('groups reset-offsets needs exactly one GROUP');

  const topics = values.topic ?? [];
  if (topics.length > 0 && values['all-topics']) throw new UsageError('--topic and --all-topics cannot be used together');
  const fromFile = values['from-file'] === undefined ? null : parseResetCsv(readPlanFile(values['from-file']), group);
  if (topics.length === 0 && !values['all-topics'] && fromFile === null) throw new UsageError('One of the reset scopes should be defined: --all-topics, --topic.');
  // A plan file names its partitions itself (as Kafka's tool, which then ignores the scope).
  const scope: ResetScope = fromFile !== null ? fileScope(fromFile) : values['all-topics'] ? { kind: 'all-topics' } : { kind: 'topics', topics: topics.map(parseTopicArg) };

  const specs: ResetSpec[] = [];
  if (values['to-earliest']) specs.push({ kind: 'earliest' });
  if (values['to-latest']) specs.push({ kind: 'latest' });
  if (values['to-offset'] !== undefined) specs.push({ kind: 'offset', offset: parseInteger('to-offset', values['to-offset']) });
  if (values['shift-by'] !== undefined) specs.push({ kind: 'shift', by: parseInteger('shift-by', values['shift-by']) });
  if (values['to-datetime'] !== undefined) specs.push({ kind: 'datetime', timestampMs: parseDateTime(values['to-datetime']) });
  if (values['by-duration'] !== undefined) specs.push({ kind: 'datetime', timestampMs: BigInt(Date.now()) - parseIsoDuration(values['by-duration']) });
  if (values['to-current']) specs.push({ kind: 'current' });
  if (fromFile !== null) specs.push({ kind: 'offsets', offsets: fromFile });
  if (specs.length !== 1) {
    throw new UsageError('reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset, --shift-by, --to-datetime, --by-duration, --to-current, --from-file');
  }
  if (values.json && values.export) throw new UsageError('--json and --export cannot be used together');
  if (values.execute && values['dry-run']) throw new UsageError('--execute and --dry-run cannot be used together');

  const execute = values.execute ?? false;
  const plan = await withAdmin(connectionFrom(values), context.interrupted, async (admin) => {
    const options = { scope, spec: specs[0]!, execute };
    // A share group's start offsets, as kafka-share-groups --reset-offsets (AlterShareGroupOffsets).
    return (await shareGroupOrNull(admin, group)) !== null ? admin.resetShareGroupOffsets(group, options) : admin.resetOffsets(group, options);
  });
  if (values.export) {
    process.stdout.write(resetCsv(plan));
  } else if (values.json) {
    process.stdout.write(`${toJson(plan.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.offset })))}\n`);
  } else {
    // As Kafka's tool: a blank line, then the plan, whether it was executed or not.
    process.stdout.write(`\n${planTable(group, plan)}\n`);
  }
  return 0;
}

function readPlanFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read --from-file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function fileScope(offsets: readonly PlannedOffset[]): ResetScope {
  const byTopic = new Map<string, number[]>();
  for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o.partition]);
  return { kind: 'topics', topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) };
}
