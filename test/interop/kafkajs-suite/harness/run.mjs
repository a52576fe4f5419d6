#!/usr/bin/env node
/**
 * Runs KafkaJS 2.2.4's own behaviour tests (vendor/, unmodified) against brook/kafkajs and
 * Brook's embedded broker, in a run directory outside the checkout:
 *   1. vendor/ and shims/ (our createAdmin/createProducer/createConsumer, errors and
 *      testHelpers over brook/kafkajs's public API) overlaid there, with harness/;
 *   2. `npm ci` from this folder's lockfile (Jest 29, jest-extended, esbuild, ...);
 *   3. dist/src/kafkajs/index.js (build first: `npx tsc -p tsconfig.json`) bundled to
 *      CommonJS with esbuild, since Jest's require cannot load an ES module;
 *   4. Jest (`--json`), with the broker started by harness/global-setup.mjs.
 * Prints pass/fail/skip per area (admin, producer, consumer) and per file, and writes a
 * summary (`--out FILE`) that test/interop/kafkajs-suite.test.ts checks against expected.json.
 *
 *   node test/interop/kafkajs-suite/harness/run.mjs [--out FILE] [--workers N]
 *        [--run-dir DIR (reused: npm ci only when the lockfile changed)] [--keep]
 *        [--update-expected] [spec path patterns...]
 */
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const suiteDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const brookRoot = resolve(suiteDir, '..', '..', '..')

function parseArgs(argv) {
  const args = { out: null, workers: 1, runDir: null, keep: false, updateExpected: false, patterns: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--out') args.out = resolve(argv[++i])
    else if (a === '--workers') args.workers = Number(argv[++i])
    else if (a === '--run-dir') args.runDir = resolve(argv[++i])
    else if (a === '--keep') args.keep = true
    else if (a === '--update-expected') args.updateExpected = true
    else args.patterns.push(a)
  }
  return args
}

function sh(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

/** The run directory: vendor/ + shims/ + harness/, node_modules from the lockfile. */
function prepare(runDir) {
  const lock = readFileSync(join(suiteDir, 'package-lock.json'), 'utf8')
  const installed = existsSync(join(runDir, 'node_modules')) && existsSync(join(runDir, 'package-lock.json')) &&
    readFileSync(join(runDir, 'package-lock.json'), 'utf8') === lock
  cpSync(join(suiteDir, 'package.json'), join(runDir, 'package.json'))
  cpSync(join(suiteDir, 'package-lock.json'), join(runDir, 'package-lock.json'))
  if (!installed) sh('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], runDir)
  for (const dir of ['src', 'testHelpers', 'harness']) rmSync(join(runDir, dir), { recursive: true, force: true })
  cpSync(join(suiteDir, 'vendor', 'src'), join(runDir, 'src'), { recursive: true })
  cpSync(join(suiteDir, 'shims'), runDir, { recursive: true })
  cpSync(join(suiteDir, 'harness'), join(runDir, 'harness'), { recursive: true })
}

/** brook/kafkajs as one CommonJS file; the native codecs are still loaded from the checkout. */
async function bundle(runDir) {
  const entry = join(brookRoot, 'dist', 'src', 'kafkajs', 'index.js')
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npx tsc -p tsconfig.json)`)
  const esbuild = createRequire(join(runDir, 'package.json'))('esbuild')
  // import.meta.url is read only by protocol/records/native-codec.js (createRequire for the
  // optional codecs): it is given that file's URL in the checkout.
  const nativeCodec = pathToFileURL(join(brookRoot, 'dist', 'src', 'protocol', 'records', 'native-codec.js')).href
  await esbuild.build({
    entryPoints: [entry],
    outfile: join(runDir, '.brook', 'kafkajs.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    define: { 'import.meta.url': '__brookImportMetaUrl' },
    banner: { js: `var __brookImportMetaUrl = ${JSON.stringify(nativeCodec)};` },
    logLevel: 'error',
  })
}

const KAFKAJS_PORTS = [9092, 9095, 9098, 9093, 9096, 9099, 9094, 9097, 9100]

async function portFree(port) {
  return new Promise((done) => {
    const server = createServer()
    server.once('error', () => done(false))
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)))
  })
}

async function freePort() {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => done(port))
    })
  })
}

/**
 * KafkaJS's ports (9092..9100: three seeds per listener, the broker on the first of each)
 * when all are free; else nine free ports (another broker on this machine may hold 9092).
 */
async function choosePorts() {
  if ((await Promise.all(KAFKAJS_PORTS.map(portFree))).every(Boolean)) return KAFKAJS_PORTS
  const ports = new Set()
  while (ports.size < KAFKAJS_PORTS.length) ports.add(await freePort())
  return [...ports]
}

function areaOf(file) {
  const m = /^src\/(admin|producer|consumer)\//.exec(file)
  return m ? m[1] : 'other'
}

/** Jest's --json results as { files: { path: { area, error, tests: [{ id, name, status, failure }] } } }. */
export function summarize(results, runDir, wallMs) {
  const files = {}
  for (const suite of results.testResults) {
    const file = relative(runDir, suite.name)
    const seen = new Map()
    const tests = suite.assertionResults.map((t) => {
      const n = (seen.get(t.fullName) ?? 0) + 1
      seen.set(t.fullName, n)
      const name = n === 1 ? t.fullName : `${t.fullName} #${n}`
      const status = t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped'
      const failure = status === 'failed' ? firstLines(t.failureMessages.join('\n')) : undefined
      return { id: `${file} › ${name}`, name, status, ...(failure ? { failure } : {}) }
    })
    const error = suite.assertionResults.length === 0 && suite.message ? firstLines(suite.message) : undefined
    files[file] = { area: areaOf(file), tests, ...(error ? { error } : {}) }
  }
  const areas = {}
  for (const [, f] of Object.entries(files)) {
    const a = (areas[f.area] ??= { files: 0, tests: 0, passed: 0, failed: 0, skipped: 0 })
    a.files++
    for (const t of f.tests) { a.tests++; a[t.status]++ }
  }
  return { wallMs, areas, files }
}

function firstLines(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').filter((l) => l.trim() !== '').slice(0, 4).join('\n').slice(0, 600)
}

/** Tests whose outcome depends on timing on a fast local broker (README.md, "Flaky"). */
const TIMING_DEPENDENT = new Set([
  'src/admin/__tests__/fetchTopicOffsetsByTimestamp.spec.js › Admin fetchTopicOffsetsByTimestamp returns the offsets from timestamp',
  'src/consumer/__tests__/consumeMessages.spec.js › Consumer concurrent heartbeats are consolidated and respect heartbeatInterval',
  'src/consumer/__tests__/consumeMessages.spec.js › Consumer heartbeats are exposed in the eachMessage handler',
  'src/consumer/__tests__/instrumentationEvents.spec.js › Consumer > Instrumentation Events emits request timeout events',
  'src/producer/index.spec.js › Producer emits the request timeout event',
])

/** expected.json: the tests that pass now, in place of those of the files this run covered. */
function updateExpected(summary) {
  const path = join(suiteDir, 'expected.json')
  const ran = new Set(Object.keys(summary.files))
  const before = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).passing : []
  const kept = before.filter((id) => !ran.has(id.slice(0, id.indexOf(' › '))))
  // KafkaJS's own [flaky] tests, and those README.md lists as timing-dependent, are not a gate.
  const gate = (id) => !id.includes('[flaky]') && !TIMING_DEPENDENT.has(id)
  const passing = Object.values(summary.files).flatMap((f) => f.tests.filter((t) => t.status === 'passed' && gate(t.id)).map((t) => t.id))
  const all = [...new Set([...kept, ...passing])].sort()
  writeFileSync(path, JSON.stringify({
    about: "KafkaJS 2.2.4 tests known to pass against brook/kafkajs (file › full name); KafkaJS's own [flaky] tests and timing-dependent ones (README.md) are left out. test/interop/kafkajs-suite.test.ts fails when one of these fails. harness/run.mjs --update-expected rewrites it from one run.",
    passing: all,
  }, null, 2) + '\n')
  console.log(`expected.json: ${all.length} passing tests`)
}

export function report(summary) {
  const lines = []
  lines.push(`KafkaJS 2.2.4's tests on brook/kafkajs: ${(summary.wallMs / 1000).toFixed(1)} s`)
  lines.push('area       files  tests  passed  failed  skipped')
  for (const [area, a] of Object.entries(summary.areas).sort()) {
    lines.push(`${area.padEnd(10)} ${String(a.files).padStart(5)}  ${String(a.tests).padStart(5)}  ${String(a.passed).padStart(6)}  ${String(a.failed).padStart(6)}  ${String(a.skipped).padStart(7)}`)
  }
  for (const [file, f] of Object.entries(summary.files).sort()) {
    const count = (s) => f.tests.filter((t) => t.status === s).length
    lines.push(`  ${file}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped${f.error ? ` (file failed: ${f.error.split('\n')[0]})` : ''}`)
  }
  return lines.join('\n')
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const runDir = args.runDir ?? mkdtempSync(join(tmpdir(), 'kafkajs-suite-'))
  const started = Date.now()
  try {
    prepare(runDir)
    await bundle(runDir)
    const patterns = args.patterns
    const resultsFile = join(runDir, 'jest-results.json')
    rmSync(resultsFile, { force: true })
    const ports = await choosePorts()
    if (ports !== KAFKAJS_PORTS) console.log(`KafkaJS's ports 9092..9100 are taken: the broker listens on ${ports[0]}, ${ports[3]}, ${ports[6]}`)
    const jestStarted = Date.now()
    const code = await new Promise((resolveExit) => {
      const child = spawn(process.execPath, [join(runDir, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--config', join(runDir, 'harness', 'jest.config.js'), '--ci', '--forceExit', `--maxWorkers=${args.workers}`,
        '--json', '--outputFile', resultsFile, ...patterns], {
        cwd: runDir,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, BROOK_ROOT: brookRoot, KAFKA_VERSION: '4.4', NODE_ENV: 'test', FORCE_COLOR: '0', KAFKAJS_SUITE_PORTS: ports.join(',') },
      })
      child.on('exit', (c) => resolveExit(c))
    })
    if (!existsSync(resultsFile)) throw new Error(`jest exited ${code} without results`)
    const summary = summarize(JSON.parse(readFileSync(resultsFile, 'utf8')), runDir, Date.now() - jestStarted)
    summary.totalMs = Date.now() - started
    console.log(report(summary))
    console.log(`(whole run with npm ci and bundling: ${(summary.totalMs / 1000).toFixed(1)} s)`)
    if (args.out) writeFileSync(args.out, JSON.stringify(summary, null, 2))
    if (args.updateExpected) updateExpected(summary)
  } finally {
    if (!args.keep && !args.runDir) rmSync(runDir, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e)
    process.exit(1)
  })
}
