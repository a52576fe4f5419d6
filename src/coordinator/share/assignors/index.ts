/** The server-side assignors of share groups (KIP-932), by the names `group.share.assignors` takes. */
import type { GroupAssignment, SubscribedTopicDescriber } from '../../consumer/assignors/spec.js';
import { assignSimpleHeterogeneous } from './simple-heterogeneous.js';
import { assignSimpleHomogeneous } from './simple-homogeneous.js';
import type { ShareGroupSpec } from './spec.js';

export type { ShareGroupSpec } from './spec.js';

export interface ShareServerAssignor {
  readonly name: string;
  assign(spec: ShareGroupSpec, topics: SubscribedTopicDescriber): GroupAssignment;
}

/**
 * Kafka's SimpleAssignor: every partition to at least one member, shared among several only
 * when members outnumber partitions; balanced, then sticky.
 */
export const simpleAssignor: ShareServerAssignor = {
  name: 'simple',
  assign(spec: ShareGroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
    if (spec.members.size === 0) return new Map();
    return spec.subscriptionType === 'homogeneous' ? assignSimpleHomogeneous(spec, topics) : assignSimpleHeterogeneous(spec, topics);
  },
};

export const SHARE_ASSIGNORS: ReadonlyMap<string, ShareServerAssignor> = new Map([[simpleAssignor.name, simpleAssignor]]);
