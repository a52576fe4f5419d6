/**
 * The built-in assignors by protocol name. A factory, not shared instances: the sticky
 * assignors remember the consumer's last assignment, so each consumer needs its own.
 */
import { CooperativeStickyAssignor } from './cooperative-sticky.js';
import { AssignorError } from './errors.js';
import { RangeAssignor } from './range.js';
import { RoundRobinAssignor } from './roundrobin.js';
import { StickyAssignor } from './sticky.js';
import type { SynchronousPartitionAssignor } from './types.js';

const FACTORIES: Readonly<Record<string, () => SynchronousPartitionAssignor>> = {
  range: () => new RangeAssignor(),
  roundrobin: () => new RoundRobinAssignor(),
  sticky: () => new StickyAssignor(),
  'cooperative-sticky': () => new CooperativeStickyAssignor(),
};

/** Names of the built-in assignors, as they appear in JoinGroup. */
export const BUILT_IN_ASSIGNOR_NAMES: readonly string[] = Object.keys(FACTORIES);

/** Fresh instances of every built-in assignor. */
export function builtInAssignors(): SynchronousPartitionAssignor[] {
  return Object.values(FACTORIES).map((create) => create());
}

/** A fresh instance of the built-in assignor with this protocol name. */
export function assignorByName(name: string): SynchronousPartitionAssignor {
  const create = Object.hasOwn(FACTORIES, name) ? FACTORIES[name] : undefined;
  if (create === undefined) throw new AssignorError(`unknown partition assignor ${JSON.stringify(name)}; built in: ${BUILT_IN_ASSIGNOR_NAMES.join(', ')}`);
  return create();
}
