import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeCoordinatorKey } from '../../src/protocol/coordinator-records/framing.js';
import { decodeConsumerGroupRecord } from '../../src/protocol/coordinator-records/consumer-group-framing.js';
import { CoordinatorHarness, topicIdFor } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named, ownedBy } from '../support/coordinator/consumer.js';

const REGEX_TIMER = 'consumer-regex:g';

/** Heartbeats A with what it holds until its epoch reaches the group's; returns its partitions. */
function settle(h: CoordinatorHarness, memberId = 'A'): Record<string, number[]> {
  for (let i = 0; i < 5; i++) cgBeat(h, memberId, assignments(h)[memberId]!.epoch, ownedBy(h, memberId));
  return assignments(h)[memberId]!.current;
}

describe('coordinator: regex subscriptions (SubscribedTopicRegex, v1)', { timeout: 10_000 }, () => {
  it('resolves a new regex after the heartbeat, as Kafka\'s executor, then bumps the group epoch', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 2, other: 1 });
    const first = cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    assert.equal(first.memberEpoch, 1);
    assert.deepEqual(named(h, first.assignment?.topicPartitions), {});
    assert.ok(h.timers.has(REGEX_TIMER), 'a refresh is due at once');
    h.advance(0);
    assert.equal(cgDescribe(h).groupEpoch, 2);
    const next = cgBeat(h, 'A', 1, {});
    assert.equal(next.memberEpoch, 2);
    assert.deepEqual(named(h, next.assignment?.topicPartitions), { 'r-a': [0, 1] });
    assert.equal(cgDescribe(h).members[0]!.subscribedTopicRegex, 'r-.*');
  });

  it('takes a topic created later at the first heartbeat 10 s after the last refresh', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    h.advance(0);
    settle(h);
    h.setTopics({ 'r-a': 1, 'r-b': 1 });
    h.advance(5000);
    assert.deepEqual(settle(h), { 'r-a': [0] }, 'within 10 s of the last refresh, no new one');
    h.advance(5001);
    settle(h);
    h.advance(0);
    assert.deepEqual(settle(h), { 'r-a': [0], 'r-b': [0] });
  });

  it('refreshes at most once at a time, and again after group.consumer.regex.refresh.interval.ms', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    h.advance(0);
    settle(h);
    h.advance(30_000);
    settle(h);
    h.advance(30_000);
    settle(h);
    assert.equal(h.timers.has(REGEX_TIMER), false, 'nothing new: no refresh');
    const due: number[] = [];
    for (let t = 60_000; t < 700_000; t += 30_000) {
      h.advance(30_000);
      settle(h);
      if (h.timers.has(REGEX_TIMER)) due.push(t + 30_000);
    }
    // Resolved at 0: due again at the first heartbeat more than 10 minutes later, then not again.
    assert.deepEqual(due, [630_000]);
  });

  it('matches whole topic names with RE2 rules: anchored, leading flags, no look-arounds or backreferences (testConsumerHeartbeatRegexValidation)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1, 'xr-a': 1, 'R-B': 1 });
    const resolve = (group: string, regex: string): Record<string, number[]> | number => {
      const r = cgJoin(h, { group, memberId: 'A', regex });
      if (r.errorCode !== ErrorCode.NONE) return r.errorCode;
      h.advance(0);
      cgBeat(h, 'A', 1, {}, group);
      return assignments(h, group)['A']!.current;
    };
    assert.deepEqual(resolve('g1', 'r-'), {}, 'a prefix does not match: matches() is a full match');
    assert.deepEqual(resolve('g2', 'r-a|R-B'), { 'R-B': [0], 'r-a': [0] });
    assert.deepEqual(resolve('g3', '(?i)r-.*'), { 'R-B': [0], 'r-a': [0] });
    assert.equal(resolve('g4', '(?=r)r-a'), ErrorCode.INVALID_REGULAR_EXPRESSION);
    assert.equal(resolve('g5', '(r)-\\1'), ErrorCode.INVALID_REGULAR_EXPRESSION);
    assert.equal(resolve('g6', '['), ErrorCode.INVALID_REGULAR_EXPRESSION);
    assert.deepEqual(resolve('g7', '(?P<x>r)-a'), { 'r-a': [0] }, "RE2's named group");
    assert.deepEqual(resolve('g8', ''), {}, 'an empty regex subscribes to nothing');
  });

  it('a member switching from a regex to names drops the regex and bumps the group epoch', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1, t: 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    h.advance(0);
    settle(h);
    const epoch = cgDescribe(h).groupEpoch;
    cgHeartbeat(h, { memberId: 'A', epoch: assignments(h)['A']!.epoch, regex: '', topics: ['t'], owned: { 'r-a': [0] } });
    assert.equal(cgDescribe(h).groupEpoch, epoch + 1);
    assert.deepEqual(settle(h), { t: [0] });
  });
});

/** The consumer-group records of the log, decoded, as `type:key` with their values. */
function consumerRecords(h: CoordinatorHarness, from = 0): { type: number; key: string; value: unknown }[] {
  return h.log.slice(from).flatMap((r) => {
    const k = decodeCoordinatorKey(r.key);
    if (k.kind !== 'consumer-group') return [];
    const record = decodeConsumerGroupRecord(k.type, k.keyReader, r.value);
    const key = 'regularExpression' in record.key ? record.key.regularExpression : 'memberId' in record.key ? record.key.memberId : record.key.groupId;
    return [{ type: record.type, key, value: record.value }];
  });
}

describe('coordinator: resolved regular expressions in __consumer_offsets (ConsumerGroupRegularExpression, type 16)', { timeout: 10_000 }, () => {
  it('a refresh writes each resolution (topics sorted, image version, time asked), before the group epoch it bumps, as Kafka 4.4', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-b': 1, 'r-a': 2, other: 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    const asked = h.nowMs;
    const before = h.log.length;
    h.advance(0);
    const written = consumerRecords(h, before);
    assert.deepEqual(written.map((r) => `${r.type}:${r.key}`), ['16:r-.*', '4:g', '3:g']);
    const value = written[0]!.value as { topics: string[]; version: bigint; timestamp: bigint };
    assert.deepEqual(value.topics, ['r-a', 'r-b']);
    assert.equal(value.timestamp, BigInt(asked));
    assert.ok(value.version > 0n);
    // A refresh that finds the same topics (due after the refresh interval) writes the
    // resolution again, as Kafka does, and nothing else.
    settle(h);
    const again = h.log.length;
    for (let t = 0; t < 11 * 60_000; t += 30_000) {
      h.advance(30_000);
      settle(h);
    }
    h.advance(0);
    assert.deepEqual(consumerRecords(h, again).map((r) => `${r.type}:${r.key}`), ['16:r-.*']);
  });

  it('a restart reads the resolutions from the log instead of resolving at load; a topic created meanwhile comes with the next refresh', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    h.advance(0);
    assert.deepEqual(settle(h), { 'r-a': [0] });
    h.setTopics({ 'r-a': 1, 'r-b': 1 });
    const restarted = h.restart();
    assert.deepEqual(consumerRecords(restarted, h.log.length), [], 'loading writes nothing');
    // Within 10 s of the last refresh the group keeps what its record says...
    assert.deepEqual(settle(restarted), { 'r-a': [0] });
    // ...then the image, newer than the resolution read from the log, makes the next one due.
    restarted.advance(10_001);
    settle(restarted);
    assert.ok(restarted.timers.has(REGEX_TIMER));
    restarted.advance(0);
    assert.deepEqual(settle(restarted), { 'r-a': [0], 'r-b': [0] });
  });

  it('a log without resolutions (written before Brook persisted them) has its regexes resolved at load, in memory until the next refresh', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1, 'r-b': 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    h.advance(0);
    assert.deepEqual(settle(h), { 'r-a': [0], 'r-b': [0] });
    const old = new CoordinatorHarness();
    old.log.push(...h.log.filter((r) => r.key.readInt16BE(0) !== 16));
    old.setTopics({ 'r-a': 1, 'r-b': 1 });
    const restarted = old.restart();
    assert.deepEqual(consumerRecords(restarted, old.log.length), [], 'loading writes nothing');
    assert.deepEqual(settle(restarted), { 'r-a': [0], 'r-b': [0] }, 'no rebalance: the regex has its topics at once');
  });

  it('the last member using a regex leaving tombstones its resolution after its own records, as Kafka; a restart has none left', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1, t: 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    cgJoin(h, { memberId: 'B', topics: ['t'] });
    h.advance(0);
    settle(h, 'A');
    const before = h.log.length;
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    assert.deepEqual(consumerRecords(h, before).map((r) => `${r.type}:${r.key}${r.value === null ? ' (tombstone)' : ''}`), [
      '8:A (tombstone)', '7:A (tombstone)', '5:A (tombstone)', '16:r-.* (tombstone)', '4:g', '3:g',
    ]);
    // B taking the regex up again needs a new resolution: none was left behind.
    const restarted = h.restart();
    cgHeartbeat(restarted, { memberId: 'B', epoch: assignments(restarted)['B']!.epoch, regex: 'r-.*', topics: [], owned: ownedBy(h, 'B') });
    assert.ok(restarted.timers.has(REGEX_TIMER), 'an unknown regex is resolved by a refresh');
  });

  it('a member switching to another regex tombstones the one it was the last to use, after its subscription', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1, 's-a': 1 });
    cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    h.advance(0);
    settle(h);
    h.advance(10_001); // past the minimum interval between refreshes
    const before = h.log.length;
    cgHeartbeat(h, { memberId: 'A', epoch: assignments(h)['A']!.epoch, regex: 's-.*', owned: ownedBy(h, 'A') });
    assert.deepEqual(consumerRecords(h, before).slice(0, 2).map((r) => `${r.type}:${r.key}${r.value === null ? ' (tombstone)' : ''}`), ['5:A', '16:r-.* (tombstone)']);
    h.advance(0);
    assert.deepEqual(settle(h), { 's-a': [0] });
    assert.deepEqual(settle(h.restart()), { 's-a': [0] });
  });
});

describe('coordinator: topics changing under consumer groups (onMetadataChange)', { timeout: 10_000 }, () => {
  it('a subscribed topic created later bumps the group epoch at the next heartbeat (testOnNewMetadataImage)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({});
    const a = cgJoin(h, { memberId: 'A', topics: ['late'] });
    assert.deepEqual(named(h, a.assignment?.topicPartitions), {});
    h.setTopics({ late: 3 });
    const r = cgBeat(h, 'A', 2, {});
    assert.equal(r.memberEpoch, 3);
    assert.deepEqual(named(h, r.assignment?.topicPartitions), { late: [0, 1, 2] });
  });

  it('partitions added to a subscribed topic are assigned; a topic nobody subscribes to changes nothing', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1, u: 1 });
    cgJoin(h, { memberId: 'A' });
    h.setTopics({ t: 1, u: 5 });
    assert.equal(cgBeat(h, 'A', 2, { t: [0] }).memberEpoch, 2);
    h.setTopics({ t: 3, u: 5 });
    const r = cgBeat(h, 'A', 2, { t: [0] });
    assert.equal(r.memberEpoch, 3);
    assert.deepEqual(named(h, r.assignment?.topicPartitions), { t: [0, 1, 2] });
  });

  it('a deleted topic leaves the target; the member must revoke its partitions', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1, u: 1 });
    cgJoin(h, { memberId: 'A', topics: ['t', 'u'] });
    h.setTopics({ t: 1 });
    const r = cgBeat(h, 'A', 2, { t: [0], u: [0] });
    assert.equal(r.memberEpoch, 2, 'revocation first, at the same epoch');
    assert.deepEqual(named(h, r.assignment?.topicPartitions), { t: [0] });
    assert.equal(cgBeat(h, 'A', 2, { t: [0] }).memberEpoch, 3);
  });

  it('writes the subscription metadata (topic id, name, partitions) when it changes', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    h.setTopics({ t: 3 });
    cgBeat(h, 'A', 2, { t: [0, 1] });
    const metadata = h.log
      .map((r) => ({ r, k: decodeCoordinatorKey(r.key) }))
      .filter(({ k }) => k.kind === 'consumer-group' && k.type === 4)
      .map(({ r, k }) => (k.kind === 'consumer-group' ? decodeConsumerGroupRecord(k.type, k.keyReader, r.value) : null));
    assert.deepEqual(metadata.map((m) => m?.value), [
      { topics: [{ topicId: topicIdFor('t'), topicName: 't', numPartitions: 2, partitionMetadata: [] }] },
      { topics: [{ topicId: topicIdFor('t'), topicName: 't', numPartitions: 3, partitionMetadata: [] }] },
    ]);
  });
});
