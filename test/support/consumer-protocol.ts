/**
 * A Brook consumer with groupProtocol 'consumer' against FakeKafka and its scripted KIP-848
 * coordinator (FakeConsumerGroup), on a manual clock, for test/unit/consumer-protocol-*.
 * `timeline` merges what the consumer sent with what its rebalance listener was told, in
 * the order it happened.
 */
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer, type ConsumerOptions, type ConsumerRecord } from '../../src/index.js';
import type { TopicPartition } from '../../src/assignors/types.js';
import { FakeKafka, type AnySentRequest, type SentRequest } from './fake-kafka.js';
import { FakeConsumerGroup } from './fake-consumer-group.js';

export const HEARTBEAT_INTERVAL_MS = 5_000;

export interface Member {
  readonly scheduler: ManualScheduler;
  readonly fake: FakeKafka;
  readonly group: FakeConsumerGroup;
  readonly consumer: Consumer;
  /** Listener calls, each with how many requests had been sent when it was made. */
  readonly listener: { readonly at: number; readonly text: string }[];
}

export function partitions(tps: readonly TopicPartition[]): string {
  return `[${tps.map((tp) => `${tp.topic}-${tp.partition}`).join(' ')}]`;
}

/**
 * A consumer (groupProtocol 'consumer', group g) subscribed to `subscription`; topics of
 * `topics` (name → partition count) hold `records` records each; auto-commit off unless
 * `options` turn it on. Nothing is sent before the first poll().
 */
export function member(options: Partial<ConsumerOptions> = {}, topics: Record<string, number> = { t: 4 }, subscription: string[] | RegExp = ['t'], records = 0): Member {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  for (const [topic, count] of Object.entries(topics)) {
    fake.topics.set(topic, count);
    for (let p = 0; p < count; p++) fake.logEnd.set(`${topic}:${p}`, records);
  }
  const group = new FakeConsumerGroup(fake);
  group.heartbeatIntervalMs = HEARTBEAT_INTERVAL_MS;
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', groupProtocol: 'consumer', autoOffsetReset: 'earliest', enableAutoCommit: false,
    retryBackoffMs: 100, fetchMaxWaitMs: 500, scheduler, connectionFactory: fake.connectionFactory, ...options,
  });
  const listener: { at: number; text: string }[] = [];
  const record = (what: string) => (tps: TopicPartition[]): void => { listener.push({ at: fake.sent.length, text: `${what} ${partitions(tps)}` }); };
  consumer.subscribe(subscription, { onPartitionsAssigned: record('assigned'), onPartitionsRevoked: record('revoked'), onPartitionsLost: record('lost') });
  return { scheduler, fake, group, consumer, listener };
}

/** poll() for `ms` of manual time; the records it returned. */
export async function pollFor(m: Member, ms: number): Promise<ConsumerRecord[]> {
  const p = m.consumer.poll({ timeoutMs: ms });
  p.catch(() => undefined); // a rejection is the caller's, after the clock moved
  await m.scheduler.advance(ms);
  return p;
}

/** Joined: the first assignment reconciled and acknowledged. */
export async function joined(options: Partial<ConsumerOptions> = {}, topics?: Record<string, number>, records = 0): Promise<Member> {
  const m = member(options, topics, ['t'], records);
  await pollFor(m, 10);
  assert.equal(m.consumer.groupMetadata().generationId, 1, 'joined at epoch 1');
  return m;
}

export function heartbeats(m: Member): SentRequest<'ConsumerGroupHeartbeat'>[] {
  return m.fake.requests('ConsumerGroupHeartbeat');
}

/** One request as the timeline shows it; null for requests the timeline leaves out. */
function describe(m: Member, r: AnySentRequest): string | null {
  switch (r.api) {
    case 'ConsumerGroupHeartbeat': {
      const b = r.body;
      const owned = b.topicPartitions === null ? '' : ` owns ${JSON.stringify(m.group.names(b.topicPartitions))}`;
      return `heartbeat epoch ${b.memberEpoch}${owned}`;
    }
    case 'OffsetCommit':
      // By name, or by topic id from v10.
      return `commit ${r.body.topics.flatMap((t) => t.partitions.map((p) => `${t.name || m.fake.topicNameOf(t.topicId)}-${p.partitionIndex}@${p.committedOffset}`)).join(' ')} epoch ${r.body.generationIdOrMemberEpoch}`;
    default:
      return null;
  }
}

/** Heartbeats, commits and listener calls, in order, from request index `from` on. */
export function timeline(m: Member, from = 0): string[] {
  const out: string[] = [];
  let next = from;
  const upTo = (n: number): void => {
    for (; next < n; next++) {
      const line = describe(m, m.fake.sent[next]!);
      if (line !== null) out.push(line);
    }
  };
  for (const e of m.listener) {
    if (e.at < from) continue;
    upTo(e.at);
    out.push(e.text);
  }
  upTo(m.fake.sent.length);
  return out;
}

export async function closeNow(m: Member): Promise<void> {
  const closing = m.consumer.close();
  await m.scheduler.advance(0);
  await closing;
}
