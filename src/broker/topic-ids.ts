/**
 * Topic ids in requests that name topics by id (KIP-516, KIP-848: Produce v13, OffsetCommit
 * v10, OffsetFetch v10, TxnOffsetCommit v6), as Kafka's KafkaApis resolves them through its
 * metadata cache before anything else looks at the topic; and the response builders that
 * merge the broker's answers with the coordinator's, one entry per topic.
 */
import { ZERO_UUID } from '../protocol/messages/runtime.js';
import type { Storage } from '../storage/types.js';

/** Kafka's metadataCache.getTopicName: the topic's name, or '' when no topic has the id (the zero id included). */
export function topicNameById(storage: Storage, topicId: string | undefined): string {
  if (topicId === undefined || topicId === ZERO_UUID) return '';
  return storage.topicById(topicId)?.name ?? '';
}

/** Kafka's metadataCache.getTopicId: the topic's id, or the zero id when there is no such topic. */
export function topicIdByName(storage: Storage, name: string): string {
  return storage.topic(name)?.topicId ?? ZERO_UUID;
}

interface ResponseTopic<P> {
  name?: string;
  topicId?: string;
  partitions: P[];
}

/**
 * Topics in order of first appearance; partitions of a topic named again join its entry,
 * which is found by topic id when the version carries ids and by name otherwise (Kafka's
 * OffsetCommitResponse.Builder and TxnOffsetCommitResponse.Builder).
 */
export class TopicMerger<P> {
  readonly topics: ResponseTopic<P>[] = [];
  private readonly byKey = new Map<string, ResponseTopic<P>>();

  constructor(private readonly useTopicIds: boolean) {}

  add(topicId: string | undefined, name: string | undefined, partitions: readonly P[]): void {
    const key = this.useTopicIds ? (topicId ?? ZERO_UUID) : (name ?? '');
    let topic = this.byKey.get(key);
    if (topic === undefined) {
      topic = { name, topicId, partitions: [] };
      this.byKey.set(key, topic);
      this.topics.push(topic);
    }
    topic.partitions.push(...partitions);
  }
}
