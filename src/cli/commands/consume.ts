/**
 * `brook consume TOPIC`: what kafka-console-consumer.sh and `kcat -C` do, over Brook's
 * consumer. With --group the consumer joins the group and commits exactly what it printed;
 * without, it assigns itself every partition (or those of --partition), starts where
 * --offset says and commits nothing. Output is buffered (one write per poll), waits for a
 * slow reader, and ends quietly when the reader goes away (`| head`).
 */
import { parseArgs } from 'node:util';
import { Consumer } from '../../client/consumer/consumer.js';
import type { RawRecord } from '../../client/consumer/record-decoding.js';
import type { OffsetToCommit } from '../../client/consumer/offset-committer.js';
import { INTERRUPTED_CLOSE_TIMEOUT_MS, type Command } from '../command.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, joinNegativeValues, UsageError } from '../options.js';
import { BufferedOutput } from '../output.js';
import { consumeShare } from './consume-share.js';
import { parseEncoding, recordFormatter } from '../record-format.js';
import { endOffsets, parsePartitions, parseStartOffset, seekToStart, type StartOffset } from '../start-offsets.js';

/** With --group, the longest wait for a first assignment before --timeout-ms starts counting anyway. */
const JOIN_GRACE_MS = 30_000;
/** Records per poll: about 1 MB of 100-byte records, a few output chunks. */
const CLI_MAX_POLL_RECORDS = 10_000;

export const CONSUME_HELP = `Usage:
  brook consume TOPIC [--group G] [--from-beginning] [--offset earliest|latest|N|-N]
                      [--partition P[,P...]] [--exit-at-end] [--max-messages N] [--timeout-ms N]
                      [--assignor NAME[,NAME...]] [--format json|value|TEMPLATE]
                      [--key-encoding utf8|hex|base64] [--value-encoding utf8|hex|base64]
  brook consume TOPIC --share-group G [--release | --reject] [--max-messages N] [--timeout-ms N]
                      [--format json|value|TEMPLATE] [--key-encoding ...] [--value-encoding ...]

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  --group G              consume as a member of group G and commit what was printed
  --from-beginning       start from the earliest offset when there is no committed offset
                         (the same as --offset earliest)
  -o, --offset WHERE     where to start: earliest (or beginning), latest (or end; the
                         default), an offset N, or minus N (e.g. -5): that many records before
                         each partition's end;
                         with --group only earliest or latest (where no offset is committed)
  --share-group G        consume as a member of share group G (KIP-932, as
                         kafka-console-share-consumer): each record is acknowledged once
                         printed; the group starts at the log end
  --release              with --share-group: release the printed records (delivered again)
                         instead of accepting them
  --reject               with --share-group: reject them (never delivered again)
  -p, --partition P      only these partitions (repeatable or comma-separated; not with --group)
  -e, --exit-at-end      exit once every partition is read up to where its end was at start
                         (as kcat -e; not with --group)
  --max-messages N       exit after N records
  --timeout-ms N         exit after N ms without a new record (with --group, counted
                         from the first assignment, so joining the group is not idle time)
  --assignor NAMES       partition assignors, preferred first (default range,cooperative-sticky)
  -f, --format FORMAT    value: the value only (default);
                         json: one object per record {"topic","partition","offset","key","value","timestamp"}
                         and "headers":[{"key","value"}] when the record has headers;
                         else a template: %t topic, %p partition, %o offset, %k key, %K key
                         length, %s value, %S value length, %T timestamp (ms), %h headers
                         (k=v,k2=v2), %% a percent sign; escapes \\n \\t \\r \\0 \\\\ (as kcat -f;
                         add \\n to end a line)
  --key-encoding E       print keys as utf8 (default), hex or base64
  --value-encoding E     print values and header values as utf8 (default), hex or base64
  -h, --help             show this help`;

export const CONSUME_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  group: { type: 'string' },
  'share-group': { type: 'string' },
  release: { type: 'boolean' },
  reject: { type: 'boolean' },
  'from-beginning': { type: 'boolean' },
  offset: { type: 'string', short: 'o' },
  partition: { type: 'string', short: 'p', multiple: true },
  'exit-at-end': { type: 'boolean', short: 'e' },
  'max-messages': { type: 'string' },
  'timeout-ms': { type: 'string' },
  assignor: { type: 'string' },
  format: { type: 'string', short: 'f' },
  'key-encoding': { type: 'string' },
  'value-encoding': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}

export const consumeCommand: Command = {
  name: 'consume',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args: joinNegativeValues(args, new Set(['--offset', '-o'])), allowPositionals: true, options: CONSUME_OPTIONS,
    });
    if (values.help) {
      process.stdout.write(`${CONSUME_HELP}\n`);
      return 0;
    }
    const [topic, extra] = positionals;
    if (!topic) throw new UsageError('consume needs a TOPIC (see brook consume --help)');
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const format = recordFormatter(values.format, {
      key: parseEncoding('key-encoding', values['key-encoding']),
      value: parseEncoding('value-encoding', values['value-encoding']),
    });
    const maxMessages = positiveInt('max-messages', values['max-messages']);
    const timeoutMs = positiveInt('timeout-ms', values['timeout-ms']);
    const assignors = values.assignor?.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const group = values.group;
    const shareGroup = values['share-group'];
    if (shareGroup === undefined && (values.release || values.reject)) throw new UsageError('--release and --reject need --share-group');
    if (shareGroup !== undefined) {
      // A share group acquires records for its members: no offsets, partitions or assignors to choose.
      const refused = ['group', 'from-beginning', 'offset', 'partition', 'exit-at-end', 'assignor'].filter((name) => values[name as keyof typeof values] !== undefined);
      if (refused.length > 0) throw new UsageError(`--share-group cannot be used with ${refused.map((n) => `--${n}`).join(', ')}`);
      if (values.release && values.reject) throw new UsageError('--release and --reject cannot both be given');
      return consumeShare({
        topic, group: shareGroup, connection: connectionFrom(values), format, maxMessages, timeoutMs,
        acknowledge: values.release ? 'RELEASE' : values.reject ? 'REJECT' : 'ACCEPT',
      }, context.interrupted);
    }
    let start: StartOffset = values['from-beginning'] ? { kind: 'earliest' } : { kind: 'latest' };
    if (values.offset !== undefined) {
      start = parseStartOffset(values.offset);
      if (values['from-beginning'] && start.kind !== 'earliest') throw new UsageError('--from-beginning and --offset disagree');
    }
    if (group !== undefined) {
      // A group member starts at its committed offsets; the reset policy only covers the rest.
      if (start.kind !== 'earliest' && start.kind !== 'latest') throw new UsageError('with --group, --offset must be earliest or latest');
      if (values.partition !== undefined) throw new UsageError('--partition cannot be used with --group (the group assigns partitions)');
      if (values['exit-at-end']) throw new UsageError('--exit-at-end cannot be used with --group');
    }

    const stop = context.interrupted;
    const consumer = new Consumer({
      ...connectionFrom(values), groupId: group, clientId: 'brook-console-consumer',
      autoOffsetReset: start.kind === 'earliest' ? 'earliest' : 'latest',
      // Commit exactly what was printed, not what was fetched: explicit commits below.
      enableAutoCommit: false,
      // Bigger polls than the library's 500: fewer polls per record printed.
      maxPollRecords: maxMessages === undefined ? CLI_MAX_POLL_RECORDS : Math.max(1, Math.min(CLI_MAX_POLL_RECORDS, maxMessages)),
      ...(assignors && assignors.length > 0 ? { assignors } : {}),
    });
    const out = new BufferedOutput();
    // Per partition, the offset after the last printed record and its leader epoch: what --group commits.
    const printed = new Map<number, { next: number; leaderEpoch: number }>();
    const toCommit = (): OffsetToCommit[] => [...printed].map(([partition, p]) => ({ topic, partition, offset: BigInt(p.next), leaderEpoch: p.leaderEpoch }));
    let count = 0;
    // With --group, --timeout-ms counts from the first assignment: joining a group takes the
    // broker's initial rebalance delay (3 s by default) plus the join itself, and a consumer
    // that gave up before it was given any partition would read nothing. A group that never
    // assigns anything still ends: the idle clock starts after JOIN_GRACE_MS regardless.
    let lastRecordAt = Date.now();
    let assigned = group === undefined;
    // --exit-at-end: partition → the end offset to reach (offsets are exact as numbers: RawRecord).
    const remaining = new Map<number, number>();
    // Prints one record; false (the poll ends there) once the output chunk is full or --max-messages is reached.
    const print = (r: RawRecord): boolean => {
      format(r, out);
      count++;
      if (group !== undefined) {
        const p = printed.get(r.partition);
        if (p === undefined) printed.set(r.partition, { next: r.offset + 1, leaderEpoch: r.leaderEpoch });
        else {
          p.next = r.offset + 1;
          p.leaderEpoch = r.leaderEpoch;
        }
      }
      if (remaining.size > 0) {
        const end = remaining.get(r.partition);
        if (end !== undefined && r.offset + 1 >= end) remaining.delete(r.partition);
      }
      return !out.full && (maxMessages === undefined || count < maxMessages);
    };
    try {
      if (group !== undefined) {
        consumer.subscribe([topic], {
          onPartitionsAssigned: () => {
            if (!assigned) lastRecordAt = Date.now();
            assigned = true;
          },
        });
      } else {
        const all = await consumer.partitionsFor(topic, { signal: stop });
        if (all.length === 0) throw new Error(`topic '${topic}' does not exist`);
        const chosen = values.partition === undefined ? all.map((tp) => tp.partition) : parsePartitions(values.partition, topic, all.map((tp) => tp.partition));
        const partitions = chosen.map((partition) => ({ topic, partition }));
        consumer.assign(partitions);
        if (values['exit-at-end']) {
          const ends = await endOffsets(consumer, partitions, stop);
          partitions.forEach((tp, i) => remaining.set(tp.partition, Number(ends[i]!)));
        }
        await seekToStart(consumer, partitions, start, stop);
        if (values['exit-at-end']) await dropFinished(consumer, topic, remaining, stop);
      }
      let lastCommitAt = Date.now();
      const startedAt = Date.now();
      while (!stop.aborted && (maxMessages === undefined || count < maxMessages) && !out.closed) {
        if (values['exit-at-end'] && remaining.size === 0) break;
        if (!assigned && Date.now() - startedAt >= JOIN_GRACE_MS) {
          assigned = true;
          lastRecordAt = startedAt + JOIN_GRACE_MS;
        }
        const waitMs = timeoutMs === undefined || !assigned ? 1_000 : Math.max(0, Math.min(1_000, lastRecordAt + timeoutMs - Date.now()));
        let given: number;
        try {
          given = await consumer.pollRaw(print, { timeoutMs: waitMs, signal: stop });
        } catch (err) {
          if (stop.aborted) break;
          throw err;
        }
        if (given > 0) {
          lastRecordAt = Date.now();
          await out.flush();
        } else {
          if (assigned && timeoutMs !== undefined && Date.now() - lastRecordAt >= timeoutMs) break;
          // Nothing came: a partition may have reached its end through records it never returns (control records).
          if (remaining.size > 0) await dropFinished(consumer, topic, remaining, stop);
        }
        if (group !== undefined && printed.size > 0 && Date.now() - lastCommitAt >= 5_000) {
          lastCommitAt = Date.now();
          consumer.commitAsync(toCommit());
        }
      }
      await out.flush();
      // After an interrupt everything left must fit in a few seconds, whatever the broker's state.
      const commitTimeoutMs = stop.aborted ? INTERRUPTED_CLOSE_TIMEOUT_MS : undefined;
      if (group !== undefined && printed.size > 0) await consumer.commitSync(toCommit(), { timeoutMs: commitTimeoutMs });
      return 0;
    } finally {
      out.close();
      await consumer.close({ timeoutMs: stop.aborted ? INTERRUPTED_CLOSE_TIMEOUT_MS : undefined });
    }
  },
};

/** --exit-at-end: forgets the partitions whose position reached the end they had at start. */
async function dropFinished(consumer: Consumer, topic: string, remaining: Map<number, number>, signal: AbortSignal): Promise<void> {
  for (const [partition, end] of remaining) {
    if (await consumer.position({ topic, partition }, { signal }) >= BigInt(end)) remaining.delete(partition);
  }
}
