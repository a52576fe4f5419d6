// Preloaded (--import, with --expose-internals) into every test process by scripts/run-tests.mjs.
// It patches node:test's internal Test class (see "Why internals" below) for three things:
//
// 1. A default timeout for each test and hook that has none, so a hung test fails instead of
//    hanging CI. Why not `node --test --test-timeout=N`: on Node 20 that bounds each test *file*
//    as a whole (the runner's per-file test inherits it), not the tests inside it: a file of
//    three 1.5 s tests fails under --test-timeout=2000, and the tests in a file get no timeout.
//    The rule, applied where a test or hook is created:
//    - a test (test(), it(), t.test()) with no `timeout` option whose parent has none (the file,
//      or a describe without one) gets the default; otherwise node:test's own rules apply (its
//      option wins; without one it inherits its parent's timeout, e.g. a describe's);
//    - a hook (before, after, beforeEach, afterEach, t.after, ...) with no `timeout` option gets
//      the default (node:test lets hooks inherit nothing: they would have no bound at all);
//    - a describe is left alone: with a timeout it bounds the whole suite, as in node:test.
//
// 2. A file whose tests are all done but whose event loop stays alive (a socket, server, child
//    process or timer left open) fails: 2 s (GRACE_MS) after its root test finished, it lists
//    what is still open (each socket, server and child process with the tests between which it
//    was opened, each timer with its delay and the start of its callback's source, and the count
//    of every kind of resource), writes out its report, and exits with code 1, so
//    the parent runner counts the file as failed. scripts/run-tests.mjs lists these files again
//    after the run. A process with nothing left to do exits before then, as usual.
//    Why not `node --test --test-force-exit`: Node's own force exit calls process.exit() as soon
//    as the file's reporter stream closes, while the last results are still on their way through
//    the pipe to the parent runner. Those results are lost: on Node 20 a file of 61 tests was
//    counted as 41 to 58 in about one run in three, at exit code 0. Here node:test's own
//    end-of-process handler runs (the summary, the end of the report stream), and the process
//    exits once the report has been handed to stdout.
//
// 3. A timer that Node 23+ corrects and warns about (TimeoutNegativeWarning: a delay below 0,
//    e.g. a deadline minus the time of another clock; TimeoutNaNWarning; TimeoutOverflowWarning:
//    over 2^31-1 ms) fails the file when the setTimeout/setInterval call is the project's own
//    code (src/, test/, bench/): the diagnostic names the calling frame. A call from a dependency
//    (node_modules) is left to Node's own warning: it is not ours to fix (KafkaJS 2.2.4's request
//    queue schedules `-1 - Date.now()` ms after every response; Node 20 and 22 make that 1 ms
//    silently).
//
// Why internals: node:test records where a test was declared from its immediate caller, so a
// wrapper around test()/it() would make every test's reported location this file; patching
// Test.prototype keeps the caller's location. On a Node whose runner is shaped differently this
// file throws at load time (every test file then fails), never runs the tests without its checks.
//
// A file run without this preload (node --test FILE by hand) has node:test's defaults.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const GRACE_MS = 2_000;

// run-tests.mjs passes its default (or the caller's BROOK_TEST_TIMEOUT_MS) in the environment;
// the fallback, for `node --expose-internals --import ./scripts/test-preload.mjs FILE` by hand,
// is the same value.
const fromEnv = process.env['BROOK_TEST_TIMEOUT_MS'];
const timeoutMs = fromEnv === undefined || fromEnv === '' ? 300_000 : Number(fromEnv);
if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error(`BROOK_TEST_TIMEOUT_MS must be a positive integer, got ${JSON.stringify(fromEnv)}`);

/** Where run-tests.mjs collects what failed a file outside its tests (JSON lines); unset by hand. */
const problemsFile = process.env['BROOK_TEST_PROBLEMS_FILE'] || null;

const require = createRequire(import.meta.url);
let internals;
try {
  internals = require('internal/test_runner/test');
} catch (err) {
  throw new Error('scripts/test-preload.mjs needs node --expose-internals (scripts/run-tests.mjs passes it)', { cause: err });
}
const { Test } = internals;
if (typeof Test?.prototype?.createSubtest !== 'function' || typeof Test.prototype.createHook !== 'function' || typeof Test.prototype.run !== 'function') {
  throw new Error(`scripts/test-preload.mjs: node:test's internal Test class has changed in Node ${process.version}; update this file`);
}
if (typeof process._getActiveHandles !== 'function' || typeof process.getActiveResourcesInfo !== 'function') {
  throw new Error(`scripts/test-preload.mjs: process._getActiveHandles/getActiveResourcesInfo are missing in Node ${process.version}; update this file`);
}

/** The test file this process runs (node --test starts one process per file). */
const testFile = process.argv[1] ?? 'unknown file';

function recordProblem(kind, details) {
  if (problemsFile !== null) appendFileSync(problemsFile, `${JSON.stringify({ kind, file: testFile, details })}\n`);
}

// --- 1. default timeouts ----------------------------------------------------------------------

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

// --- 2. what is left open -------------------------------------------------------------------

/** Socket, server or child process → when it was first seen open. */
const firstSeen = new WeakMap();
/** The test that started last: a handle first seen at the start of the next was opened after it started. */
let lastStarted = null;

const stdio = new Set([process.stdin, process.stdout, process.stderr]);
/** The sockets, servers and child processes that keep the event loop alive. */
function openHandles() {
  return process._getActiveHandles().filter((h) => {
    if (stdio.has(h)) return false;
    const handle = typeof h.hasRef === 'function' ? h : h?._handle;
    return typeof handle?.hasRef !== 'function' || handle.hasRef();
  });
}

/**
 * Tags the handles not seen before with the window they were opened in: after the last test
 * started (in it, its hooks, or a hook after it), before `until`. Noted when each test starts,
 * not when it ends: node:test ends a test asynchronously, after the next one has started.
 */
function note(until) {
  const window = lastStarted === null ? `opened before ${until} (at the file's top level or in a before hook)` : `opened after "${lastStarted}" started, before ${until}`;
  for (const h of openHandles()) if (!firstSeen.has(h)) firstSeen.set(h, window);
}

const run = Test.prototype.run;
Test.prototype.run = async function runNotingHandles(...args) {
  if (typeof this.hookType === 'string') return run.apply(this, args);
  if (this.parent !== null) {
    note(`"${this.name}" started`);
    lastStarted = this.name;
    return run.apply(this, args);
  }
  const result = await run.apply(this, args);
  failWhenStuck(this);
  return result;
};

/**
 * The timers that keep the event loop alive, each with its delay and the start of its
 * callback's source: Node lists a timer only as "Timeout", which does not say whose it is.
 * (Node's internal timer lists, read once, when a file is stuck.)
 */
function openTimers() {
  let timers;
  try {
    timers = require('internal/timers');
  } catch {
    return [];
  }
  const found = [];
  for (const list of Object.values(timers.timerListMap ?? {})) {
    for (let t = list._idleNext; t !== undefined && t !== null && t !== list; t = t._idleNext) {
      if (t[timers.kRefed] !== true) continue;
      const source = String(t._onTimeout).replace(/\s+/g, ' ').slice(0, 240);
      found.push(`timer of ${t._idleTimeout} ms${t._repeat ? ' (repeating)' : ''}: ${source}`);
    }
  }
  return found;
}

function describeHandle(h) {
  const name = h?.constructor?.name ?? typeof h;
  try {
    if (name === 'Server' && typeof h.address === 'function') {
      const a = h.address();
      return `server listening on ${typeof a === 'string' ? a : `${a?.address}:${a?.port}`}`;
    }
    if (name === 'Socket') {
      if (h.remotePort !== undefined) return `TCP socket ${h.localAddress}:${h.localPort} -> ${h.remoteAddress}:${h.remotePort}`;
      return h.connecting ? 'socket still connecting' : 'socket (pipe)';
    }
    if (name === 'ChildProcess') return `child process ${h.pid}: ${(h.spawnargs ?? []).join(' ').slice(0, 200)}`;
  } catch {
    // describe what we can
  }
  return name;
}

let armed = false;
function failWhenStuck(root) {
  if (armed) return;
  armed = true;
  setTimeout(() => {
    note('the end of the file');
    const handles = [...openHandles().map((h) => `${describeHandle(h)} (${firstSeen.get(h)})`), ...openTimers()];
    const counts = new Map();
    for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
    const resources = [...counts].map(([type, n]) => (n === 1 ? type : `${type} x${n}`)).join(', ');
    recordProblem('open-handles', { resources, handles });
    process.stderr.write(
      `test-preload: the tests of this file are done but its event loop is still alive after ${GRACE_MS} ms: `
      + `the file fails. Still open: ${resources || 'nothing Node lists'}\n${handles.map((h) => `  - ${h}\n`).join('')}`,
    );
    // The report reaches stdout through a pipe; 'unpipe' says the last of it was written there.
    process.stdout.once('unpipe', () => process.stdout.write('', () => process.exit(1)));
    if (typeof root.harness?.teardown !== 'function') {
      throw new Error(`scripts/test-preload.mjs: node:test's harness has changed in Node ${process.version}; update this file`);
    }
    root.harness.teardown();
    // A report that was not piped (a reporter writing elsewhere) has nothing to wait for.
    setTimeout(() => process.exit(1), 5_000).unref();
  }, GRACE_MS).unref();
}

// --- 3. timers Node had to correct ----------------------------------------------------------

const TIMER_WARNINGS = new Set(['TimeoutNegativeWarning', 'TimeoutNaNWarning', 'TimeoutOverflowWarning']);

/** The first stack frame outside Node's own code: the caller of setTimeout/setInterval. */
function callerOf(stack) {
  for (const line of String(stack ?? '').split('\n').slice(1)) {
    const frame = line.trim();
    if (!frame.startsWith('at ') || /\(node:|^at node:/.test(frame)) continue;
    return frame.slice(3);
  }
  return null;
}

process.on('warning', (warning) => {
  if (!TIMER_WARNINGS.has(warning.name)) return;
  const caller = callerOf(warning.stack);
  if (caller !== null && /[\\/]node_modules[\\/]/.test(caller)) return;
  const message = `${warning.name}: ${warning.message} Timer scheduled at ${caller ?? 'an unknown place (no stack)'}`;
  recordProblem('bad-timer', { message });
  process.stderr.write(`test-preload: the file fails: ${message}\n`);
  process.exitCode = 1;
});
