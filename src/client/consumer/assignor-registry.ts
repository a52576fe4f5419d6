/**
 * Assignor names (partition.assignment.strategy) resolved to implementations: the built-in
 * ones (range, roundrobin, sticky, cooperative-sticky from src/assignors) by name; a custom
 * assignor is given to the consumer that uses it as an instance (`assignors: [new Mine()]`),
 * as Java takes a class. There is no process-wide registry: consumers in one program (tests,
 * several applications) never see each other's assignors. An unknown name fails with a clear
 * UnknownAssignorError.
 */
import type { PartitionAssignor, RebalanceProtocol } from '../../assignors/types.js';
import { assignorByName, BUILT_IN_ASSIGNOR_NAMES } from '../../assignors/index.js';
import { UnknownAssignorError } from './errors.js';

/** Kafka 4's default partition.assignment.strategy. */
export const DEFAULT_ASSIGNORS: readonly string[] = Object.freeze(['range', 'cooperative-sticky']);

/**
 * Built-in names or instances, in preference order; each name gets a fresh instance (sticky
 * assignors keep per-member state).
 */
export function resolveAssignors(assignors: readonly (string | PartitionAssignor)[]): PartitionAssignor[] {
  if (assignors.length === 0) throw new UnknownAssignorError('at least one partition assignor is required');
  const out = assignors.map((a) => {
    if (typeof a !== 'string') return a;
    if (!BUILT_IN_ASSIGNOR_NAMES.includes(a)) {
      throw new UnknownAssignorError(`no partition assignor named '${a}' is built in (built in: ${BUILT_IN_ASSIGNOR_NAMES.join(', ')}); a custom assignor is given to its consumer as an instance`);
    }
    return assignorByName(a);
  });
  const names = new Set<string>();
  for (const a of out) {
    if (names.has(a.name)) throw new UnknownAssignorError(`partition assignor '${a.name}' is configured twice`);
    names.add(a.name);
  }
  return out;
}

/**
 * The rebalance protocol, as Java's ConsumerCoordinator chooses it: the highest protocol
 * every configured assignor supports, so cooperative only when all of them support it.
 */
export function commonRebalanceProtocol(assignors: readonly PartitionAssignor[]): RebalanceProtocol {
  return assignors.every((a) => a.supportedProtocols.includes('cooperative')) ? 'cooperative' : 'eager';
}
