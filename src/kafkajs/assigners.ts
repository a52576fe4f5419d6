/**
 * KafkaJS's custom partition assigners (`partitionAssigners: [({ cluster, groupId, logger }) =>
 * ({ name, version, protocol({ topics }), assign({ members, topics }) })]`) as Brook assignors.
 * The member's JoinGroup metadata is the bytes the assigner's `protocol()` writes; as leader,
 * `assign()` gets every member's metadata as the broker gave it and the leader's own topics
 * (KafkaJS passes the topics its leader subscribed to), and its encoded assignments go to the
 * members unchanged. Both are Kafka's ConsumerProtocol formats when written with
 * `AssignerProtocol`, as KafkaJS's documentation asks, so KafkaJS and brook/kafkajs members
 * share a group whichever leads.
 *
 * `cluster` is what KafkaJS's documented assigners use of its cluster: the partitions of a
 * topic (`findTopicPartitionMetadata`), fresh before each `assign()` as KafkaJS refreshes its
 * metadata first.
 *
 * `PartitionAssigners.roundRobin` is KafkaJS's RoundRobinAssigner; given as it is, brook/kafkajs
 * runs Brook's own KafkaJsRoundRobinAssignor (src/assignors/kafkajs-round-robin.ts) for it, and
 * called as a factory (an application wrapping it) it is the same deal as a KafkaJS assigner.
 */
import type { AssignmentInput, MemberAssignment, PartitionAssignor, RebalanceProtocol, SubscriptionContext } from '../assignors/types.js';
import { assignKafkaJsRoundRobin, KAFKAJS_ROUND_ROBIN } from '../assignors/kafkajs-round-robin.js';
import type { PartitionAssigner } from './consumer-types.js';
import { MemberAssignment as KafkaJSMemberAssignment, MemberMetadata } from './assigner-protocol.js';
import { KafkaJSNonRetriableError } from './errors.js';

export interface PartitionMetadata {
  partitionErrorCode: number;
  partitionId: number;
  leader: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
}

export interface GroupMember {
  memberId: string;
  memberMetadata: Buffer;
}

export interface GroupMemberAssignment {
  memberId: string;
  memberAssignment: Buffer;
}

/** What a KafkaJS partition assigner factory returns. */
export interface Assigner {
  name: string;
  version: number;
  assign(group: { members: GroupMember[]; topics: string[] }): Promise<GroupMemberAssignment[]> | GroupMemberAssignment[];
  protocol(subscription: { topics: string[] }): { name: string; metadata: Buffer };
}

type TopicMetadata = { name: string; partitions: PartitionMetadata[] };

/** The part of KafkaJS's Cluster that assigners use. */
export class AssignerCluster {
  private topics: Map<string, PartitionMetadata[]> | null = null;
  private wanted: string[] = [];

  constructor(private readonly fetch: (topics: string[]) => Promise<{ topics: TopicMetadata[] }>) {}

  /** A topic's partitions as the last metadata refresh saw them ([] for a topic it did not see). */
  findTopicPartitionMetadata(topic: string): PartitionMetadata[] {
    if (!this.topics) throw new KafkaJSNonRetriableError('Topic metadata not loaded');
    return this.topics.get(topic) ?? [];
  }

  /** Metadata of the topics of the last refresh (every existing topic the group subscribes to). */
  async refreshMetadata(): Promise<void> {
    await this.load(this.wanted, null);
  }

  async refreshMetadataIfNecessary(): Promise<void> {
    if (!this.topics) await this.refreshMetadata();
  }

  /**
   * Loads these topics' metadata; when the lookup fails, what the consumer's own metadata gave
   * (`counts`: partition counts) stands in, with the replicas unknown.
   */
  async load(topics: string[], counts: ReadonlyMap<string, number> | null): Promise<void> {
    this.wanted = topics;
    const out = new Map<string, PartitionMetadata[]>();
    try {
      const { topics: found } = topics.length === 0 ? { topics: [] } : await this.fetch(topics);
      for (const t of found) out.set(t.name, [...t.partitions].sort((a, b) => a.partitionId - b.partitionId));
    } catch (err) {
      if (!counts) throw err;
      for (const [topic, n] of counts) {
        out.set(topic, Array.from({ length: n }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: -1, replicas: [], isr: [], offlineReplicas: [] })));
      }
    }
    this.topics = out;
  }
}

/** A KafkaJS assigner as a Brook PartitionAssignor (eager, as every KafkaJS assigner). */
export class KafkaJSAssignorAdapter implements PartitionAssignor {
  readonly name: string;
  readonly supportedProtocols: readonly RebalanceProtocol[] = ['eager'];
  /** The topics this member subscribed to when it last joined (KafkaJS's leader assigns those). */
  private topics: string[] = [];

  constructor(private readonly assigner: Assigner, private readonly cluster: AssignerCluster) {
    if (!assigner || typeof assigner.name !== 'string' || typeof assigner.assign !== 'function' || typeof assigner.protocol !== 'function') {
      throw new KafkaJSNonRetriableError('A partition assigner must return { name, version, assign({ members, topics }), protocol({ topics }) }');
    }
    this.name = assigner.name;
  }

  subscriptionMetadata(context: SubscriptionContext): Buffer {
    this.topics = [...context.topics];
    return this.assigner.protocol({ topics: this.topics }).metadata;
  }

  subscriptionUserData(): Buffer | null {
    return null;
  }

  async assign(input: AssignmentInput): Promise<Map<string, MemberAssignment>> {
    await this.cluster.load([...input.partitionsPerTopic.keys()], input.partitionsPerTopic);
    const members = input.members.map((m) => ({
      memberId: m.memberId,
      memberMetadata: m.metadata ?? MemberMetadata.encode({ version: 0, topics: [...m.topics], ...(m.userData ? { userData: m.userData } : {}) }),
    }));
    const plan = await this.assigner.assign({ members, topics: [...this.topics] });
    const out = new Map<string, MemberAssignment>();
    for (const { memberId, memberAssignment } of plan ?? []) {
      const decoded = KafkaJSMemberAssignment.decode(memberAssignment);
      const partitions = Object.entries(decoded?.assignment ?? {}).flatMap(([topic, ps]) => ps.map((partition) => ({ topic, partition })));
      out.set(memberId, { partitions, userData: decoded?.userData ?? null, encoded: memberAssignment });
    }
    return out;
  }

  onAssignment(): void {}
}

const roundRobin: PartitionAssigner = Object.assign(({ cluster }: { cluster: AssignerCluster }): Assigner => ({
  name: KAFKAJS_ROUND_ROBIN,
  version: 0,
  assign({ members }) {
    const subscriptions = members.map(({ memberId, memberMetadata }) => ({
      memberId, groupInstanceId: null, topics: MemberMetadata.decode(memberMetadata).topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null,
    }));
    const topics = new Set(subscriptions.flatMap((m) => m.topics));
    const partitionsPerTopic = new Map([...topics].map((t) => [t, cluster.findTopicPartitionMetadata(t).length]));
    return [...assignKafkaJsRoundRobin({ members: subscriptions, partitionsPerTopic })].map(([memberId, a]) => {
      const assignment: Record<string, number[]> = {};
      for (const tp of a.partitions) (assignment[tp.topic] ??= []).push(tp.partition);
      return { memberId, memberAssignment: KafkaJSMemberAssignment.encode({ version: 0, assignment }) };
    });
  },
  protocol({ topics }) {
    return { name: KAFKAJS_ROUND_ROBIN, metadata: MemberMetadata.encode({ version: 0, topics }) };
  },
}), { brookAssignor: KAFKAJS_ROUND_ROBIN });

/**
 * Brook's own client-side assignors, beyond KafkaJS: Java's and librdkafka's protocol names
 * (`range`, `sticky`, `cooperative-sticky`), so brook/kafkajs members share groups with Java,
 * librdkafka and Brook consumers using them; `cooperativeSticky` makes rebalances incremental
 * (only moved partitions are revoked). Brook runs them inside the consumer; they are not
 * KafkaJS assigner objects, so calling one as a factory is refused.
 */
function brookAssignor(name: string): PartitionAssigner {
  return Object.assign(() => {
    throw new KafkaJSNonRetriableError(`PartitionAssigners' ${name} assigner runs only inside brook/kafkajs consumers (give it in partitionAssigners)`);
  }, { brookAssignor: name });
}

export const PartitionAssigners = Object.freeze({
  roundRobin,
  range: brookAssignor('range'),
  sticky: brookAssignor('sticky'),
  cooperativeSticky: brookAssignor('cooperative-sticky'),
});
