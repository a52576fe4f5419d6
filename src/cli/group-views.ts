/**
 * `groups describe --members` and `--state`: the tables `kafka-consumer-groups --describe
 * --members [--verbose]` and `--state [--verbose]` print, with Kafka's columns, widths and
 * '-' for what a group does not have (epochs and target assignments of classic groups).
 */
import type { GroupDescription, MemberDescription, TopicPartition } from '../client/admin/index.js';
import { MISSING, formatRow } from './format.js';

/**
 * Kafka's assignment column (ConsumerGroupCommand.getAssignmentString): per topic
 * `topic:p,p,...`, topics sorted and joined by ';'; '-' when empty.
 */
export function assignmentString(list: readonly TopicPartition[]): string {
  const byTopic = new Map<string, number[]>();
  for (const tp of list) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
  // Kafka sorts the partitions as strings, and the per-topic strings.
  const parts = [...byTopic].map(([topic, ps]) => `${topic}:${ps.map(String).sort().join(',')}`).sort();
  return parts.length === 0 ? MISSING : parts.join(';');
}

/**
 * Kafka's printMembers: GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS, and
 * with --verbose CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT; members in
 * the order the coordinator described them. The instance id column appears when a member
 * has one.
 */
export function membersView(d: GroupDescription, verbose: boolean): string {
  const withInstanceIds = d.members.some((m) => m.groupInstanceId !== null);
  const row = (m: MemberDescription): string[] => [
    d.group, m.memberId, ...(withInstanceIds ? [m.groupInstanceId ?? ''] : []), m.host, m.clientId, String(m.assignment.length),
    ...(verbose ? [
      m.memberEpoch === null ? MISSING : String(m.memberEpoch), assignmentString(m.assignment),
      d.assignmentEpoch === null ? MISSING : String(d.assignmentEpoch), assignmentString(m.targetAssignment ?? []),
    ] : []),
  ];
  const rows = d.members.map(row);
  const header = [
    'GROUP', 'CONSUMER-ID', ...(withInstanceIds ? ['GROUP-INSTANCE-ID'] : []), 'HOST', 'CLIENT-ID', '#PARTITIONS',
    ...(verbose ? ['CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT'] : []),
  ];
  const width = (col: number, min: number): number => Math.max(min, ...rows.map((r) => r[col]!.length));
  const at = withInstanceIds ? 1 : 0;
  const widths = [
    width(0, 15), width(1, 15), ...(withInstanceIds ? [width(2, 17)] : []), width(2 + at, 15), width(3 + at, 15), 15,
    ...(verbose ? [15, width(6 + at, 20), 15] : []),
  ];
  return [header, ...rows].map((cells) => formatRow(cells, widths)).join('\n');
}

/**
 * Kafka's printStates: GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS, with
 * --verbose GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH before #MEMBERS.
 */
export function stateView(d: GroupDescription, verbose: boolean): string {
  const coordinator = `${d.coordinator.host}:${d.coordinator.port}  (${d.coordinator.nodeId})`;
  const widths = [Math.max(15, d.group.length), Math.max(25, coordinator.length), 20, 20, ...(verbose ? [15, 25] : [])];
  const header = ['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', ...(verbose ? ['GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH'] : []), '#MEMBERS'];
  const row = [
    d.group, coordinator, d.protocol === '' ? MISSING : d.protocol, d.state,
    ...(verbose ? [d.groupEpoch === null ? MISSING : String(d.groupEpoch), d.assignmentEpoch === null ? MISSING : String(d.assignmentEpoch)] : []),
    String(d.members.length),
  ];
  return [header, row].map((cells) => formatRow(cells, widths)).join('\n');
}

/** What Kafka's tool says on stderr before these tables: no members, or a rebalance in progress. */
export function stateNotice(d: GroupDescription): string | null {
  if (d.state === 'Empty') return `Consumer group '${d.group}' has no active members.`;
  if (['PreparingRebalance', 'CompletingRebalance', 'Assigning', 'Reconciling'].includes(d.state)) return `Warning: Consumer group '${d.group}' is rebalancing.`;
  return null;
}
