/**
 * A scripted consumer-protocol (KIP-848) group coordinator on FakeKafka: it answers
 * ConsumerGroupHeartbeat — typed, through the generated codecs like every fake answer — as
 * Kafka's GroupMetadataManager does in the cases the unit tests need:
 *
 * - epoch 0 joins (the member id is the one the member sent; 'm-1', 'm-2'... for an empty
 *   one, as a v0 coordinator would give) and is always answered with the member's assignment;
 * - epoch -1 / -2 leaves (the member is forgotten / kept for its instance id);
 * - an unknown member id gets UNKNOWN_MEMBER_ID, an epoch other than the member's
 *   FENCED_MEMBER_EPOCH;
 * - a new target (`assign`) goes out with the next heartbeat under the next member epoch;
 *   a heartbeat reporting what the member owns (TopicPartitions) is answered with the
 *   current assignment, as Kafka does.
 *
 * Without a scripted target a member gets `defaultTarget`, else every partition of the
 * topics it subscribes to (a one-member group). Assignments are topic name → partitions; the wire carries topic ids
 * (FakeKafka.topicId).
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { FakeKafka, Request, Response, SentRequest } from './fake-kafka.js';

export type Assignment = Readonly<Record<string, readonly number[]>>;

export interface FakeMember {
  readonly memberId: string;
  epoch: number;
  /** The assignment the coordinator wants the member to have (null: everything it subscribes to). */
  target: Assignment | null;
  /** The member epoch the target was last sent under (-1: not sent yet). */
  sentEpoch: number;
  /** What the member said it owns in its last heartbeat that said anything (topic names). */
  owned: Assignment | null;
  subscribedTopicNames: readonly string[];
  subscribedTopicRegex: string | null;
}

export class FakeConsumerGroup {
  /** group.consumer.heartbeat.interval.ms, sent in every answer. */
  heartbeatIntervalMs = 5_000;
  /** What a member without a scripted target is given (null: every partition of the topics it subscribes to). */
  defaultTarget: Assignment | null = null;
  readonly members = new Map<string, FakeMember>();
  /** Member ids of members that left, in order. */
  readonly left: string[] = [];
  private generatedIds = 0;
  private groupEpoch = 0;

  constructor(private readonly fake: FakeKafka) {
    fake.on('ConsumerGroupHeartbeat', (request, sent) => this.answer(request, sent));
  }

  /** The next heartbeat of `memberId` brings `target` (topic name → partitions) under a new member epoch. */
  assign(memberId: string, target: Assignment): void {
    const member = this.member(memberId);
    member.target = target;
    member.sentEpoch = -1;
  }

  member(memberId: string): FakeMember {
    const member = this.members.get(memberId);
    if (!member) throw new Error(`no member ${memberId} (members: ${[...this.members.keys()].join(', ')})`);
    return member;
  }

  /** The only member (fails when there is not exactly one). */
  get solo(): FakeMember {
    if (this.members.size !== 1) throw new Error(`${this.members.size} members, not one`);
    return [...this.members.values()][0]!;
  }

  /** The assignment on the wire: topic ids → partitions. */
  wire(assignment: Assignment): { topicId: string; partitions: number[] }[] {
    return Object.entries(assignment).map(([topic, partitions]) => ({ topicId: this.fake.topicId(topic), partitions: [...partitions] }));
  }

  /** Topic ids → names, for what a member reported. */
  names(topicPartitions: readonly { topicId: string; partitions: readonly number[] }[]): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const t of topicPartitions) out[this.fake.topicNameOf(t.topicId) ?? `?${t.topicId}`] = [...t.partitions].sort((a, b) => a - b);
    return out;
  }

  private error(errorCode: number, memberId: string | null = null): Response<'ConsumerGroupHeartbeat'> {
    return { throttleTimeMs: 0, errorCode, errorMessage: null, memberId, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
  }

  private answer(request: Request<'ConsumerGroupHeartbeat'>, sent: SentRequest<'ConsumerGroupHeartbeat'>): Response<'ConsumerGroupHeartbeat'> {
    if (request.memberEpoch < 0) {
      const member = this.members.get(request.memberId);
      if (!member) return this.error(ErrorCode.UNKNOWN_MEMBER_ID);
      this.members.delete(request.memberId);
      this.left.push(request.memberId);
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: request.memberId, memberEpoch: request.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
    }
    let member: FakeMember | undefined;
    if (request.memberEpoch === 0) {
      const memberId = request.memberId !== '' ? request.memberId : `m-${++this.generatedIds}`;
      const previous = this.members.get(memberId);
      member = {
        memberId, epoch: ++this.groupEpoch, target: previous?.target ?? null, sentEpoch: -1, owned: null,
        subscribedTopicNames: request.subscribedTopicNames ?? [], subscribedTopicRegex: sent.version >= 1 ? request.subscribedTopicRegex ?? null : null,
      };
      this.members.set(memberId, member);
    } else {
      member = this.members.get(request.memberId);
      if (!member) return this.error(ErrorCode.UNKNOWN_MEMBER_ID);
      if (request.memberEpoch !== member.epoch) return this.error(ErrorCode.FENCED_MEMBER_EPOCH);
      if (request.subscribedTopicNames !== null) member.subscribedTopicNames = request.subscribedTopicNames;
      if (request.subscribedTopicRegex != null) member.subscribedTopicRegex = request.subscribedTopicRegex === '' ? null : request.subscribedTopicRegex;
    }
    if (request.topicPartitions !== null) member.owned = this.names(request.topicPartitions);
    const fresh = member.sentEpoch < 0;
    if (fresh && request.memberEpoch !== 0) member.epoch = ++this.groupEpoch;
    const send = fresh || request.memberEpoch === 0 || request.topicPartitions !== null;
    if (fresh) member.sentEpoch = member.epoch;
    return {
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: member.memberId, memberEpoch: member.epoch,
      heartbeatIntervalMs: this.heartbeatIntervalMs, assignment: send ? { topicPartitions: this.wire(this.targetOf(member)) } : null,
    };
  }

  private targetOf(member: FakeMember): Assignment {
    if (member.target) return member.target;
    if (this.defaultTarget) return this.defaultTarget;
    const out: Record<string, number[]> = {};
    for (const topic of member.subscribedTopicNames) {
      const count = this.fake.topics.get(topic);
      if (count !== undefined) out[topic] = Array.from({ length: count }, (_, p) => p);
    }
    return out;
  }
}
