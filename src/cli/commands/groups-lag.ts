/**
 * `brook groups lag [GROUP] [--watch [--interval S]] [--json]`: consumer lag, per partition
 * for one group, per group and topic for all of them. With --watch the table is refreshed
 * every S seconds: redrawn in place on a terminal, printed again (after a timestamped
 * header line) when stdout is a file or a pipe; Ctrl-C ends it with exit code 0.
 */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { GroupNotFoundError, type Admin, type GroupOffsetRow } from '../../client/admin/index.js';
import { streamsGroupOrNull, streamsGroupView, streamsLagRows } from '../streams-group-views.js';
import { withAdmin } from '../admin-session.js';
import { MISSING, formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';

export const GROUPS_LAG_HELP = `Usage: brook groups lag [GROUP] [--watch] [--interval S] [--json] [-b HOST:PORT]

With GROUP: per partition GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID;
without: per group and topic GROUP TOPIC PARTITIONS LAG (the sum of the known lags).
A streams group's rows are those of groups describe: its active tasks' and committed
partitions, the lag counted from the log start where it committed nothing.
  --watch        refresh every --interval seconds: in place on a terminal, else printed
                 again after a "Every S s: ... TIME" line; Ctrl-C ends it (exit 0)
  --interval S   seconds between refreshes (default 2; fractions allowed)
  --json         [{"group","topic","partition","committed","logEndOffset","lag","memberId"}]
                 with GROUP, else [{"group","topic","partitions","lag"}]; one line per refresh
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

export const GROUPS_LAG_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  watch: { type: 'boolean' },
  interval: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const dash = (v: bigint | null): string => (v === null ? MISSING : v.toString());

/** A group's partitions with their committed offset, log end, lag and the member working on it. */
interface GroupLag {
  readonly group: string;
  readonly rows: readonly Pick<GroupOffsetRow, 'topic' | 'partition' | 'committed' | 'logEndOffset' | 'lag' | 'memberId'>[];
}

/**
 * The group's lag: a consumer or classic group's (describeGroupOffsets), else a streams
 * group's, as `groups describe` shows it (its lag counts from the log start where it committed
 * nothing, as Kafka's kafka-streams-groups does).
 */
async function lagOf(admin: Admin, group: string): Promise<GroupLag> {
  try {
    return { group, rows: (await admin.describeGroupOffsets(group)).rows };
  } catch (err) {
    if (!(err instanceof GroupNotFoundError)) throw err;
    const streams = await streamsGroupOrNull(admin, group);
    if (streams === null) throw err;
    return { group, rows: streamsLagRows(await streamsGroupView(admin, streams)) };
  }
}

function groupRows(result: GroupLag, json: boolean): string {
  const group = result.group;
  if (json) {
    return toJson(result.rows.map((r) => ({
      group, topic: r.topic, partition: r.partition, committed: r.committed, logEndOffset: r.logEndOffset, lag: r.lag, memberId: r.memberId,
    })));
  }
  const rows = result.rows.map((r) => [group, r.topic, String(r.partition), dash(r.committed), dash(r.logEndOffset), dash(r.lag), r.memberId ?? MISSING]);
  const width = (col: number): number => Math.max(15, ...rows.map((r) => r[col]!.length));
  const widths = [width(0), width(1), 10, 15, 15, 15];
  return [['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID'], ...rows].map((r) => formatRow(r, widths)).join('\n');
}

async function allGroupsRows(admin: Admin, json: boolean): Promise<string> {
  const summary: { group: string; topic: string; partitions: number; lag: bigint }[] = [];
  for (const listing of await admin.listGroups()) {
    let result: GroupLag;
    try {
      result = await lagOf(admin, listing.group);
    } catch {
      continue; // deleted since it was listed
    }
    const byTopic = new Map<string, { partitions: number; lag: bigint }>();
    for (const r of result.rows) {
      const t = byTopic.get(r.topic) ?? { partitions: 0, lag: 0n };
      t.partitions++;
      t.lag += r.lag ?? 0n;
      byTopic.set(r.topic, t);
    }
    for (const [topic, t] of [...byTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) summary.push({ group: listing.group, topic, ...t });
  }
  if (json) return toJson(summary);
  const rows = summary.map((s) => [s.group, s.topic, String(s.partitions), s.lag.toString()]);
  const width = (col: number): number => Math.max(15, ...rows.map((r) => r[col]!.length));
  return [['GROUP', 'TOPIC', 'PARTITIONS', 'LAG'], ...rows].map((r) => formatRow(r, [width(0), width(1), 10])).join('\n');
}

export interface WatchOptions {
  readonly out: Writable;
  /** Redraw in place (ANSI: cursor home, clear to the end of each line and below). */
  readonly tty: boolean;
  readonly intervalMs: number;
  readonly title: string;
  readonly signal: AbortSignal;
  readonly now?: () => Date;
}

/** Renders, shows, waits; until the signal aborts (then it returns, never throws for it). */
export async function watch(render: () => Promise<string>, options: WatchOptions): Promise<void> {
  const { out, tty, signal } = options;
  const now = options.now ?? (() => new Date());
  while (!signal.aborted) {
    let body: string;
    try {
      body = await render();
    } catch (err) {
      if (signal.aborted) return;
      // A refresh that fails (a broker restarting) is shown, and the next one tried.
      body = `error: ${(err as Error).message}`;
    }
    const header = `Every ${options.intervalMs / 1000}s: ${options.title}    ${now().toISOString()}`;
    if (tty) out.write(`\x1b[H${[header, '', ...body.split('\n')].map((l) => `${l}\x1b[K`).join('\n')}\n\x1b[J`);
    else out.write(`${header}\n${body}\n\n`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.intervalMs);
      signal.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}

export async function groupsLag(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: GROUPS_LAG_OPTIONS });
  if (values.help) {
    process.stdout.write(`${GROUPS_LAG_HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const interval = values.interval === undefined ? 2 : Number(values.interval);
  if (!Number.isFinite(interval) || interval <= 0) throw new UsageError(`--interval must be a positive number of seconds, got '${values.interval}'`);
  if (values.interval !== undefined && !values.watch) throw new UsageError('--interval needs --watch');
  const json = values.json ?? false;
  return withAdmin(connectionFrom(values), context.interrupted, async (admin) => {
    const render = async (): Promise<string> => (group === undefined ? allGroupsRows(admin, json) : groupRows(await lagOf(admin, group), json));
    if (!values.watch) {
      process.stdout.write(`${await render()}\n`);
      return 0;
    }
    await watch(render, {
      out: process.stdout, tty: process.stdout.isTTY === true && !json, intervalMs: Math.round(interval * 1000),
      title: `brook groups lag${group === undefined ? '' : ` ${group}`}`, signal: context.interrupted,
    });
    return 0;
  });
}
