/** What share groups' record delivery counts, by group, for the metrics (../metrics/share-metrics.ts). */
export class ShareDeliveryCounters {
  readonly acquired = new Map<string, number>();
  /** By group, then acknowledge type name (ACCEPT, RELEASE, REJECT, GAP, RENEW): records. */
  readonly acknowledged = new Map<string, Map<string, number>>();
  readonly lockExpired = new Map<string, number>();
  /** Dead-letter queue writes (Kafka's DeadLetterQueueTotalProduceRequestsPerSec), failed ones, and the records written. */
  readonly dlqProduceRequests = new Map<string, number>();
  readonly dlqProduceFailed = new Map<string, number>();
  readonly dlqRecords = new Map<string, number>();

  add(map: Map<string, number>, groupId: string, n: number): void {
    map.set(groupId, (map.get(groupId) ?? 0) + n);
  }

  acknowledge(groupId: string, type: string, n: number): void {
    let byType = this.acknowledged.get(groupId);
    if (byType === undefined) this.acknowledged.set(groupId, (byType = new Map()));
    this.add(byType, type, n);
  }
}

