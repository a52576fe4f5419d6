/**
 * The real RangeAssignor as a plain object, so unit tests can spread it and wrap `assign`
 * to see what the leader passes in (a class instance's methods do not survive a spread).
 */
import { RangeAssignor } from '../../src/assignors/index.js';
import type { PartitionAssignor } from '../../src/assignors/types.js';

export function testRangeAssignor(name = 'range'): PartitionAssignor {
  const real = new RangeAssignor();
  return {
    name,
    supportedProtocols: real.supportedProtocols,
    subscriptionUserData: () => real.subscriptionUserData(),
    onAssignment: () => real.onAssignment(),
    assign: (input) => real.assign(input),
  };
}
