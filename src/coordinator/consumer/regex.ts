/**
 * Regular-expression subscriptions (ConsumerGroupHeartbeat v1's SubscribedTopicRegex).
 *
 * Kafka compiles them with RE2/J and matches whole topic names; Brook's approximation of
 * RE2 and where it differs is src/util/re2-pattern.ts.
 *
 * Resolution works as Kafka's: the coordinator does not resolve in the heartbeat but asks
 * for a refresh (Kafka's executor; here the `consumer-regex` timer, due at once), at most one
 * pending per group and at most one every 10 s, when a new regex arrives, topics were
 * created since the last one, or the last one is older than
 * group.consumer.regex.refresh.interval.ms. Its result bumps the group epoch when the
 * matching topics changed. Each resolution is persisted, as Kafka persists it
 * (ConsumerGroupRegularExpression records, type 16): a refresh writes one record per regex,
 * and a regex nobody subscribes to any more is tombstoned with the records that end its last
 * subscription.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { compileRe2Pattern } from '../../util/re2-pattern.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { consumerRegexKey, type Operation } from '../operation.js';
import { ConsumerGroupError } from './errors.js';
import type { ConsumerGroup, ResolvedRegex } from './group.js';
import { javaSetOrder } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import { hasRegex, sameTopicNames, type ConsumerGroupMember } from './member.js';
import { regexTombstone } from './records.js';

/** Kafka's REGEX_BATCH_REFRESH_MIN_INTERVAL_MS. */
export const REGEX_REFRESH_MIN_INTERVAL_MS = 10_000;

/** The regex as a RegExp matching whole names; throws INVALID_REGULAR_EXPRESSION. */
export function compileTopicRegex(regex: string): RegExp {
  try {
    return compileRe2Pattern(regex);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ConsumerGroupError(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${why}.`);
  }
}

/**
 * What a heartbeat did to the member's regex (Kafka's UpdateRegularExpressionStatus):
 * `resolved` when the group already knows the topics of the member's new regex, or the
 * member dropped its regex; either bumps the group epoch. A new regex the group has not
 * resolved yet waits for its refresh instead.
 */
export type RegexUpdate = 'none' | 'updated' | 'resolved';

/**
 * Kafka's maybeUpdateRegularExpressions, in a heartbeat: validates a regex the group does
 * not have yet, asks for a refresh when due, and says what changed. A regex the member was
 * the last to use is tombstoned: `records` (the heartbeat's) gets its tombstone.
 */
export function maybeUpdateRegularExpressions(
  s: CoordinatorState,
  op: Operation,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  updated: ConsumerGroupMember,
  records: ConsumerGroupRecord[],
  mayDescribeTopic?: (topic: string) => boolean,
): RegexUpdate {
  const oldRegex = member.subscribedTopicRegex;
  const newRegex = updated.subscribedTopicRegex;
  let status: RegexUpdate = 'none';
  let requireRefresh = false;
  if (oldRegex !== newRegex) {
    status = 'updated';
    if (hasRegex(oldRegex) && group.numSubscribedMembers(oldRegex) === 1) records.push(regexTombstone(group.groupId, oldRegex));
    if (hasRegex(newRegex)) {
      if (group.numSubscribedMembers(newRegex) === 0) {
        compileTopicRegex(newRegex);
        requireRefresh = true;
      } else if (group.resolvedRegularExpressions.has(newRegex)) {
        status = 'resolved';
      }
    } else if (hasRegex(oldRegex)) {
      status = 'resolved';
    }
  }
  if (!requireRefresh && group.subscribedRegularExpressions.size === 0) return status;
  const key = consumerRegexKey(group.groupId);
  if (s.timers.has(key)) return status;
  const last = group.lastRegexRefreshTimeMs();
  if (op.nowMs <= last + REGEX_REFRESH_MIN_INTERVAL_MS) return status;

  const regexes = new Map(group.subscribedRegularExpressions);
  if (hasRegex(oldRegex)) {
    const n = (regexes.get(oldRegex) ?? 0) - 1;
    if (n <= 0) regexes.delete(oldRegex);
    else regexes.set(oldRegex, n);
  }
  if (hasRegex(newRegex)) regexes.set(newRegex, (regexes.get(newRegex) ?? 0) + 1);
  requireRefresh ||= regexes.size !== group.resolvedRegularExpressions.size;
  requireRefresh ||= group.lastRegexVersion() < s.metadata.lastVersionWithNewTopics;
  requireRefresh ||= op.nowMs > last + s.config.consumerGroupRegexRefreshIntervalMs;
  if (requireRefresh && regexes.size > 0) {
    op.schedule(key, 0, { kind: 'consumer-regex', groupId: group.groupId, regexes: [...regexes.keys()], startMs: op.nowMs, mayDescribeTopic });
  }
  return status;
}

/**
 * The topics each regex matches now, as Kafka's refreshRegularExpressions computes them:
 * with an authorizer, only those the principal of the heartbeat that asked may DESCRIBE.
 */
export function resolveRegexes(s: CoordinatorState, regexes: Iterable<string>, startMs: number, mayDescribeTopic?: (topic: string) => boolean): Map<string, ResolvedRegex> {
  const compiled: [string, RegExp | null][] = [];
  for (const regex of regexes) {
    let re: RegExp | null = null;
    try {
      re = compileTopicRegex(regex);
    } catch {
      // Validated when a member brought it; an unreadable one matches nothing, as in Kafka.
    }
    compiled.push([regex, re]);
  }
  const matches = new Map<string, string[]>(compiled.map(([regex]) => [regex, []]));
  for (const topic of s.metadata.topics()) {
    let describable: boolean | undefined;
    for (const [regex, re] of compiled) {
      if (!re?.test(topic.name)) continue;
      describable ??= mayDescribeTopic === undefined || mayDescribeTopic(topic.name);
      if (describable) matches.get(regex)!.push(topic.name);
    }
  }
  // Kafka writes the matches sorted and reads them back into a HashSet.
  return new Map([...matches].map(([regex, topics]) => [regex, { topics: javaSetOrder(stringHash, topics.sort()), version: s.metadata.version, timestampMs: startMs }]));
}

/** Whether two resolutions match the same topics. */
export function sameResolution(a: ResolvedRegex | undefined, b: ResolvedRegex): boolean {
  return sameTopicNames(a?.topics ?? [], b.topics);
}
