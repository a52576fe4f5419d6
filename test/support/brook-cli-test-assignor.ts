/**
 * TEST-ONLY entry point: `bin/brook` with the test range assignor registered as 'range', so
 * CLI group tests run before the real assignors (src/assignors) are merged and registered.
 */
import { registerAssignor } from '../../src/client/consumer/assignor-registry.js';
import { main } from '../../src/cli/main.js';
import { testRangeAssignor } from './range-assignor.js';

registerAssignor('range', () => testRangeAssignor());
main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`brook: ${(err as Error).message}\n`);
  process.exitCode = 1;
});
