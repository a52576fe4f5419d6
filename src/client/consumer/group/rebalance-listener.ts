/**
 * Calls the application's rebalance listener (Java's ConsumerRebalanceListenerInvoker), for
 * both group protocols: onPartitionsLost falls back to onPartitionsRevoked when the listener
 * has none, as Java's default method does. A listener's error is the caller's to handle
 * (both memberships report it from the next poll()).
 */
import type { TopicPartition } from '../../../assignors/types.js';
import type { RebalanceListener } from '../subscription-state.js';

export type ListenerMethod = 'onPartitionsRevoked' | 'onPartitionsAssigned' | 'onPartitionsLost';

export async function invokeListener(listener: RebalanceListener, which: ListenerMethod, partitions: TopicPartition[]): Promise<void> {
  if (which === 'onPartitionsLost' && !listener.onPartitionsLost) await listener.onPartitionsRevoked?.(partitions);
  else await listener[which]?.(partitions);
}
