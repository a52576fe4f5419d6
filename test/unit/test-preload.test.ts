/**
 * scripts/test-preload.mjs, which every test process of `npm test` and `npm run test:interop`
 * loads (scripts/run-tests.mjs), on the Node running this suite: small test files in a temp
 * directory run under `node --test` with it, as run-tests.mjs runs them.
 *
 * - A test without a timeout of its own gets the default one (BROOK_TEST_TIMEOUT_MS).
 * - A file whose tests pass but leave a server or a child process open fails (exit code 1),
 *   naming each handle and the tests between which it was opened, in its output and in
 *   BROOK_TEST_PROBLEMS_FILE; a file that closes everything passes.
 * - On Node 23 and newer (which warn TimeoutNegativeWarning), a file whose own code schedules
 *   a timer with a negative delay fails, naming the call; the same call from a package under
 *   node_modules (KafkaJS 2.2.4 makes one after every response) does not fail it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot, tempDir } from '../support/brook.js';

const PRELOAD = pathToFileURL(join(projectRoot, 'scripts', 'test-preload.mjs')).href;

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly problems: { kind: string; file: string; details: Record<string, unknown> }[];
}

/** Runs `source` as a test file under node --test with the preload; resolves when the runner exits. */
async function runWithPreload(name: string, source: string, env: Record<string, string> = {}, files: Record<string, string> = {}): Promise<Run> {
  const dir = tempDir('brook-preload-');
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir.path, path, '..'), { recursive: true });
      writeFileSync(join(dir.path, path), text);
    }
    const file = join(dir.path, name);
    writeFileSync(file, source);
    const problemsFile = join(dir.path, 'problems.jsonl');
    // Without NODE_TEST_CONTEXT (set in this file's own process by node --test), the child is a runner of its own.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--expose-internals', '--import', PRELOAD, '--test', '--test-reporter=tap', file], {
      cwd: dir.path, env: { ...inherited, NODE_OPTIONS: '', BROOK_TEST_PROBLEMS_FILE: problemsFile, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    let problems: Run['problems'] = [];
    try {
      problems = readFileSync(problemsFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Run['problems'][number]);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return { code, output, problems };
  } finally {
    dir.remove();
  }
}

test('a test with no timeout of its own gets BROOK_TEST_TIMEOUT_MS, and a hook too; one with its own keeps it', { timeout: 30_000 }, async () => {
  // Each waits on a timer (a promise alone would let the process end before any timeout).
  const run = await runWithPreload('timeouts.test.mjs', `
    import { test, after } from 'node:test';
    test('hangs', (t) => new Promise((resolve) => {
      const timer = setTimeout(resolve, 3000);
      t.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); });
    }));
    test('own timeout', { timeout: 5000 }, () => new Promise((resolve) => setTimeout(resolve, 400)));
    after(() => new Promise((resolve) => setTimeout(resolve, 1500)));
  `, { BROOK_TEST_TIMEOUT_MS: '200' });
  assert.equal(run.code, 1, run.output);
  assert.match(run.output, /not ok 1 - hangs\n[\s\S]*?error: 'test timed out after 200ms'/, run.output);
  assert.match(run.output, /\nok 2 - own timeout\n/, run.output);
  assert.match(run.output, /failureType: 'hookFailed'\n\s*error: 'test timed out after 200ms'/, run.output);
  assert.deepEqual(run.problems, []);
});

test('a file whose tests pass but leave a server and a child process open fails, naming both and when they were opened', { timeout: 30_000 }, async () => {
  const run = await runWithPreload('leaks.test.mjs', `
    import { test } from 'node:test';
    import { createServer } from 'node:net';
    import { spawn } from 'node:child_process';
    test('first', () => {});
    test('opens a server', async () => {
      const server = createServer();
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    test('starts a child', () => { spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' }); });
    test('last', () => {});
  `);
  assert.equal(run.code, 1, run.output);
  assert.match(run.output, /# pass 4\n/, 'its tests passed');
  assert.match(run.output, /event loop is still alive after 2000 ms: the file fails/, run.output);
  assert.equal(run.problems.length, 1, run.output);
  const [problem] = run.problems;
  assert.equal(problem!.kind, 'open-handles');
  assert.match(problem!.file, /leaks\.test\.mjs$/);
  const handles = (problem!.details['handles'] as string[]).join('\n');
  assert.match(handles, /server listening on 127\.0\.0\.1:\d+ \(opened after "opens a server" started, before "starts a child" started\)/, handles);
  assert.match(handles, /child process \d+: .*setTimeout.* \(opened after "starts a child" started, before "last" started\)/, handles);
  // The file's process exited without ending its child: end it here.
  const pid = /child process (\d+)/.exec(handles)?.[1];
  if (pid !== undefined) try { process.kill(Number(pid)); } catch { /* already gone */ }
});

test('a file that closes what it opened passes, and records nothing', { timeout: 30_000 }, async () => {
  const run = await runWithPreload('clean.test.mjs', `
    import { test } from 'node:test';
    import { createServer } from 'node:net';
    test('opens and closes a server', async () => {
      const server = createServer();
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      await new Promise((resolve) => server.close(resolve));
    });
  `);
  assert.equal(run.code, 0, run.output);
  assert.deepEqual(run.problems, []);
  assert.doesNotMatch(run.output, /test-preload/);
});

const warnsNegativeTimeouts = Number(process.versions.node.split('.')[0]) >= 23;

test('a negative timer delay from the file\'s own code fails it, naming the call; from a package under node_modules it does not', {
  timeout: 30_000,
  skip: warnsNegativeTimeouts ? false : `Node ${process.version} corrects a negative timer delay to 1 ms without a warning (TimeoutNegativeWarning is Node 23+): nothing to detect`,
}, async () => {
  const own = await runWithPreload('own-timer.test.mjs', `
    import { test } from 'node:test';
    const deadline = 0; // a deadline that was never set, minus the wall clock
    test('waits until the deadline', () => new Promise((resolve) => setTimeout(resolve, deadline - Date.now())));
  `);
  assert.equal(own.code, 1, own.output);
  assert.equal(own.problems.length, 1, own.output);
  assert.equal(own.problems[0]!.kind, 'bad-timer');
  assert.match(String(own.problems[0]!.details['message']), /^TimeoutNegativeWarning: -\d+ is a negative number[\s\S]* Timer scheduled at .*own-timer\.test\.mjs:4:\d+/);

  const dependency = await runWithPreload('dependency-timer.test.mjs', `
    import { test } from 'node:test';
    import { wait } from 'a-client';
    test('a client library schedules a negative delay', () => wait());
  `, {}, {
    'node_modules/a-client/package.json': JSON.stringify({ name: 'a-client', type: 'module', exports: './index.js' }),
    'node_modules/a-client/index.js': 'const throttledUntil = -1;\nexport const wait = () => new Promise((resolve) => setTimeout(resolve, throttledUntil - Date.now()));\n',
  });
  assert.equal(dependency.code, 0, dependency.output);
  assert.deepEqual(dependency.problems, []);
  assert.match(dependency.output, /TimeoutNegativeWarning/, 'Node\'s own warning is still printed');
});
