/** What the consumer asks of the admin client: topic names for RegExp subscriptions, describeGroup, commits outside run(). */
export interface GroupAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  listTopics(): Promise<string[]>;
  describeGroup(groupId: string): Promise<unknown>;
  commitOffsets(groupId: string, offsets: readonly { topic: string; partition: number; offset: bigint }[]): Promise<void>;
}
