/**
 * `brook consume TOPIC`: what kafka-console-consumer.sh does, over Brook's consumer. With
 * --group the consumer joins the group and commits exactly what it printed; without, it
 * assigns itself every partition and commits nothing.
 */
import { parseArgs } from 'node:util';
import { Consumer } from '../../client/consumer/consumer.js';
import type { ConsumerRecord } from '../../client/consumer/record-decoding.js';
import type { OffsetToCommit } from '../../client/consumer/offset-committer.js';
import { INTERRUPTED_CLOSE_TIMEOUT_MS, type Command } from '../command.js';
import { BOOTSTRAP_OPTIONS, bootstrapFrom, UsageError } from '../options.js';

/** With --group, the longest wait for a first assignment before --timeout-ms starts counting anyway. */
const JOIN_GRACE_MS = 30_000;

const HELP = `Usage:
  brook consume TOPIC [--group G] [--from-beginning] [--max-messages N] [--timeout-ms N]
                      [--assignor NAME[,NAME...]] [--format json|value]

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --group G              consume as a member of group G and commit what was printed
  --from-beginning       start from the earliest offset when there is no committed offset
  --max-messages N       exit after N records
  --timeout-ms N         exit after N ms without a new record (with --group, counted
                         from the first assignment, so joining the group is not idle time)
  --assignor NAMES       partition assignors, preferred first (default range,cooperative-sticky)
  --format json|value    json: one object per record {"topic","partition","offset","key","value","timestamp"};
                         value: the value only (default)
  -h, --help             show this help`;

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}

function render(r: ConsumerRecord, format: 'json' | 'value'): string {
  if (format === 'value') return `${r.value === null ? '' : r.value.toString('utf8')}\n`;
  return `${JSON.stringify({
    topic: r.topic, partition: r.partition, offset: Number(r.offset),
    key: r.key === null ? null : r.key.toString('utf8'),
    value: r.value === null ? null : r.value.toString('utf8'),
    timestamp: r.timestamp,
  })}\n`;
}

function write(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

export const consumeCommand: Command = {
  name: 'consume',
  summary: 'print records of a topic (alone or as a group member)',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args, allowPositionals: true,
      options: {
        ...BOOTSTRAP_OPTIONS,
        group: { type: 'string' },
        'from-beginning': { type: 'boolean' },
        'max-messages': { type: 'string' },
        'timeout-ms': { type: 'string' },
        assignor: { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [topic, extra] = positionals;
    if (!topic) throw new UsageError('consume needs a TOPIC (see brook consume --help)');
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const format = values.format ?? 'value';
    if (format !== 'json' && format !== 'value') throw new UsageError('--format must be json or value');
    const maxMessages = positiveInt('max-messages', values['max-messages']);
    const timeoutMs = positiveInt('timeout-ms', values['timeout-ms']);
    const assignors = values.assignor?.split(',').map((s) => s.trim()).filter((s) => s !== '');

    const stop = context.interrupted;
    const consumer = new Consumer({
      bootstrapServers: bootstrapFrom(values), groupId: values.group, clientId: 'brook-console-consumer',
      autoOffsetReset: values['from-beginning'] ? 'earliest' : 'latest',
      // Commit exactly what was printed, not what was fetched: explicit commits below.
      enableAutoCommit: false,
      ...(assignors && assignors.length > 0 ? { assignors } : {}),
    });
    const printed = new Map<string, OffsetToCommit>();
    let count = 0;
    // With --group, --timeout-ms counts from the first assignment: joining a group takes the
    // broker's initial rebalance delay (3 s by default) plus the join itself, and a consumer
    // that gave up before it was given any partition would read nothing. A group that never
    // assigns anything still ends: the idle clock starts after JOIN_GRACE_MS regardless.
    let lastRecordAt = Date.now();
    let assigned = values.group === undefined;
    try {
      if (values.group !== undefined) {
        consumer.subscribe([topic], {
          onPartitionsAssigned: () => {
            if (!assigned) lastRecordAt = Date.now();
            assigned = true;
          },
        });
      } else {
        const partitions = await consumer.partitionsFor(topic, { signal: stop });
        if (partitions.length === 0) throw new Error(`topic '${topic}' does not exist`);
        consumer.assign(partitions);
      }
      let lastCommitAt = Date.now();
      const startedAt = Date.now();
      while (!stop.aborted && (maxMessages === undefined || count < maxMessages)) {
        if (!assigned && Date.now() - startedAt >= JOIN_GRACE_MS) {
          assigned = true;
          lastRecordAt = startedAt + JOIN_GRACE_MS;
        }
        const waitMs = timeoutMs === undefined || !assigned ? 1_000 : Math.max(0, Math.min(1_000, lastRecordAt + timeoutMs - Date.now()));
        let records: ConsumerRecord[];
        try {
          records = await consumer.poll({ timeoutMs: waitMs, signal: stop });
        } catch (err) {
          if (stop.aborted) break;
          throw err;
        }
        if (records.length > 0) {
          lastRecordAt = Date.now();
          const take = maxMessages === undefined ? records : records.slice(0, maxMessages - count);
          await write(take.map((r) => render(r, format)).join(''));
          for (const r of take) printed.set(`${r.topic}:${r.partition}`, { topic: r.topic, partition: r.partition, offset: r.offset + 1n, leaderEpoch: r.leaderEpoch });
          count += take.length;
        } else if (assigned && timeoutMs !== undefined && Date.now() - lastRecordAt >= timeoutMs) {
          break;
        }
        if (values.group !== undefined && printed.size > 0 && Date.now() - lastCommitAt >= 5_000) {
          lastCommitAt = Date.now();
          consumer.commitAsync([...printed.values()]);
        }
      }
      // After an interrupt everything left must fit in a few seconds, whatever the broker's state.
      const commitTimeoutMs = stop.aborted ? INTERRUPTED_CLOSE_TIMEOUT_MS : undefined;
      if (values.group !== undefined && printed.size > 0) await consumer.commitSync([...printed.values()], { timeoutMs: commitTimeoutMs });
      return 0;
    } finally {
      await consumer.close({ timeoutMs: stop.aborted ? INTERRUPTED_CLOSE_TIMEOUT_MS : undefined });
    }
  },
};
