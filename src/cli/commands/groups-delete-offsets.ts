/**
 * `brook groups delete-offsets GROUP --topic T[:P,P...] ...`: `kafka-consumer-groups
 * --delete-offsets` (OffsetDelete). The coordinator refuses partitions of topics the group
 * is subscribed to (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the rest; like Kafka's tool it
 * prints one status row per partition, and then exits 1 when any partition failed. A share
 * group's share state goes per topic (DeleteShareGroupOffsets), as kafka-share-groups does it.
 */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import type { DeletedShareGroupOffsets, TopicPartition } from '../../client/admin/index.js';
import { ErrorCode, KAFKA_ERRORS, KafkaProtocolError } from '../../protocol/errors.js';
import { withAdmin } from '../admin-session.js';
import { MISSING, formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';
import { parseTopicArg } from './groups-reset.js';
import { shareGroupOrNull } from '../share-group-views.js';

export const GROUPS_DELETE_OFFSETS_HELP = `Usage: brook groups delete-offsets GROUP --topic T[:P,P...] ... [--json] [-b HOST:PORT]

Deletes the group's committed offsets of the given partitions (OffsetDelete). Refused for
the topics the group's members are subscribed to. For a share group (KIP-932), an Empty
one's share state of whole topics (DeleteShareGroupOffsets; --topic T without partitions),
printed as TOPIC STATUS rows.
  --topic T   every partition of T (repeatable); T:0,2 only partitions 0 and 2
  --json      [{"topic","partition","error"}], error null when deleted (share groups:
              [{"topic","error"}])
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

export const GROUPS_DELETE_OFFSETS_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  topic: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface Outcome extends TopicPartition {
  /** null: deleted. */
  readonly error: string | null;
}

export async function groupsDeleteOffsets(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: GROUPS_DELETE_OFFSETS_OPTIONS });
  if (values.help) {
    process.stdout.write(`${GROUPS_DELETE_OFFSETS_HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (!group || extra !== undefined) throw new UsageError('groups delete-offsets needs exactly one GROUP');
  const topics = (values.topic ?? []).map(parseTopicArg);
  if (topics.length === 0) throw new UsageError('groups delete-offsets needs --topic');

  const share = await withAdmin(connectionFrom(values), context.interrupted, async (admin) => {
    if ((await shareGroupOrNull(admin, group)) === null) return null;
    if (topics.some((t) => t.partitions !== undefined)) throw new UsageError('a share group\'s offsets are deleted for whole topics: --topic T without partitions');
    return admin.deleteShareGroupOffsets(group, topics.map((t) => t.topic));
  });
  if (share !== null) return printShareOutcomes(share, values.json ?? false);

  const outcomes = await withAdmin(connectionFrom(values), context.interrupted, async (admin) => {
    const partitions: TopicPartition[] = [];
    const failed: Outcome[] = [];
    for (const { topic, partitions: listed } of topics) {
      if (listed !== undefined) {
        partitions.push(...listed.map((partition) => ({ topic, partition })));
        continue;
      }
      try {
        partitions.push(...(await admin.describeTopic(topic)).partitions.map((p) => ({ topic, partition: p.partition })));
      } catch (err) {
        // As Kafka's tool: the topic's row, partition '-', with the error.
        if (!(err instanceof KafkaProtocolError) || err.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) throw err;
        failed.push({ topic, partition: -1, error: err.errorName });
      }
    }
    const deleted = partitions.length > 0 ? await admin.deleteOffsets(group, partitions) : [];
    return [...deleted, ...failed].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  });
  const failures = outcomes.filter((o) => o.error !== null);
  if (values.json) {
    process.stdout.write(`${toJson(outcomes.map((o) => ({ topic: o.topic, partition: o.partition, error: o.error })))}\n`);
  } else {
    // Kafka's table: TOPIC (at least 15 wide) PARTITION (10) STATUS.
    const widths = [Math.max(15, ...outcomes.map((o) => o.topic.length)), 10];
    const rows = outcomes.map((o) => [o.topic, o.partition >= 0 ? String(o.partition) : MISSING, o.error === null ? 'Successful' : `Error: ${o.error}: ${errorMessage(o.error)}`]);
    const head = failures.length === 0 ? `Request succeeded for deleting offsets from group ${group}.\n` : '';
    process.stdout.write(`${head}\n${[['TOPIC', 'PARTITION', 'STATUS'], ...rows].map((r) => formatRow(r, widths)).join('\n')}\n`);
  }
  if (failures.length > 0) {
    // Kafka's sentence, as the command's one error line.
    throw new Error('Encountered some partition-level error, see the follow-up details.');
  }
  return 0;
}

/** `kafka-share-groups --delete-offsets`' TOPIC STATUS table; exit 1 when a topic failed. */
function printShareOutcomes(outcomes: readonly DeletedShareGroupOffsets[], json: boolean): number {
  if (json) {
    process.stdout.write(`${toJson(outcomes.map((o) => ({ topic: o.topic, error: o.error })))}\n`);
  } else {
    const widths = [Math.max(15, ...outcomes.map((o) => o.topic.length))];
    const rows = outcomes.map((o) => [o.topic, o.error === null ? 'Successful' : `Error: ${o.error}: ${o.message ?? errorMessage(o.error)}`]);
    process.stdout.write(`\n${[['TOPIC', 'STATUS'], ...rows].map((r) => formatRow(r, widths)).join('\n')}\n`);
  }
  if (outcomes.some((o) => o.error !== null)) throw new Error('Encountered some partition-level error, see the follow-up details.');
  return 0;
}

function errorMessage(name: string): string {
  return KAFKA_ERRORS.find((e) => e.name === name)?.message ?? name;
}
