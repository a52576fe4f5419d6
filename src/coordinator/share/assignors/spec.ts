/** What a share group's server-side assignor sees: a consumer group's spec, plus which partitions it may hand out. */
import type { GroupSpec } from '../../consumer/assignors/spec.js';

export interface ShareGroupSpec extends GroupSpec {
  /**
   * Whether the partition may be assigned (Kafka's GroupSpec.isPartitionAssignable): a share
   * group hands out only partitions whose share state is initialized.
   */
  isPartitionAssignable(topicId: string, partition: number): boolean;
}
