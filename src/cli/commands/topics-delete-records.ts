/**
 * `brook topics delete-records TOPIC --offset N|end [--partition P ...]`: DeleteRecords, as
 * `kafka-delete-records.sh` does it from its offset file: every record of each partition
 * (all partitions unless named) before offset N goes; `end` (or -1) deletes up to the high
 * watermark. Prints Kafka's tool's lines (`partition: T-P<TAB>low_watermark: N`, or
 * `error: ...`); exits 1 when a partition failed.
 */
import { parseArgs } from 'node:util';
import type { CommandContext } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';

export const TOPICS_DELETE_RECORDS_HELP = `Usage: brook topics delete-records TOPIC --offset N|end [--partition P ...] [--json] [-b HOST:PORT]

Deletes every record before offset N (end or -1: every record) of the topic's partitions
(all of them unless --partition names some): their log start offset moves to N.

Options:
  --offset N|end         the new log start offset
  --partition P          a partition (repeatable; default all)
  --json                 machine-readable output
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help             show this help`;

export const TOPICS_DELETE_RECORDS_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  offset: { type: 'string' },
  partition: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function integer(text: string, what: string, min: number): number {
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${what} must be an integer >= ${min}, got '${text}'`);
  return n;
}

export async function topicsDeleteRecords(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: TOPICS_DELETE_RECORDS_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(`${TOPICS_DELETE_RECORDS_HELP}\n`);
    return 0;
  }
  const [topic, extra] = positionals;
  if (!topic || extra !== undefined) throw new UsageError('topics delete-records needs exactly one TOPIC');
  if (values.offset === undefined) throw new UsageError('topics delete-records needs --offset N|end');
  const offset = values.offset === 'end' ? -1n : BigInt(integer(values.offset, '--offset', -1));
  const named = (values.partition ?? []).map((p) => integer(p, '--partition', 0));
  const results = await withAdmin(connectionFrom(values), context.interrupted, async (admin) => {
    const partitions = named.length > 0 ? named : (await admin.describeTopic(topic)).partitions.map((p) => p.partition);
    return admin.deleteRecords(partitions.map((partition) => ({ topic, partition, offset })));
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))}\n`);
  } else {
    const lines = results.map((r) => `partition: ${r.topic}-${r.partition}\t${r.error === null ? `low_watermark: ${r.lowWatermark}` : `error: ${r.error}`}`);
    process.stdout.write(`Records delete operation completed:\n${lines.join('\n')}\n`);
  }
  return results.every((r) => r.error === null) ? 0 : 1;
}
