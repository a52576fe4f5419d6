/**
 * Brook as a dependency of another project: `npm pack` of this checkout (what the registry
 * would serve), installed into a fresh project with npm; there a TypeScript program imports
 * `Broker`, `Producer`, `Consumer` and `Admin` from 'brook' (types through the package's
 * exports map, `await using`), compiled by tsc and run by Node: an in-memory broker, records
 * produced, read back by a consumer group, the group's committed offsets checked, the web
 * console's page served from the package, the broker stopped at the end of its scope. Then examples/testing, installed from its lockfile, runs
 * its node:test, Vitest and Jest examples (docs/TESTING.md).
 *
 * Needs npm and the npm registry, or npm's cache holding Brook's dependencies and the
 * examples' (as after `npm ci` in both).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { projectRoot, tempDir } from '../support/brook.js';

function ok(result: RunResult, what: string): RunResult {
  assert.equal(result.code, 0, `${what} exited ${result.code}${result.timedOut ? ' (timed out)' : ''}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
  return result;
}

const APP = `import { Admin, Broker, Consumer, Producer, silentLogger, type ConsumerRecord } from 'brook';

const TOPIC = 'packed';
const N = 20;
let port = 0;
{
  await using broker = await Broker.start({ port: 0, dataDir: null, log: silentLogger, groupInitialRebalanceDelayMs: 0, consolePort: 0 });
  port = broker.port;
  // The web console's page and script come from the package (its console/ folder).
  const served = await Promise.all(['/', '/assets/app.js'].map(async (path) => (await fetch('http://127.0.0.1:' + broker.consolePort + path)).status));
  const bootstrapServers: string = broker.bootstrapServers;
  const admin = await Admin.connect({ bootstrapServers });
  await admin.createTopic({ name: TOPIC, partitions: 3, replicationFactor: -1, configs: {} });
  const producer = new Producer({ bootstrapServers });
  await Promise.all(Array.from({ length: N }, (_, i) => producer.send({ topic: TOPIC, key: 'k' + i, value: 'v' + i })));
  await producer.close();
  const consumer = new Consumer({ bootstrapServers, groupId: 'packed-group', autoOffsetReset: 'earliest' });
  consumer.subscribe([TOPIC]);
  const values: string[] = [];
  while (values.length < N) {
    const records: ConsumerRecord[] = await consumer.poll({ timeoutMs: 1000 });
    for (const r of records) values.push(r.value!.toString());
  }
  await consumer.close();
  const { rows, totalLag } = await admin.describeGroupOffsets('packed-group');
  admin.close();
  console.log(JSON.stringify({
    bootstrap: bootstrapServers === '127.0.0.1:' + port,
    values: values.sort(),
    committed: rows.reduce((sum, row) => sum + Number(row.committed), 0),
    lag: Number(totalLag),
    console: served,
  }));
}
// The broker was stopped at the end of its scope: nothing listens on its port any more.
const { connect } = await import('node:net');
const refused = await new Promise<boolean>((resolve) => {
  const socket = connect({ host: '127.0.0.1', port });
  socket.once('connect', () => { socket.destroy(); resolve(false); });
  socket.once('error', () => resolve(true));
});
console.log(JSON.stringify({ stopped: refused }));
`;

test('npm pack, installed into another project: a TypeScript program there imports Broker and the clients from \'brook\' and runs a group round trip on an in-memory broker', { timeout: 600_000 }, async (t) => {
  const dir = tempDir('brook-pack-');
  t.after(() => dir.remove());
  // The build is current (npm run test:interop builds first): the tarball is packed from it.
  const packed = ok(await runProcess('npm', ['pack', '--ignore-scripts', '--pack-destination', dir.path], { cwd: projectRoot, timeoutMs: 120_000 }), 'npm pack');
  const tarball = readdirSync(dir.path).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, packed.stdout);

  const app = join(dir.path, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'brook-user', version: '1.0.0', private: true, type: 'module', dependencies: { brook: `file:../${tarball}` } }, null, 2));
  ok(await runProcess('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app, timeoutMs: 300_000 }), 'npm install');

  // Types through the package's exports map, as a TypeScript project on Node resolves them.
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'ESNext.Disposable'], strict: true,
      types: ['node'], typeRoots: [join(projectRoot, 'node_modules', '@types')], outDir: 'out',
    },
    files: ['app.mts'],
  }, null, 2));
  writeFileSync(join(app, 'app.mts'), APP);
  ok(await runProcess(process.execPath, [join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { cwd: app, timeoutMs: 120_000 }), 'tsc');

  const run = ok(await runProcess(process.execPath, [join(app, 'out', 'app.mjs')], { cwd: app, timeoutMs: 60_000 }), 'the program');
  const [roundTrip, stopped] = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(roundTrip, {
    bootstrap: true,
    values: Array.from({ length: 20 }, (_, i) => `v${i}`).sort(),
    committed: 20,
    lag: 0,
    console: [200, 200],
  });
  assert.deepEqual(stopped, { stopped: true });
});

test('examples/testing: node:test, Vitest and Jest examples pass (npm ci from their lockfile)', { timeout: 600_000 }, async () => {
  const examples = join(projectRoot, 'examples', 'testing');
  ok(await runProcess('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: examples, timeoutMs: 480_000 }), 'npm ci in examples/testing');
  // Without NODE_TEST_CONTEXT, which this runner sets: under it `node --test` runs nothing (and exits 0).
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const result = ok(await runProcess('npm', ['test'], { cwd: examples, timeoutMs: 120_000, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } }), 'npm test in examples/testing');
  const output = result.stdout + result.stderr;
  assert.match(output, /^# pass 2$/m, 'node:test: 2 passed');
  // Vitest and Jest: orders.test.js (2) and test-controls.test.js (one test per control, 12).
  assert.match(output, /Tests\s+14 passed \(14\)/, 'Vitest: 14 passed');
  assert.match(output, /Tests:\s+14 passed, 14 total/, 'Jest: 14 passed');
});
