import type { PartitionMetadata } from './assigners.js';

/** What the consumer asks of the admin client: topic names for RegExp subscriptions, describeGroup, commits outside run(), metadata for custom assigners. */
export interface GroupAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  listTopics(): Promise<string[]>;
  fetchTopicMetadata(options: { topics: string[] }): Promise<{ topics: { name: string; partitions: PartitionMetadata[] }[] }>;
  describeGroup(groupId: string): Promise<unknown>;
  commitOffsets(groupId: string, offsets: readonly { topic: string; partition: number; offset: bigint }[]): Promise<void>;
}
