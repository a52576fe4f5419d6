/**
 * `groups describe` of a streams group (KIP-1071): what `kafka-streams-groups --describe`
 * (Kafka 4.4's StreamsGroupCommand) shows, with its columns and widths, for the offsets
 * (GROUP TOPIC PARTITION OFFSET-LAG; with --verbose CURRENT-OFFSET LEADER-EPOCH
 * LOG-END-OFFSET between), the members (GROUP MEMBER PROCESS CLIENT-ID ASSIGNMENTS; with
 * --verbose the epochs, the member protocol and the target tasks) and the state (GROUP
 * COORDINATOR (ID) ASSIGNOR STATE #MEMBERS; with --verbose GROUP-EPOCH and
 * TARGET-ASSIGNMENT-EPOCH). Tasks in Kafka's notation: `ACTIVE: 0:[0,1]; 1:[0]; `.
 *
 * A streams group commits to `__consumer_offsets` as a consumer group does. As Kafka's tool,
 * the partitions shown are those of the members' active tasks (each task's subtopology's
 * source and repartition source topics at the task's partition), and the lag of a partition
 * without a committed offset counts from the log start; Brook also shows the partitions the
 * group committed that no member works on now (e.g. of an Empty group).
 */
import {
  GroupNotFoundError, type Admin, type StreamsGroupDescription, type StreamsMemberDescription, type StreamsTaskIds, type StreamsTasks,
  type TopicPartition,
} from '../client/admin/index.js';
import { ErrorCode, KafkaProtocolError } from '../protocol/errors.js';
import { MISSING, formatRow } from './format.js';

/** One partition of the offsets view. */
export interface StreamsOffsetRow extends TopicPartition {
  /** null: the group committed nothing for it. */
  readonly committed: bigint | null;
  readonly leaderEpoch: number | null;
  readonly logEndOffset: bigint | null;
  /** Log end minus committed offset, else minus log start (Kafka's tool); null when unknown. */
  readonly lag: bigint | null;
}

/** Whether the topology runs, and if not, the topics it waits for. */
export interface StreamsTopologyStatus {
  /** Source topics (user topics the application reads) that do not exist. */
  readonly missingSourceTopics: string[];
  /** Repartition and changelog topics that do not exist (yet). */
  readonly missingInternalTopics: string[];
}

export interface StreamsGroupView {
  readonly description: StreamsGroupDescription;
  readonly offsets: readonly StreamsOffsetRow[];
  readonly topology: StreamsTopologyStatus;
}

/** The streams group of that id; null when there is none (a group of another type, none at all, or a broker without streams groups). */
export async function streamsGroupOrNull(admin: Admin, group: string): Promise<StreamsGroupDescription | null> {
  try {
    return await admin.describeStreamsGroup(group);
  } catch (err) {
    if (err instanceof GroupNotFoundError) return null;
    if (err instanceof KafkaProtocolError && err.errorCode === ErrorCode.UNSUPPORTED_VERSION) return null;
    throw err;
  }
}

const key = (tp: TopicPartition): string => `${tp.topic}:${tp.partition}`;

/** Per partition of the members' active tasks (each subtopology's source and repartition source topics), the member working on it. */
function activeTaskOwners(d: StreamsGroupDescription): Map<string, { readonly tp: TopicPartition; readonly memberId: string }> {
  const topics = new Map((d.subtopologies ?? []).map((s) => [s.subtopologyId, [...s.sourceTopics, ...s.repartitionSourceTopics.map((t) => t.name)]]));
  const out = new Map<string, { tp: TopicPartition; memberId: string }>();
  for (const m of d.members) {
    for (const task of m.assignment.activeTasks) {
      for (const topic of topics.get(task.subtopologyId) ?? []) {
        for (const partition of task.partitions) out.set(key({ topic, partition }), { tp: { topic, partition }, memberId: m.memberId });
      }
    }
  }
  return out;
}

/** The partitions of the members' active tasks. */
export function activeTaskPartitions(d: StreamsGroupDescription): TopicPartition[] {
  return [...activeTaskOwners(d).values()].map((o) => o.tp);
}

/** `groups lag`'s rows of a streams group: the offsets view's, with the member whose active task reads the partition. */
export function streamsLagRows(view: StreamsGroupView): (StreamsOffsetRow & { readonly memberId: string | null })[] {
  const owners = activeTaskOwners(view.description);
  return view.offsets.map((o) => ({ ...o, memberId: owners.get(key(o))?.memberId ?? null }));
}

/** The topics the topology names that do not exist. */
export function topologyStatus(d: StreamsGroupDescription, existing: ReadonlySet<string>): StreamsTopologyStatus {
  const source = new Set<string>();
  const internal = new Set<string>();
  for (const s of d.subtopologies ?? []) {
    for (const t of s.sourceTopics) source.add(t);
    for (const t of [...s.repartitionSourceTopics, ...s.stateChangelogTopics]) internal.add(t.name);
  }
  const missing = (names: Set<string>): string[] => [...names].filter((t) => !existing.has(t)).sort();
  return { missingSourceTopics: missing(source), missingInternalTopics: missing(internal) };
}

const byTopicPartition = (a: TopicPartition, b: TopicPartition): number => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition);

/** The group, the offsets of its active tasks' and committed partitions, and its topology's status. */
export async function streamsGroupView(admin: Admin, description: StreamsGroupDescription): Promise<StreamsGroupView> {
  const [committed, topics] = await Promise.all([admin.committedOffsets(description.group), admin.listTopics()]);
  const partitions = new Map(activeTaskPartitions(description).map((tp) => [key(tp), tp]));
  for (const c of committed) partitions.set(key(c), { topic: c.topic, partition: c.partition });
  const list = [...partitions.values()].sort(byTopicPartition);
  const [ends, starts] = list.length === 0 ? [new Map<string, bigint>(), new Map<string, bigint>()]
    : await Promise.all([admin.logEndOffsets(list), admin.logStartOffsets(list)]);
  const commits = new Map(committed.map((c) => [key(c), c]));
  const offsets = list.map((tp): StreamsOffsetRow => {
    const c = commits.get(key(tp));
    const end = ends.get(key(tp)) ?? null;
    const from = c?.offset ?? starts.get(key(tp)) ?? null;
    return {
      topic: tp.topic, partition: tp.partition, committed: c?.offset ?? null, leaderEpoch: c !== undefined && c.leaderEpoch >= 0 ? c.leaderEpoch : null,
      logEndOffset: end, lag: end === null || from === null ? null : end - from,
    };
  });
  return { description, offsets, topology: topologyStatus(description, new Set(topics)) };
}

const text = (v: bigint | number | null): string => (v === null ? MISSING : v.toString());

/** Kafka's task notation for one kind of task: `ACTIVE: 0:[0,1]; 1:[0]; `, '' when there is none. */
export function taskString(kind: string, list: readonly StreamsTaskIds[]): string {
  return list.length === 0 ? '' : `${kind}: ${list.map((t) => `${t.subtopologyId}:[${t.partitions.join(',')}]; `).join('')}`;
}

/** A member's ASSIGNMENTS column: its active, standby and warm-up tasks (and with `target`, the target's). */
export function tasksString(current: StreamsTasks, target: StreamsTasks | null): string {
  const of = (t: StreamsTasks, prefix: string): string =>
    taskString(`${prefix}ACTIVE`, t.activeTasks) + taskString(`${prefix}STANDBY`, t.standbyTasks) + taskString(`${prefix}WARMUP`, t.warmupTasks);
  return of(current, '') + (target === null ? '' : of(target, 'TARGET-'));
}

function totalLag(view: StreamsGroupView): bigint {
  return view.offsets.reduce((sum, o) => sum + (o.lag ?? 0n), 0n);
}

/** The line above the tables. */
export function streamsStateLine(view: StreamsGroupView): string {
  const d = view.description;
  const members = `${d.members.length} member${d.members.length === 1 ? '' : 's'}`;
  return `Streams group '${d.group}' is ${d.state} (assignor ${d.assignor ?? MISSING}, group epoch ${d.groupEpoch}, assignment epoch ${d.assignmentEpoch}, `
    + `topology epoch ${d.topologyEpoch}, ${members}, total lag ${totalLag(view)}).`;
}

/**
 * Whether the topology can run: the group is not NotReady and every topic it names exists
 * (an Empty group is never NotReady, whatever its topics).
 */
export function topologyReady(view: StreamsGroupView): boolean {
  const { missingSourceTopics, missingInternalTopics } = view.topology;
  return view.description.state !== 'NotReady' && view.description.subtopologies !== null && missingSourceTopics.length === 0 && missingInternalTopics.length === 0;
}

/** The topology's status: ready, or what it waits for (a NotReady group). */
export function topologyLine(view: StreamsGroupView): string {
  const d = view.description;
  const { missingSourceTopics, missingInternalTopics } = view.topology;
  const count = d.subtopologies?.length ?? 0;
  const subtopologies = `${count} subtopolog${count === 1 ? 'y' : 'ies'}`;
  if (d.subtopologies === null) return 'Topology: none.';
  if (topologyReady(view)) return `Topology: ready (${subtopologies}).`;
  const waits = [
    ...(missingSourceTopics.length > 0 ? [`missing source topics ${missingSourceTopics.join(', ')}`] : []),
    ...(missingInternalTopics.length > 0 ? [`missing internal topics ${missingInternalTopics.join(', ')}`] : []),
  ];
  return `Topology: not ready (${subtopologies}${waits.length > 0 ? `; ${waits.join('; ')}` : ''}).`;
}

/** Kafka's printOffsets: the group and topic at least 15 wide, the partition 10, the verbose numbers 15. */
export function streamsOffsetsTable(view: StreamsGroupView, verbose: boolean): string {
  const group = view.description.group;
  const rows = view.offsets.map((o) => [group, o.topic, String(o.partition),
    ...(verbose ? [text(o.committed), text(o.leaderEpoch), text(o.logEndOffset)] : []), text(o.lag)]);
  const width = (col: number): number => Math.max(15, ...rows.map((r) => r[col]!.length));
  const widths = [width(0), width(1), 10, ...(verbose ? [15, 15, 15] : [])];
  const header = ['GROUP', 'TOPIC', 'PARTITION', ...(verbose ? ['CURRENT-OFFSET', 'LEADER-EPOCH', 'LOG-END-OFFSET'] : []), 'OFFSET-LAG'];
  return [header, ...rows].map((r) => formatRow(r, widths)).join('\n');
}

/**
 * Kafka's printMembers: GROUP MEMBER PROCESS CLIENT-ID ASSIGNMENTS; with --verbose GROUP
 * TARGET-ASSIGNMENT-EPOCH TOPOLOGY-EPOCH MEMBER MEMBER-PROTOCOL MEMBER-EPOCH PROCESS
 * CLIENT-ID ASSIGNMENTS (the target tasks too). Kafka prints TOPOLOGY-EPOCH 15 wide with no
 * blank after it: a width of 14 here.
 */
export function streamsMembersTable(d: StreamsGroupDescription, verbose: boolean): string {
  const widthOf = (min: number, values: readonly string[]): number => Math.max(min, ...values.map((v) => v.length));
  const group = widthOf(15, [d.group]);
  const member = widthOf(15, d.members.map((m) => m.memberId));
  const process = widthOf(15, d.members.map((m) => m.processId));
  const client = widthOf(15, d.members.map((m) => m.clientId));
  if (!verbose) {
    const rows = d.members.map((m) => [d.group, m.memberId, m.processId, m.clientId, tasksString(m.assignment, null)]);
    return [['GROUP', 'MEMBER', 'PROCESS', 'CLIENT-ID', 'ASSIGNMENTS'], ...rows].map((r) => formatRow(r, [group, member, process, client])).join('\n');
  }
  const rows = d.members.map((m: StreamsMemberDescription) => [d.group, String(d.assignmentEpoch), String(d.topologyEpoch), m.memberId, m.isClassic ? 'classic' : 'streams',
    String(m.memberEpoch), m.processId, m.clientId, tasksString(m.assignment, m.targetAssignment)]);
  const header = ['GROUP', 'TARGET-ASSIGNMENT-EPOCH', 'TOPOLOGY-EPOCH', 'MEMBER', 'MEMBER-PROTOCOL', 'MEMBER-EPOCH', 'PROCESS', 'CLIENT-ID', 'ASSIGNMENTS'];
  return [header, ...rows].map((r) => formatRow(r, [group, 25, 14, member, 15, 15, process, client])).join('\n');
}

/** Kafka's printStates: the coordinator as `host:port (id)`, at least 25 wide; the assignor at least 15; the state 25. */
export function streamsStateTable(d: StreamsGroupDescription, verbose: boolean): string {
  const coordinator = `${d.coordinator.host}:${d.coordinator.port} (${d.coordinator.nodeId})`;
  const assignor = d.assignor ?? '';
  const widths = [Math.max(15, d.group.length), Math.max(25, coordinator.length), Math.max(15, assignor.length), 25, ...(verbose ? [15, 25] : [])];
  const header = ['GROUP', 'COORDINATOR (ID)', 'ASSIGNOR', 'STATE', ...(verbose ? ['GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH'] : []), '#MEMBERS'];
  const row = [d.group, coordinator, assignor, d.state, ...(verbose ? [String(d.groupEpoch), String(d.assignmentEpoch)] : []), String(d.members.length)];
  return [header, row].map((r) => formatRow(r, widths)).join('\n');
}

const tasksJson = (t: StreamsTasks): unknown => ({
  activeTasks: t.activeTasks.map((x) => ({ subtopologyId: x.subtopologyId, partitions: x.partitions })),
  standbyTasks: t.standbyTasks.map((x) => ({ subtopologyId: x.subtopologyId, partitions: x.partitions })),
  warmupTasks: t.warmupTasks.map((x) => ({ subtopologyId: x.subtopologyId, partitions: x.partitions })),
});

/** The contract's member keys (assignment: the active tasks' source partitions), then the streams member's own. */
export function streamsMemberJson(d: StreamsGroupDescription): unknown[] {
  const sources = new Map((d.subtopologies ?? []).map((s) => [s.subtopologyId, [...s.sourceTopics, ...s.repartitionSourceTopics.map((t) => t.name)]]));
  return d.members.map((m) => ({
    memberId: m.memberId, groupInstanceId: m.instanceId, clientId: m.clientId, host: m.host,
    assignment: m.assignment.activeTasks.flatMap((t) => (sources.get(t.subtopologyId) ?? []).flatMap((topic) => t.partitions.map((partition) => ({ topic, partition }))))
      .sort(byTopicPartition),
    memberEpoch: m.memberEpoch, processId: m.processId, rackId: m.rackId, topologyEpoch: m.topologyEpoch, userEndpoint: m.userEndpoint, clientTags: m.clientTags,
    memberProtocol: m.isClassic ? 'classic' : 'streams', tasks: tasksJson(m.assignment), targetTasks: tasksJson(m.targetAssignment),
    taskOffsets: m.taskOffsets, taskEndOffsets: m.taskEndOffsets,
  }));
}

/** `--state --json` of a streams group. */
export function streamsStateJson(d: StreamsGroupDescription): unknown {
  return {
    group: d.group, coordinator: d.coordinator, assignmentStrategy: d.assignor, state: d.state, members: d.members.length,
    groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch, topologyEpoch: d.topologyEpoch,
  };
}

/**
 * `describe --json` of a streams group: the contract's keys ("protocol" the assignor,
 * "generation" the group epoch), each offset adding "leaderEpoch"; then "type":"streams",
 * "groupEpoch","assignmentEpoch","topologyEpoch","subtopologies" (null while not configured)
 * and "topology":{"ready","missingSourceTopics","missingInternalTopics"}.
 */
export function streamsDescribeJson(view: StreamsGroupView): unknown {
  const d = view.description;
  return {
    group: d.group,
    state: d.state,
    protocolType: 'streams',
    protocol: d.assignor,
    generation: d.groupEpoch,
    members: streamsMemberJson(d),
    offsets: view.offsets.map((o) => ({ topic: o.topic, partition: o.partition, committed: o.committed, logEndOffset: o.logEndOffset, lag: o.lag, leaderEpoch: o.leaderEpoch })),
    type: 'streams',
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    topologyEpoch: d.topologyEpoch,
    subtopologies: d.subtopologies,
    topology: { ready: topologyReady(view), ...view.topology },
  };
}
