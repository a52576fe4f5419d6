/**
 * Assignor names (partition.assignment.strategy) resolved to implementations: the built-in
 * ones (range, roundrobin, sticky, cooperative-sticky from src/assignors) plus any a user
 * registers; an unknown name fails with a clear UnknownAssignorError.
 */
import type { PartitionAssignor, RebalanceProtocol } from '../../assignors/types.js';
import { assignorByName, builtInAssignors } from '../../assignors/index.js';
import { UnknownAssignorError } from './errors.js';

/** Kafka 4's default partition.assignment.strategy. */
export const DEFAULT_ASSIGNORS: readonly string[] = Object.freeze(['range', 'cooperative-sticky']);

const registry = new Map<string, () => PartitionAssignor>(
  builtInAssignors().map((a) => [a.name, () => assignorByName(a.name)] as const),
);

/**
 * Makes an assignor available by name (a custom one, or a replacement of a built-in one).
 * Each consumer gets its own instance: sticky assignors keep per-member state.
 */
export function registerAssignor(name: string, factory: () => PartitionAssignor): void {
  registry.set(name, factory);
}

export function registeredAssignors(): string[] {
  return [...registry.keys()];
}

/** Names (looked up in the registry) or instances, in preference order. */
export function resolveAssignors(assignors: readonly (string | PartitionAssignor)[]): PartitionAssignor[] {
  if (assignors.length === 0) throw new UnknownAssignorError('at least one partition assignor is required');
  const out = assignors.map((a) => {
    if (typeof a !== 'string') return a;
    const factory = registry.get(a);
    if (!factory) {
      const known = registeredAssignors();
      throw new UnknownAssignorError(`no partition assignor named '${a}' is registered (registered: ${known.length > 0 ? known.join(', ') : 'none'})`);
    }
    return factory();
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
