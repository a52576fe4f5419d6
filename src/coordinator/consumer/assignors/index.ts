/** The server-side assignors of KIP-848 consumer groups, by the names clients select them with. */
import { assignHeterogeneous } from './uniform-heterogeneous.js';
import { assignHomogeneous } from './uniform-homogeneous.js';
import { rangeAssignor } from './range.js';
import type { GroupAssignment, GroupSpec, ServerAssignor, SubscribedTopicDescriber } from './spec.js';

export * from './spec.js';

/** Kafka's UniformAssignor: balanced and sticky; one builder per subscription type. */
export const uniformAssignor: ServerAssignor = {
  name: 'uniform',
  assign(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
    if (spec.members.size === 0) return new Map();
    return spec.subscriptionType === 'homogeneous' ? assignHomogeneous(spec, topics) : assignHeterogeneous(spec, topics);
  },
};

/** Kafka's built-in assignors, the names `group.consumer.assignors` accepts. */
export const BUILTIN_ASSIGNORS: ReadonlyMap<string, ServerAssignor> = new Map([uniformAssignor, rangeAssignor].map((a) => [a.name, a]));
