/**
 * Consumer groups around their requests: the result of a regex refresh (Kafka's
 * handleRegularExpressionsResult), topic changes (onNewMetadataImage), and loading
 * (onLoaded).
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { topologyTopicNames } from '../streams/topology-topics.js';
import type { Operation } from '../operation.js';
import { scheduleRebalanceTimeout, scheduleSessionTimeout } from './fence.js';
import { MemberState } from './member.js';
import type { TopicImage } from './metadata.js';
import { epochRecord, regexRecord, subscriptionMetadataRecord } from './records.js';
import { resolveRegexes, sameResolution } from './regex.js';
import { computeSubscriptionMetadata, sameSubscriptionMetadata } from './subscription.js';
import { writeConsumerGroupRecords } from './write.js';
import type { ResolvedRegex, SubscriptionCount } from './group.js';

/** Kafka's METADATA_REFRESH_INTERVAL_MS: subscription metadata is computed again only when asked. */
export const METADATA_REFRESH_INTERVAL_MS = 2_147_483_647;

/**
 * The regexes of a group resolved again: each that still has subscribers gets its new
 * topics; when a regex's topics or the subscription metadata changed, the group epoch is
 * bumped (the members get a new target assignment at their next heartbeat).
 */
export function applyRegexRefresh(s: CoordinatorState, op: Operation, groupId: string, regexes: readonly string[], startMs: number, mayDescribeTopic?: (topic: string) => boolean): void {
  const group = s.consumerGroups.get(groupId);
  if (group === undefined) return;
  const counts = new Map<string, SubscriptionCount>(group.subscribedTopicNames);
  const add = (topic: string, delta: number): void => {
    const c = counts.get(topic) ?? { byName: 0, byRegex: 0 };
    const next = { byName: c.byName, byRegex: c.byRegex + delta };
    if (next.byName <= 0 && next.byRegex <= 0) counts.delete(topic);
    else counts.set(topic, next);
  };
  let bump = false;
  const updates: [string, ResolvedRegex][] = [];
  for (const [regex, resolved] of resolveRegexes(s, regexes, startMs, mayDescribeTopic)) {
    if (group.numSubscribedMembers(regex) === 0) continue;
    const old = group.resolvedRegularExpressions.get(regex);
    if (!sameResolution(old, resolved)) {
      bump = true;
      for (const t of old?.topics ?? []) add(t, -1);
      for (const t of resolved.topics) add(t, +1);
    }
    updates.push([regex, resolved]);
  }
  // Each resolution is written (Kafka writes every one a refresh returns), then the group's.
  const records: ConsumerGroupRecord[] = updates.map(([regex, resolved]) => regexRecord(groupId, regex, resolved));
  const metadata = computeSubscriptionMetadata(counts, s.metadata);
  if (!sameSubscriptionMetadata(metadata, group.subscriptionMetadata)) {
    bump = true;
    records.push(subscriptionMetadataRecord(groupId, metadata));
  }
  const epoch = group.groupEpoch + 1;
  if (bump) records.push(epochRecord(groupId, epoch));
  writeConsumerGroupRecords(s, op, records, 'the topics of its regular expressions or subscription metadata changed');
  if (bump) group.metadataRefreshDeadline = { deadlineMs: op.nowMs + METADATA_REFRESH_INTERVAL_MS, epoch };
}

/**
 * The broker's topics changed: groups subscribed to a topic created, deleted or resized
 * compute their subscription metadata again at their next heartbeat, and a created topic
 * makes regexes due for a refresh (Kafka's onNewMetadataImage).
 */
export function onMetadataChange(s: CoordinatorState, topics: readonly TopicImage[]): void {
  const delta = s.metadata.update(topics);
  if (delta.changed.size === 0) return;
  for (const group of s.consumerGroups.values()) {
    for (const name of delta.changed) {
      if (group.isSubscribedToTopic(name)) {
        group.requestMetadataRefresh();
        break;
      }
    }
  }
  // Share groups too (Kafka's onNewMetadataImage walks every modern group).
  for (const group of s.shareGroups.values()) {
    for (const name of delta.changed) {
      if (group.subscribedTopicNames.has(name)) {
        group.requestMetadataRefresh();
        break;
      }
    }
  }
  // Streams groups: any topic of the topology, internal ones included (they may just have been created).
  for (const group of s.streamsGroups.values()) {
    const topics = topologyTopicNames(group.topology);
    for (const name of delta.changed) {
      if (topics.has(name)) {
        group.requestMetadataRefresh();
        break;
      }
    }
  }
}

/**
 * After replay: every member must heartbeat within the session timeout, a member that owes
 * a revocation within its rebalance timeout (Kafka's onLoaded). Regex resolutions come from
 * their records (type 16); a log written before Brook persisted them has none, so a regex
 * without one is resolved from the current topics here, in memory only (with no heartbeat's
 * principal at hand, unfiltered by authorization), until the next refresh writes its record.
 */
export function loadedConsumerGroups(s: CoordinatorState, op: Operation): void {
  for (const group of s.consumerGroups.values()) {
    for (const member of group.members.values()) {
      scheduleSessionTimeout(s, op, group.groupId, member.memberId);
      if (member.state === MemberState.UNREVOKED_PARTITIONS) scheduleRebalanceTimeout(op, group.groupId, member);
    }
    const unresolved = [...group.subscribedRegularExpressions.keys()].filter((regex) => !group.resolvedRegularExpressions.has(regex));
    if (unresolved.length === 0) continue;
    for (const [regex, resolved] of resolveRegexes(s, unresolved, op.nowMs)) group.updateResolvedRegex(regex, resolved);
  }
}
