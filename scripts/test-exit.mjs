// Preloaded (--import, with --expose-internals) into every test process by scripts/run-tests.mjs:
// ends a test process whose tests are all done but whose event loop stays alive (a test that
// timed out and left a socket or a timer behind), after its report has been written out.
//
// Why not `node --test --test-force-exit`: Node's own force exit calls process.exit() as soon
// as the test file's reporter stream closes, while the last results are still on their way
// through the pipe to the parent runner. Those results are lost: on Node 20 a file of 61 tests
// was counted as 41 to 58 in about one run in three, at exit code 0 (the tests ran; the parent
// never heard of them), so the suite's counts and skip list were lower bounds.
//
// What this does instead: when the file's root test has finished, an unref'd timer waits
// GRACE_MS. A process with nothing left to do exits before it fires, as usual. Otherwise the
// timer runs node:test's own end-of-process handler (the summary, the end of the report
// stream), waits until the report has been handed to stdout, then exits with the exit code
// node:test set (1 once a test failed).
import { createRequire } from 'node:module';

const GRACE_MS = 2_000;

const require = createRequire(import.meta.url);
let internals;
try {
  internals = require('internal/test_runner/test');
} catch (err) {
  throw new Error('scripts/test-exit.mjs needs node --expose-internals (scripts/run-tests.mjs passes it)', { cause: err });
}
const { Test } = internals;
if (typeof Test?.prototype?.run !== 'function') {
  throw new Error(`scripts/test-exit.mjs: node:test's internal Test class has changed in Node ${process.version}; update this file`);
}

const run = Test.prototype.run;
Test.prototype.run = async function runThenExitWhenStuck(...args) {
  const result = await run.apply(this, args);
  if (this.parent === null && typeof this.hookType !== 'string') exitAfterGrace(this);
  return result;
};

let armed = false;
function exitAfterGrace(root) {
  if (armed) return;
  armed = true;
  setTimeout(() => {
    process.stderr.write(`test-exit: the tests of this file are done but its event loop is still alive after ${GRACE_MS} ms (a handle left open); ending it\n`);
    // The report reaches stdout through a pipe; 'unpipe' says the last of it was written there.
    process.stdout.once('unpipe', () => process.stdout.write('', () => process.exit()));
    if (typeof root.harness?.teardown !== 'function') {
      throw new Error(`scripts/test-exit.mjs: node:test's harness has changed in Node ${process.version}; update this file`);
    }
    root.harness.teardown();
    // A report that was not piped (a reporter writing elsewhere) has nothing to wait for.
    setTimeout(() => process.exit(), 5_000).unref();
  }, GRACE_MS).unref();
}
