/**
 * `groups describe` of a share group (KIP-932): what `kafka-share-groups --describe` shows,
 * with its columns, for the offsets (GROUP TOPIC PARTITION LEADER-EPOCH START-OFFSET LAG),
 * the members (GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS, with --verbose MEMBER-EPOCH)
 * and the state (GROUP COORDINATOR (ID) STATE #MEMBERS, with --verbose GROUP-EPOCH and
 * ASSIGNMENT-EPOCH); '-' where a value is not known. A share group's "offset" is its
 * share-partition's start offset: the first record not yet delivered for good.
 */
import { GroupNotFoundError, type Admin, type ShareGroupDescription, type ShareGroupOffset, type TopicPartition } from '../client/admin/index.js';
import { MISSING, formatRow } from './format.js';
import { assignmentString } from './group-views.js';

export interface ShareGroupView {
  readonly description: ShareGroupDescription;
  readonly offsets: readonly ShareGroupOffset[];
  /** Log end offsets, keyed `topic:partition`. */
  readonly logEndOffsets: ReadonlyMap<string, bigint>;
}

/** The share group of that id; null when there is none (a group of another type, or none at all). */
export async function shareGroupOrNull(admin: Admin, group: string): Promise<ShareGroupDescription | null> {
  try {
    return await admin.describeShareGroup(group);
  } catch (err) {
    if (err instanceof GroupNotFoundError) return null;
    throw err;
  }
}

/** The group, its share-partitions' offsets and their logs' ends. */
export async function shareGroupView(admin: Admin, description: ShareGroupDescription): Promise<ShareGroupView> {
  const offsets = await admin.shareGroupOffsets(description.group);
  const logEndOffsets = offsets.length === 0 ? new Map<string, bigint>() : await admin.logEndOffsets(offsets);
  return { description, offsets, logEndOffsets };
}

const text = (v: bigint | number | null): string => (v === null ? MISSING : v.toString());
const partitionsJson = (list: readonly TopicPartition[]): unknown[] => list.map((tp) => ({ topic: tp.topic, partition: tp.partition }));

function totalLag(view: ShareGroupView): bigint {
  return view.offsets.reduce((sum, o) => sum + (o.lag ?? 0n), 0n);
}

/** The line above the tables. */
export function shareStateLine(view: ShareGroupView): string {
  const d = view.description;
  const members = `${d.members.length} member${d.members.length === 1 ? '' : 's'}`;
  return `Share group '${d.group}' is ${d.state} (assignor ${d.assignor || MISSING}, group epoch ${d.groupEpoch}, assignment epoch ${d.assignmentEpoch}, ${members}, total lag ${totalLag(view)}).`;
}

/** Kafka's share-group offsets table; group and topic at least 15 wide, the numbers 15. */
export function shareOffsetsTable(view: ShareGroupView): string {
  const group = view.description.group;
  const rows = view.offsets.map((o) => [group, o.topic, String(o.partition), text(o.leaderEpoch), text(o.startOffset), text(o.lag)]);
  const width = (col: number): number => Math.max(15, ...rows.map((r) => r[col]!.length));
  const widths = [width(0), width(1), 10, 15, 15];
  return [['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG'], ...rows].map((r) => formatRow(r, widths)).join('\n');
}

/** The members: GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS [MEMBER-EPOCH] ASSIGNMENT. */
export function shareMembersTable(d: ShareGroupDescription, verbose: boolean): string {
  const rows = d.members.map((m) => [d.group, m.memberId, m.host, m.clientId, String(m.assignment.length), ...(verbose ? [String(m.memberEpoch)] : []), assignmentString(m.assignment)]);
  const width = (col: number, min: number): number => Math.max(min, ...rows.map((r) => r[col]!.length));
  const widths = [width(0, 15), width(1, 15), width(2, 15), width(3, 15), 15, ...(verbose ? [15] : [])];
  const header = ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', ...(verbose ? ['MEMBER-EPOCH'] : []), 'ASSIGNMENT'];
  return [header, ...rows].map((r) => formatRow(r, widths)).join('\n');
}

/** The state: GROUP COORDINATOR (ID) STATE [GROUP-EPOCH ASSIGNMENT-EPOCH] #MEMBERS. */
export function shareStateTable(d: ShareGroupDescription, verbose: boolean): string {
  const coordinator = `${d.coordinator.host}:${d.coordinator.port}  (${d.coordinator.nodeId})`;
  const widths = [Math.max(15, d.group.length), Math.max(25, coordinator.length), 20, ...(verbose ? [15, 20] : [])];
  const header = ['GROUP', 'COORDINATOR (ID)', 'STATE', ...(verbose ? ['GROUP-EPOCH', 'ASSIGNMENT-EPOCH'] : []), '#MEMBERS'];
  const row = [d.group, coordinator, d.state, ...(verbose ? [String(d.groupEpoch), String(d.assignmentEpoch)] : []), String(d.members.length)];
  return [header, row].map((r) => formatRow(r, widths)).join('\n');
}

export function shareMemberJson(d: ShareGroupDescription): unknown[] {
  return d.members.map((m) => ({
    memberId: m.memberId, groupInstanceId: null, clientId: m.clientId, host: m.host, assignment: partitionsJson(m.assignment),
    memberEpoch: m.memberEpoch, subscribedTopics: m.subscribedTopics, rackId: m.rackId,
  }));
}

/**
 * `describe --json` of a share group: the contract's keys (`committed` is the start offset,
 * the share group's position), then "type":"share","groupEpoch","assignmentEpoch"; each
 * offset adds "startOffset","leaderEpoch", each member "memberEpoch","subscribedTopics","rackId".
 */
export function shareDescribeJson(view: ShareGroupView): unknown {
  const d = view.description;
  return {
    group: d.group,
    state: d.state,
    protocolType: 'share',
    protocol: d.assignor,
    generation: d.groupEpoch,
    members: shareMemberJson(d),
    offsets: view.offsets.map((o) => ({
      topic: o.topic, partition: o.partition, committed: o.startOffset, logEndOffset: view.logEndOffsets.get(`${o.topic}:${o.partition}`) ?? null, lag: o.lag,
      startOffset: o.startOffset, leaderEpoch: o.leaderEpoch,
    })),
    type: 'share',
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
  };
}
