/**
 * `brook groups describe GROUP [--members | --state] [--verbose] [--json]`: the group's state and members, and per partition
 * the committed offset, log end offset and lag, as `kafka-consumer-groups --describe` shows
 * them ('-' where Kafka shows '-'; null in JSON). A consumer group (KIP-848) also shows its
 * type, assignor, group epoch and assignment epoch, and per member its epoch and current
 * and target assignment, as `kafka-consumer-groups --describe --members --verbose` does.
 */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import { GroupNotFoundError, type GroupOffsets, type MemberDescription, type TopicPartition } from '../../client/admin/index.js';
import { assignmentString, membersView, stateNotice, stateView } from '../group-views.js';
import { describeStreamsGroup } from './groups-describe-streams.js';
import { shareDescribeJson, shareGroupView, shareMemberJson, shareMembersTable, shareOffsetsTable, shareStateLine, shareStateTable } from '../share-group-views.js';

export { assignmentString };
import { withAdmin } from '../admin-session.js';
import { MISSING, formatRow, toJson } from '../format.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';

export const GROUPS_DESCRIBE_HELP = `Usage: brook groups describe GROUP [--offsets | --members | --state] [--verbose] [--json] [-b HOST:PORT]

Shows the group's state and, per assigned or committed partition, CURRENT-OFFSET (the
committed offset), LOG-END-OFFSET, LAG and the member that owns it ('-' when unknown).
A consumer group (the consumer group protocol of KIP-848) also shows its type, assignor,
group epoch and assignment epoch, and a table of its members: each member's epoch and
current assignment, and the assignment epoch and the member's target assignment.
A share group (KIP-932) shows, as Kafka's kafka-share-groups describes it, per share-partition its
LEADER-EPOCH, START-OFFSET (the first record not yet delivered for good) and LAG, and its
members with their assignments.
A streams group (KIP-1071, Kafka Streams' group.protocol=streams) shows, as Kafka's
kafka-streams-groups describes it, its epochs and topology status (ready, or the source and
internal topics a NotReady group waits for), per partition of its active tasks or commits
OFFSET-LAG (with --verbose CURRENT-OFFSET LEADER-EPOCH LOG-END-OFFSET too), and its members
with their process ids and tasks in Kafka's notation (ACTIVE: 0:[0,1]; STANDBY: 1:[0]; ).
  --offsets  the offsets table (the default)
  --members  the members, as Kafka's kafka-consumer-groups shows them: GROUP CONSUMER-ID
             HOST CLIENT-ID #PARTITIONS (with --verbose also the epochs and the current and
             target assignments)
  --state    the group's coordinator, assignment strategy, state and member count, as
             Kafka's kafka-consumer-groups shows them (with --verbose also its epochs)
  --verbose  the extra columns of --members and --state
  --json   {"group","state","protocolType","protocol","generation",
            "members":[{"memberId","groupInstanceId","clientId","host","assignment":[{"topic","partition"}]}],
            "offsets":[{"topic","partition","committed","logEndOffset","lag"}]}
           unknown values (no committed offset, no lag, no generation) are null.
           A consumer group adds "type":"consumer","groupEpoch","assignmentEpoch" (its
           "generation" is the group epoch, "protocol" the assignor) and per member
           "memberEpoch","targetAssignment":[{"topic","partition"}],"subscribedTopics",
           "subscribedTopicRegex","rackId".
           A share group (KIP-932): "committed" is the share-partition's start offset,
           each offset adds "startOffset","leaderEpoch"; then "type":"share","groupEpoch",
           "assignmentEpoch"; members add "memberEpoch","subscribedTopics","rackId".
           A streams group: each offset adds "leaderEpoch"; then "type":"streams",
           "groupEpoch","assignmentEpoch","topologyEpoch","subtopologies","topology":
           {"ready","missingSourceTopics","missingInternalTopics"}; members add
           "memberEpoch","processId","rackId","topologyEpoch","userEndpoint","clientTags",
           "memberProtocol","tasks","targetTasks","taskOffsets","taskEndOffsets".
           With --members: {"group","state","members":[...]} (members as above); with
           --state: {"group","coordinator":{"nodeId","host","port"},"assignmentStrategy",
           "state","members","groupEpoch","assignmentEpoch"} (members: their number).
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

export const GROUPS_DESCRIBE_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  offsets: { type: 'boolean' },
  members: { type: 'boolean' },
  state: { type: 'boolean' },
  verbose: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const partitionsJson = (list: readonly TopicPartition[]): unknown[] => list.map((tp) => ({ topic: tp.topic, partition: tp.partition }));

function memberJson(m: MemberDescription, consumer: boolean): unknown {
  const base = {
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    host: m.host,
    assignment: partitionsJson(m.assignment),
  };
  if (!consumer) return base;
  return {
    ...base,
    memberEpoch: m.memberEpoch,
    targetAssignment: partitionsJson(m.targetAssignment ?? []),
    subscribedTopics: m.subscribedTopics ?? [],
    subscribedTopicRegex: m.subscribedTopicRegex,
    rackId: m.rackId,
  };
}

/** The JSON of docs/CLI.md; classic groups exactly the contract's keys, consumer groups more after them. */
export function describeJson(result: GroupOffsets): unknown {
  const d = result.description;
  const consumer = d.type === 'consumer';
  return {
    group: d.group,
    state: d.state,
    protocolType: d.protocolType,
    protocol: d.protocol,
    generation: d.generation,
    members: d.members.map((m) => memberJson(m, consumer)),
    offsets: result.rows.map((r) => ({ topic: r.topic, partition: r.partition, committed: r.committed, logEndOffset: r.logEndOffset, lag: r.lag })),
    ...(consumer ? { type: d.type, groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch } : {}),
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

/**
 * A consumer group's members as `kafka-consumer-groups --describe --members --verbose`
 * prints them: GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH
 * CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT; the instance id column only when a
 * member has one, and then blank for the members without one (as Kafka prints it); the
 * target epoch is the group's assignment epoch. Members with more partitions first.
 */
export function membersTable(result: GroupOffsets): string {
  const d = result.description;
  const members = d.members.map((m, i) => ({ m, i })).sort((a, b) => b.m.assignment.length - a.m.assignment.length || a.i - b.i).map(({ m }) => m);
  const withInstanceIds = members.some((m) => m.groupInstanceId !== null);
  const rows = members.map((m) => [
    d.group, m.memberId, ...(withInstanceIds ? [m.groupInstanceId ?? ''] : []), m.host, m.clientId, String(m.assignment.length),
    String(m.memberEpoch ?? 0), assignmentString(m.assignment), String(d.assignmentEpoch ?? 0), assignmentString(m.targetAssignment ?? []),
  ]);
  const header = ['GROUP', 'CONSUMER-ID', ...(withInstanceIds ? ['GROUP-INSTANCE-ID'] : []), 'HOST', 'CLIENT-ID', '#PARTITIONS', 'CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT'];
  // Kafka's printMembers widths: group, consumer id, instance id, host and client id at
  // least 15 (the instance id 17) or their longest value, the counts and epochs 15, the
  // assignments 20 or their longest; the last column unpadded.
  const width = (col: number, min: number): number => Math.max(min, ...rows.map((r) => r[col]!.length));
  const at = withInstanceIds ? 1 : 0;
  const widths = [width(0, 15), width(1, 15), ...(withInstanceIds ? [width(2, 17)] : []), width(2 + at, 15), width(3 + at, 15), 15, 15, width(6 + at, 20), 15];
  return [header, ...rows].map((cells) => formatRow(cells, widths)).join('\n');
}

/** The line above the tables: state, and for a consumer group its type, assignor and epochs. */
export function stateLine(result: GroupOffsets): string {
  const d = result.description;
  const protocol = d.protocol === '' ? MISSING : d.protocol;
  const members = `${d.members.length} member${d.members.length === 1 ? '' : 's'}`;
  if (d.type === 'consumer') {
    return `Consumer group '${d.group}' is ${d.state} (type consumer, assignor ${protocol}, group epoch ${d.groupEpoch ?? MISSING}, `
      + `assignment epoch ${d.assignmentEpoch ?? MISSING}, ${members}, total lag ${result.totalLag}).`;
  }
  return `Consumer group '${d.group}' is ${d.state} (protocol ${protocol}, ${members}, total lag ${result.totalLag}).`;
}

export async function groupsDescribe(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: GROUPS_DESCRIBE_OPTIONS });
  if (values.help) {
    process.stdout.write(`${GROUPS_DESCRIBE_HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (!group || extra !== undefined) throw new UsageError('groups describe needs exactly one GROUP');
  if ([values.offsets, values.members, values.state].filter(Boolean).length > 1) throw new UsageError('--offsets, --members and --state cannot be used together');
  try {
    return await describeGroup(group, values, context);
  } catch (err) {
    // Share and streams groups are none of the groups DescribeGroups and ConsumerGroupDescribe describe.
    if (!(err instanceof GroupNotFoundError)) throw err;
    try {
      return await describeShareGroup(group, values, context, err);
    } catch (notShare) {
      if (notShare !== err) throw notShare;
      return describeStreamsGroup(group, values, context, err);
    }
  }
}

type DescribeValues = ReturnType<typeof parseArgs<{ options: typeof GROUPS_DESCRIBE_OPTIONS; allowPositionals: true }>>['values'];

async function describeGroup(group: string, values: DescribeValues, context: CommandContext): Promise<number> {
  if (values.members || values.state) {
    const d = await withAdmin(connectionFrom(values), context.interrupted, (admin) => admin.describeGroup(group));
    if (d.state === 'Dead') throw new GroupNotFoundError(group);
    const verbose = values.verbose ?? false;
    if (values.json) {
      const consumer = d.type === 'consumer';
      process.stdout.write(`${toJson(values.members
        ? { group: d.group, state: d.state, members: d.members.map((m) => memberJson(m, consumer)) }
        : {
          group: d.group, coordinator: d.coordinator, assignmentStrategy: d.protocol, state: d.state,
          members: d.members.length, groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch,
        })}\n`);
      return 0;
    }
    const notice = stateNotice(d);
    if (notice !== null) process.stderr.write(`${notice}\n`);
    process.stdout.write(`\n${values.members ? membersView(d, verbose) : stateView(d, verbose)}\n`);
    return 0;
  }
  const result = await withAdmin(connectionFrom(values), context.interrupted, (admin) => admin.describeGroupOffsets(group));
  if (values.json) {
    process.stdout.write(`${toJson(describeJson(result))}\n`);
    return 0;
  }
  // As Kafka's tool: a blank line, then the table; no table when there is nothing to show.
  const table = result.rows.length > 0 ? `\n${describeTable(result)}\n` : '';
  // A consumer group's members, with their epochs and current and target assignments.
  const members = result.description.type === 'consumer' && result.description.members.length > 0 ? `\n${membersTable(result)}\n` : '';
  process.stdout.write(`${stateLine(result)}\n${table}${members}`);
  return 0;
}


/** `kafka-share-groups --describe`'s views of a share group; `notFound` when GROUP is not one either. */
async function describeShareGroup(group: string, values: DescribeValues, context: CommandContext, notFound: GroupNotFoundError): Promise<number> {
  const view = await withAdmin(connectionFrom(values), context.interrupted, async (admin) => {
    let d;
    try {
      d = await admin.describeShareGroup(group);
    } catch (err) {
      if (err instanceof GroupNotFoundError) throw notFound;
      throw err;
    }
    return values.members || values.state ? { description: d, offsets: [], logEndOffsets: new Map<string, bigint>() } : shareGroupView(admin, d);
  });
  const d = view.description;
  const verbose = values.verbose ?? false;
  if (values.json) {
    const json = values.members ? { group: d.group, state: d.state, members: shareMemberJson(d) }
      : values.state ? { group: d.group, coordinator: d.coordinator, assignmentStrategy: d.assignor, state: d.state, members: d.members.length, groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch }
        : shareDescribeJson(view);
    process.stdout.write(`${toJson(json)}\n`);
    return 0;
  }
  if (values.members || values.state) {
    // Kafka's tool says so on stderr for an Empty share group.
    if (d.state === 'Empty') process.stderr.write(`Share group '${d.group}' has no active members.\n`);
    process.stdout.write(`\n${values.members ? shareMembersTable(d, verbose) : shareStateTable(d, verbose)}\n`);
    return 0;
  }
  const table = view.offsets.length > 0 ? `\n${shareOffsetsTable(view)}\n` : '';
  const members = d.members.length > 0 ? `\n${shareMembersTable(d, verbose)}\n` : '';
  process.stdout.write(`${shareStateLine(view)}\n${table}${members}`);
  return 0;
}
