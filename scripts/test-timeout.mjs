// Preloaded (--import, with --expose-internals) into every test process by scripts/run-tests.mjs:
// a default timeout for each test and hook that has none, so a hung test fails instead of
// hanging CI.
//
// Why not `node --test --test-timeout=N`: on Node 20 that bounds each test *file* as a whole
// (the runner's per-file test inherits it), not the tests inside it: a file of three 1.5 s
// tests fails under --test-timeout=2000, and the tests in a file get no timeout at all.
//
// Why node:test's internal Test class and not a wrapper around test()/it(): node:test records
// where a test was declared from its immediate caller, so a wrapper would make every test's
// reported location this file. Patching Test.prototype keeps the caller's location.
//
// The rule, applied where a test or hook is created:
// - a test (test(), it(), t.test()) with no `timeout` option whose parent has none (the file,
//   or a describe without one) gets the default; otherwise node:test's own rules apply (its
//   option wins; without one it inherits its parent's timeout, e.g. a describe's);
// - a hook (before, after, beforeEach, afterEach, t.after, ...) with no `timeout` option gets
//   the default (node:test lets hooks inherit nothing: they would have no bound at all);
// - a describe is left alone: with a timeout it bounds the whole suite, as in node:test.
// A file run without this preload (node --test FILE by hand) has node:test's defaults (none).
import { createRequire } from 'node:module';

// run-tests.mjs passes its default (or the caller's BROOK_TEST_TIMEOUT_MS) in the environment;
// the fallback, for `node --expose-internals --import ./scripts/test-timeout.mjs FILE` by hand,
// is the same value.
const fromEnv = process.env['BROOK_TEST_TIMEOUT_MS'];
const timeoutMs = fromEnv === undefined || fromEnv === '' ? 300_000 : Number(fromEnv);
if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error(`BROOK_TEST_TIMEOUT_MS must be a positive integer, got ${JSON.stringify(fromEnv)}`);

const require = createRequire(import.meta.url);
let internals;
try {
  internals = require('internal/test_runner/test');
} catch (err) {
  throw new Error('scripts/test-timeout.mjs needs node --expose-internals (scripts/run-tests.mjs passes it)', { cause: err });
}
const { Test } = internals;
// Fail loudly, not silently without timeouts, on a Node whose test runner is shaped differently.
if (typeof Test?.prototype?.createSubtest !== 'function' || typeof Test.prototype.createHook !== 'function') {
  throw new Error(`scripts/test-timeout.mjs: node:test's internal Test class has changed in Node ${process.version}; update this file`);
}

const isObject = (v) => v !== null && typeof v === 'object';
const hasTimeout = (options) => isObject(options) && options.timeout != null;
/** node:test's "no timeout" (null on Node 20; Infinity is also treated as none). */
const unbounded = (test) => test.timeout == null || test.timeout === Infinity;

const createSubtest = Test.prototype.createSubtest;
Test.prototype.createSubtest = function createSubtestWithDefaultTimeout(Factory, name, options, fn, overrides) {
  // Only tests: describe() passes Suite and the `node --test` process FileTest, both left alone.
  if (Factory === Test && unbounded(this)) {
    // node:test's own argument forms: (fn), (name, fn), (options, fn), (name, options, fn).
    if (typeof name === 'function') [name, options, fn] = [undefined, undefined, name];
    else if (isObject(name)) [name, options, fn] = [undefined, name, options];
    else if (typeof options === 'function') [options, fn] = [undefined, options];
    if (!hasTimeout(options)) options = { ...options, timeout: timeoutMs };
  }
  return createSubtest.call(this, Factory, name, options, fn, overrides);
};

const createHook = Test.prototype.createHook;
Test.prototype.createHook = function createHookWithDefaultTimeout(name, fn, options) {
  return createHook.call(this, name, fn, hasTimeout(options) ? options : { ...options, timeout: timeoutMs });
};
