/**
 * A group's offsets and lag, as `kafka-consumer-groups --describe` computes them: the rows
 * are the assigned partitions ∪ the committed partitions; lag = log end - committed, unknown
 * ('-' in Kafka's table) when there is no committed offset or no log end offset.
 */
import { describeGroup } from './groups.js';
import { GroupNotFoundError } from './errors.js';
import { LATEST_TIMESTAMP, fetchCommittedOffsets, listOffsets } from './offsets.js';
import { compareTopicPartition, tpKey, type AdminContext } from './requests.js';
import type { GroupOffsetRow, GroupOffsets, TopicPartition } from './types.js';

/** Partitions that exist and have a leader now; ListOffsets can only ask those. */
async function withLeaders(ctx: AdminContext, partitions: readonly TopicPartition[]): Promise<TopicPartition[]> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  if (topics.length === 0) return [];
  await ctx.cluster.refreshMetadata(topics, ctx.signal);
  return partitions.filter((p) => (ctx.cluster.topic(p.topic)?.partitions[p.partition]?.leaderId ?? -1) >= 0);
}

export async function describeGroupOffsets(ctx: AdminContext, group: string): Promise<GroupOffsets> {
  const description = await describeGroup(ctx, group);
  if (description.state === 'Dead') throw new GroupNotFoundError(group);
  const committed = new Map((await fetchCommittedOffsets(ctx, group)).map((c) => [tpKey(c), c.offset]));

  // Kafka's order: members with the most partitions first (members without any are not
  // shown), then the committed partitions no member has.
  const assigned = new Set<string>();
  const rows: Omit<GroupOffsetRow, 'logEndOffset' | 'lag'>[] = [];
  const members = description.members.filter((m) => m.assignment.length > 0);
  const ordered = members.map((m, i) => ({ m, i })).sort((a, b) => b.m.assignment.length - a.m.assignment.length || a.i - b.i);
  for (const { m } of ordered) {
    for (const tp of [...m.assignment].sort(compareTopicPartition)) {
      assigned.add(tpKey(tp));
      rows.push({ ...tp, committed: committed.get(tpKey(tp)) ?? null, memberId: m.memberId, host: m.host, clientId: m.clientId });
    }
  }
  const unassigned = [...committed.keys()].filter((k) => !assigned.has(k)).map((k) => {
    const [topic, partition] = k.split('\u0000') as [string, string];
    return { topic, partition: Number(partition) };
  }).sort(compareTopicPartition);
  for (const tp of unassigned) rows.push({ ...tp, committed: committed.get(tpKey(tp)) ?? null, memberId: null, host: null, clientId: null });

  const ends = await listOffsets(ctx, await withLeaders(ctx, rows), LATEST_TIMESTAMP);
  let totalLag = 0n;
  const full: GroupOffsetRow[] = rows.map((r) => {
    const logEndOffset = ends.get(tpKey(r)) ?? null;
    const lag = r.committed !== null && logEndOffset !== null ? logEndOffset - r.committed : null;
    if (lag !== null) totalLag += lag;
    return { ...r, logEndOffset, lag };
  });
  return { description, rows: full, totalLag };
}
