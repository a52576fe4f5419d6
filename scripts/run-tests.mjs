#!/usr/bin/env node
// Runs the compiled test files of one suite with Node's own test runner, then prints how many
// tests were skipped and why, and which files failed outside their tests.
// Usage: node scripts/run-tests.mjs unit|interop [extra node --test flags]
//
// scripts/test-preload.mjs, preloaded into each test process (it says why not --test-timeout or
// --test-force-exit):
// - every test and hook without a `timeout` option of its own (or, for a test, inherited from
//   its describe) gets a default one: a hung test fails the run instead of hanging CI. The
//   default is BROOK_TEST_TIMEOUT_MS, else DEFAULT_TIMEOUT_MS below;
// - a file whose tests are done but whose event loop stays alive (a socket, server, child
//   process or timer left open) fails, once its report is out, naming what it left open;
// - a file whose own code scheduled a timer Node had to correct (a negative, NaN or too large
//   delay: Node 23+ warns) fails, naming the call.
// Both kinds are listed again after the run, and make it fail whatever Node's runner said.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

/**
 * 5 minutes: the longest timeout a test in test/ states for itself (admin-kafka-tools.test.ts:
 * Apache Kafka started, then its own CLI tools, each a JVM). Tests that state none start at most
 * one Kafka broker or JVM (consumer-kafka, records-conformance) and need less; a hang costs CI
 * at most this long per test.
 */
const DEFAULT_TIMEOUT_MS = 300_000;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const suite = process.argv[2] ?? 'unit';
const extra = process.argv.slice(3);
const dir = join(root, 'dist', 'test', suite);

function collect(path) {
  if (statSync(path).isDirectory()) return readdirSync(path).sort().flatMap((name) => collect(join(path, name)));
  return path.endsWith('.test.js') ? [path] : [];
}

const files = collect(dir);
if (files.length === 0) {
  console.error(`no test files under ${dir}`);
  process.exit(1);
}

const timeoutMs = process.env['BROOK_TEST_TIMEOUT_MS'] || String(DEFAULT_TIMEOUT_MS);

/**
 * Test files run four at a time (BROOK_TEST_CONCURRENCY, or --test-concurrency, overrides it).
 * Node's default is one fewer than the cores, so one at a time on the 2-core machines CI runs
 * on; most files spend their time waiting (a JVM starting, a session timeout, a child
 * process). Measured on 2 cores: two at a time, the unit suite took 277 s at 115% CPU and the
 * interop suite 883 s; four at a time, 189 s at 160% and 655 s at 165%. Every file takes its
 * own ports (port 0), data directories and group names, so files never meet; the few tests on
 * KafkaJS's fixed ports take a machine-wide lock (test/support/fixed-ports.ts).
 */
const DEFAULT_CONCURRENCY = 4;
const concurrency = extra.some((a) => a.startsWith('--test-concurrency'))
  ? []
  : [`--test-concurrency=${process.env['BROOK_TEST_CONCURRENCY'] || DEFAULT_CONCURRENCY}`];
const workDir = mkdtempSync(join(tmpdir(), 'brook-test-run-'));
const skipsFile = join(workDir, 'skips.jsonl');
const problemsFile = join(workDir, 'problems.jsonl');

// Two reporters: the usual one on stdout (Node's own choice: spec on a terminal, TAP otherwise,
// or whatever the caller passed) and the skip collector into a file, read once the run is over.
const reporters = extra.some((a) => a.startsWith('--test-reporter')) ? [] : [`--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`, '--test-reporter-destination=stdout'];
if (extra.some((a) => a.startsWith('--test-reporter=') || a === '--test-reporter') && !extra.some((a) => a.startsWith('--test-reporter-destination'))) {
  reporters.push('--test-reporter-destination=stdout');
}
reporters.push(`--test-reporter=${pathToFileURL(join(root, 'scripts', 'skip-reporter.mjs')).href}`, `--test-reporter-destination=${skipsFile}`);

console.log(`run-tests: ${suite}, ${files.length} files, Node ${process.version}, default per-test timeout ${timeoutMs} ms, ${concurrency[0] ?? 'caller-given concurrency'}`);
const result = spawnSync(process.execPath, [
  '--expose-internals', '--import', pathToFileURL(join(root, 'scripts', 'test-preload.mjs')).href,
  '--test', ...concurrency, ...extra, ...reporters, ...files,
], { stdio: 'inherit', env: { ...process.env, BROOK_TEST_TIMEOUT_MS: timeoutMs, BROOK_TEST_PROBLEMS_FILE: problemsFile } });

/** dist/test/unit/x.test.js → test/unit/x.test.ts (where the skip is written). */
function sourceOf(file) {
  if (!file) return 'unknown file';
  const path = relative(root, file.startsWith('file:') ? fileURLToPath(file) : file);
  return path.replace(/^dist\//, '').replace(/\.js$/, '.ts');
}

/** The JSON lines of `path`; none when nothing was written. */
function jsonLines(path) {
  try {
    return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

const skips = jsonLines(skipsFile);
const problems = jsonLines(problemsFile);
rmSync(workDir, { recursive: true, force: true });
console.log(`\nskipped: ${skips.length}`);
for (const s of skips) {
  const what = s.suite ? `suite "${s.name}" (its tests did not run)` : s.name;
  console.log(`- ${what} [${sourceOf(s.file)}]: ${s.reason ?? 'no reason given'}`);
}
const leaks = problems.filter((p) => p.kind === 'open-handles');
console.log(`files that left handles open after their tests (failed): ${leaks.length}`);
for (const p of leaks) {
  console.log(`- ${sourceOf(p.file)}: ${p.details.resources}`);
  for (const h of p.details.handles) console.log(`    ${h}`);
}
const timers = problems.filter((p) => p.kind === 'bad-timer');
console.log(`timers the project scheduled with a delay Node had to correct (failed): ${timers.length}`);
for (const p of timers) console.log(`- ${sourceOf(p.file)}: ${p.details.message.replace(/\n/g, ' ')}`);
process.exit(problems.length > 0 ? 1 : result.status ?? 1);
