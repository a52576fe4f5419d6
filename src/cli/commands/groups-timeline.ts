/**
 * `brook groups timeline GROUP [--json] [--since D] [--follow]`: the group's transitions as
 * the broker's flight recorder wrote them to `__brook_group_timeline` (keyed by group id),
 * read with a consumer that assigns itself the topic's partitions and joins no group. It
 * reads up to the log end as it was when the command started, or with --follow keeps
 * printing new entries until SIGINT/SIGTERM. --since seeks by timestamp (ListOffsets), so an
 * old, large topic is not read from its start.
 */
import { parseArgs } from 'node:util';
import { Consumer } from '../../client/consumer/consumer.js';
import type { TopicPartition } from '../../client/admin/index.js';
import { parseTimelineEntry, TIMELINE_TOPIC, type TimelineEntry } from '../../broker/flight-recorder/timeline-entry.js';
import { INTERRUPTED_CLOSE_TIMEOUT_MS, type CommandContext } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError, type ClientConnectionOptions } from '../options.js';
import { BufferedOutput } from '../output.js';
import { endOffsets } from '../start-offsets.js';
import { formatTimelineEntry } from '../timeline-format.js';

export const GROUPS_TIMELINE_HELP = `Usage: brook groups timeline GROUP [--json] [--since DURATION|TIME] [--follow] [-b HOST:PORT]

The group's rebalances and other transitions, oldest first, as the broker's flight
recorder wrote them to ${TIMELINE_TOPIC}: one line per entry with its time,
generation (classic groups) or group epoch, what happened, the reason, who joined and
left, the members and how many partitions moved.
  --json            one JSON object per line: the entry as the broker stored it
  --since D         only entries from the last D (30s, 15m, 2h, 7d, 1h30m, 500ms) or since
                    an ISO 8601 time (2026-12-05T05:00:00Z; UTC without a zone)
  --follow          after the entries there are, keep printing new ones as they are
                    written; Ctrl-C (or SIGTERM) ends it (exit 0)
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

export const GROUPS_TIMELINE_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  json: { type: 'boolean' },
  since: { type: 'string' },
  follow: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** How often --follow asks again whether the topic exists (the recorder creates it with its first entry). */
const TOPIC_WAIT_MS = 1_000;
const POLL_MS = 500;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * --since: a duration back from `nowMs` (`30s`, `15m`, `2h`, `7d`, or parts together as
 * `1h30m`), or an ISO 8601 date-time (a zone, or UTC without one). Returns epoch ms.
 */
export function parseSince(text: string, nowMs: number): number {
  const t = text.trim();
  if (/^(\d+(\.\d+)?(ms|s|m|h|d))+$/i.test(t)) {
    let ms = 0;
    for (const m of t.toLowerCase().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    return nowMs - Math.round(ms);
  }
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?))?(Z|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (m) {
    const zone = m[3] === undefined ? 'Z' : m[3].toUpperCase() === 'Z' ? 'Z' : `${m[3].slice(0, 3)}:${m[3].slice(-2)}`;
    const ms = Date.parse(`${m[1]}T${m[2] ?? '00:00'}${zone}`);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new UsageError(`--since expects a duration such as 30s, 15m, 2h or 7d, or an ISO 8601 time such as 2026-12-05T05:00:00Z, got '${text}'`);
}

export interface TimelineReadOptions {
  readonly connection: ClientConnectionOptions;
  readonly group: string;
  /** Epoch ms: seek there by record timestamp, and keep only entries whose time is at or after it. */
  readonly sinceMs?: number;
  readonly follow: boolean;
  readonly signal: AbortSignal;
  readonly onEntry: (entry: TimelineEntry) => void;
  /** After each poll's entries (to flush them); false ends the read (the output went away). */
  readonly afterPoll?: () => Promise<boolean>;
  /** Called once when the topic does not exist (yet); with `follow` the read then waits for it. */
  readonly onNoTopic?: () => void;
}

/** Waits `ms` or until the signal aborts, whichever comes first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The timeline topic's partitions; with `follow`, waits until the topic exists (or the signal aborts). */
async function timelinePartitions(consumer: Consumer, options: TimelineReadOptions): Promise<TopicPartition[]> {
  let told = false;
  for (;;) {
    const partitions = await consumer.partitionsFor(TIMELINE_TOPIC, { signal: options.signal });
    if (partitions.length > 0) return partitions;
    if (!told) options.onNoTopic?.();
    told = true;
    if (!options.follow) return [];
    await pause(TOPIC_WAIT_MS, options.signal);
    if (options.signal.aborted) return [];
  }
}

/** Where each partition starts: its beginning, or the first record at or after --since. */
async function seekStart(consumer: Consumer, partitions: readonly TopicPartition[], options: TimelineReadOptions): Promise<void> {
  if (options.sinceMs === undefined) {
    consumer.seekToBeginning(partitions);
    return;
  }
  const sinceMs = options.sinceMs;
  const found = await withAdmin(options.connection, options.signal, (admin) => admin.offsetsForTime(partitions, BigInt(sinceMs)));
  for (const tp of partitions) {
    const offset = found.get(`${tp.topic}:${tp.partition}`) ?? null;
    // No record at or after the time: nothing to print from this partition but what comes later.
    if (offset === null) consumer.seekToEnd([tp]);
    else consumer.seek(tp, offset);
  }
}

/**
 * Reads the group's entries in log order and gives each to `onEntry`: up to the log end as
 * it was at the start, or (with `follow`) until the signal aborts. Records of other groups,
 * tombstones and values that are not entries of a known version are skipped.
 */
export async function readTimeline(options: TimelineReadOptions): Promise<void> {
  const { signal } = options;
  const key = Buffer.from(options.group, 'utf8');
  const consumer = new Consumer({
    ...options.connection, clientId: 'brook-cli-timeline', enableAutoCommit: false,
    // The recorder's retention may delete the start of the log while we read it.
    autoOffsetReset: 'earliest',
  });
  try {
    const partitions = await timelinePartitions(consumer, options);
    if (partitions.length === 0) return;
    consumer.assign(partitions);
    // Without --follow: per partition, the end it had at the start, until the read reaches it.
    const remaining = new Map<number, bigint>();
    if (!options.follow) {
      const ends = await endOffsets(consumer, partitions, signal);
      partitions.forEach((tp, i) => remaining.set(tp.partition, ends[i]!));
    }
    await seekStart(consumer, partitions, options);
    await dropFinished(consumer, remaining, signal);
    while (!signal.aborted && (options.follow || remaining.size > 0)) {
      let records: Awaited<ReturnType<Consumer['poll']>>;
      try {
        records = await consumer.poll({ timeoutMs: POLL_MS, signal });
      } catch (err) {
        if (signal.aborted) break;
        throw err;
      }
      for (const r of records) {
        if (r.key === null || !key.equals(r.key)) continue;
        const entry = parseTimelineEntry(r.value);
        if (entry === null) continue;
        if (options.sinceMs !== undefined && !(Date.parse(entry.time) >= options.sinceMs)) continue;
        options.onEntry(entry);
      }
      if (options.afterPoll && !(await options.afterPoll())) break;
      await dropFinished(consumer, remaining, signal);
    }
  } catch (err) {
    // --follow ends with an interrupt, whatever it was waiting for then.
    if (options.follow && signal.aborted) return;
    throw err;
  } finally {
    await consumer.close({ timeoutMs: signal.aborted ? INTERRUPTED_CLOSE_TIMEOUT_MS : undefined });
  }
}

/** Forgets the partitions whose position reached the end they had at the start. */
async function dropFinished(consumer: Consumer, remaining: Map<number, bigint>, signal: AbortSignal): Promise<void> {
  for (const [partition, end] of remaining) {
    if (await consumer.position({ topic: TIMELINE_TOPIC, partition }, { signal }) >= end) remaining.delete(partition);
  }
}

export async function groupsTimeline(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: GROUPS_TIMELINE_OPTIONS });
  if (values.help) {
    process.stdout.write(`${GROUPS_TIMELINE_HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (group === undefined) throw new UsageError('groups timeline needs a GROUP (see brook groups timeline --help)');
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const sinceMs = values.since === undefined ? undefined : parseSince(values.since, Date.now());
  const json = values.json ?? false;
  const out = new BufferedOutput();
  try {
    await readTimeline({
      connection: connectionFrom(values), group, follow: values.follow ?? false, signal: context.interrupted,
      ...(sinceMs === undefined ? {} : { sinceMs }),
      onNoTopic: () => process.stderr.write(`brook groups: no timeline yet: topic ${TIMELINE_TOPIC} does not exist (the broker has recorded no group transitions)${values.follow ? '; waiting for it' : ''}\n`),
      onEntry: (entry) => out.text(`${json ? JSON.stringify(entry) : formatTimelineEntry(entry)}\n`),
      // Written after every poll, so --follow shows each entry as it comes.
      afterPoll: async () => {
        await out.flush();
        return !out.closed;
      },
    });
    await out.flush();
    return 0;
  } finally {
    out.close();
  }
}
