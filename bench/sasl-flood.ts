/**
 * Unauthenticated clients against a SASL_PLAINTEXT listener serving PLAIN, two measures:
 *   node dist/bench/sasl-flood.js [flood] [latency] [--connections 64,256] [--flood-mib F]
 *     [--attempts C] [--seconds S] [--reps R] [--baseline DIR]
 * - flood: N connections each send a SaslHandshake, a SaslAuthenticate with a wrong password
 *   and then F MiB (16), without waiting for any answer. Reported, at their peak while any of
 *   those connections is open: what the broker read since (/proc/PID/io rchar, which counts
 *   every read(2) of the process: the sockets' bytes, nearly all of it here) and its resident
 *   memory above the idle broker's (VmRSS); and how long the broker took to close them all.
 * - latency: acks=all produce latency, one record at a time (Brook's producer on the PLAINTEXT
 *   listener, linger 0; file storage in the OS temp dir, so each append waits for an
 *   fdatasync in libuv's thread pool), for S seconds alone, then S seconds during a flood of
 *   PLAIN attempts: C connections at a time from a child process, each logging in with a wrong
 *   password (known user) or an unknown user, reconnecting as soon as it is closed. Beside it,
 *   a correct login every 100 ms from this process (how many succeed, how long they take), and
 *   the broker's CPU over the window (all its threads, and its main thread: the event loop).
 * --baseline DIR (another checkout, built) measures that checkout's broker too, alternating
 * with this one's in each repetition, so before and after come from the same run. The
 * machine is shared: compare within one run. Not part of npm test: timings depend on the machine.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Producer } from '../src/client/producer/index.js';
import { Api } from '../src/protocol/messages/index.js';
import { decodeResponse, encodeRequest, FrameDecoder } from '../src/protocol/frame.js';
import { encodePlain } from '../src/protocol/sasl/plain.js';
import { projectRoot, spawnBrook, tempDir, type BrookProcess } from '../test/support/brook.js';
import { cpuMsOf, mainThreadCpuMsOf } from './lib/cpu-time.js';
import { formatBytes, renderTable } from './lib/format.js';
import { rssBytes } from './lib/rss.js';
import { median, percentile } from './lib/stats.js';
import { createTopic, uniqueName } from './lib/topics.js';

const USER = 'bob';
const PASSWORD = 'bob-secret';

interface Build { readonly name: string; readonly root: string }

interface SaslBroker {
  readonly proc: BrookProcess;
  readonly saslPort: number;
  readonly plaintext: string;
  stop(): Promise<void>;
}

/** `bin/brook broker` of `root` with a PLAINTEXT and a SASL_PLAINTEXT listener; PLAIN user bob from the JAAS setting. */
async function startSaslBroker(root: string): Promise<SaslBroker> {
  const dir = tempDir('brook-sasl-flood-');
  const props = join(dir.path, 'broker.properties');
  writeFileSync(props, [
    'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
    'sasl.enabled.mechanisms=PLAIN',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${USER}="${PASSWORD}";`,
    'num.partitions=1',
    'auto.create.topics.enable=false',
    '',
  ].join('\n'));
  const proc = await spawnBrook(['--data-dir', join(dir.path, 'data'), '--config', props], 60_000, root);
  // The "started" log line names every listener with its port.
  let m: RegExpExecArray | null = null;
  for (let i = 0; i < 100 && m === null; i++) {
    m = /SASL_PLAINTEXT:\/\/[^:\s]+:(\d+)/.exec(proc.stderr());
    if (m === null) await sleep(20);
  }
  if (m === null) throw new Error(`no SASL_PLAINTEXT listener in the broker's log: ${proc.stderr()}`);
  return {
    proc, saslPort: Number(m[1]), plaintext: proc.bootstrap,
    stop: async () => {
      await proc.stop();
      dir.remove();
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Bytes the process has read (all read(2)-like calls, sockets included). */
function rchar(pid: number): number {
  const m = /^rchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m === null ? 0 : Number(m[1]);
}

let correlationId = 0;
function frames(user: string, password: string): Buffer {
  return Buffer.concat([
    ...encodeRequest({ api: Api.SaslHandshake, apiVersion: 1, correlationId: ++correlationId, clientId: 'flood', body: { mechanism: 'PLAIN' } }),
    ...encodeRequest({ api: Api.SaslAuthenticate, apiVersion: 2, correlationId: ++correlationId, clientId: 'flood', body: { authBytes: encodePlain(user, password) } }),
  ]);
}

// ---- flood: N connections, handshake + wrong password + F MiB each ----

interface FloodResult { readBytes: number; rssAboveIdle: number; closedMs: number; stillOpen: number }

async function flood(port: number, pid: number, connections: number, floodBytes: number): Promise<FloodResult> {
  await sleep(500);
  const idleRss = rssBytes(pid) ?? 0;
  const rchar0 = rchar(pid);
  // One buffer for every connection: Node queues it by reference, so the harness holds F MiB, not N times that.
  const junk = Buffer.alloc(floodBytes, 0x2a);
  const login = frames(USER, 'wrong');
  const sockets: Socket[] = [];
  let open = 0;
  const allClosed = new Promise<void>((resolve) => {
    for (let i = 0; i < connections; i++) {
      const s = connect({ host: '127.0.0.1', port });
      open++;
      s.on('error', () => undefined);
      s.on('data', () => undefined);
      s.on('close', () => {
        if (--open === 0) resolve();
      });
      s.write(login);
      s.write(junk);
      sockets.push(s);
    }
  });
  const start = performance.now();
  let peakRead = 0;
  let peakRss = idleRss;
  let done = false;
  void allClosed.then(() => { done = true; });
  const deadline = start + 60_000;
  while (!done && performance.now() < deadline) {
    peakRead = Math.max(peakRead, rchar(pid) - rchar0);
    peakRss = Math.max(peakRss, rssBytes(pid) ?? 0);
    await sleep(5);
  }
  const closedMs = performance.now() - start;
  const stillOpen = open;
  for (const s of sockets) s.destroy();
  peakRead = Math.max(peakRead, rchar(pid) - rchar0);
  return { readBytes: peakRead, rssAboveIdle: peakRss - idleRss, closedMs, stillOpen };
}

// ---- latency: acks=all produce alone and during a flood of PLAIN attempts ----

interface AttemptCounts { answered: number; closedUnanswered: number; errors: number; seconds: number }

/** The flood's child process: C attempts at a time for `seconds`, then its counts as a JSON line. */
async function floodWorker(port: number, concurrency: number, seconds: number): Promise<void> {
  const counts: AttemptCounts = { answered: 0, closedUnanswered: 0, errors: 0, seconds };
  const until = performance.now() + seconds * 1000;
  let n = 0;
  const attempt = (): Promise<void> => new Promise((resolve) => {
    n++;
    // Half a known user with a wrong password, half unknown users: both cost a password check.
    const login = n % 2 === 0 ? frames(USER, `wrong-${n}`) : frames(`nobody-${n}`, 'x');
    const s = connect({ host: '127.0.0.1', port });
    const decoder = new FrameDecoder();
    let responses = 0;
    s.on('data', (d: Buffer) => {
      decoder.append(d);
      while (decoder.next() !== null) responses++;
    });
    s.on('error', () => { counts.errors++; });
    s.on('close', () => {
      if (responses >= 2) counts.answered++;
      else counts.closedUnanswered++;
      resolve();
    });
    s.write(login);
  });
  const loop = async (): Promise<void> => {
    while (performance.now() < until) await attempt();
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  process.stdout.write(`${JSON.stringify(counts)}\n`);
}

interface LatencyResult {
  quietP50: number; quietP99: number; floodP50: number; floodP99: number;
  quietSends: number; floodSends: number;
  /** The broker's CPU during the flood window, in cores: all its threads, and its main thread (the event loop). */
  floodCpu: number; floodMainThreadCpu: number;
  attempts: AttemptCounts; loginsOk: number; loginsTried: number; loginP50: number;
}

/** One correct login: its time in ms, or null when the broker closed the connection first. */
function correctLogin(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const s = connect({ host: '127.0.0.1', port });
    const decoder = new FrameDecoder();
    let responses = 0;
    s.on('data', (d: Buffer) => {
      decoder.append(d);
      for (let f = decoder.next(); f !== null; f = decoder.next()) {
        if (++responses < 2) continue;
        const ok = (decodeResponse(f, Api.SaslAuthenticate, 2).body as { errorCode: number }).errorCode === 0;
        s.destroy();
        resolve(ok ? performance.now() - started : null);
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve(null));
    s.write(frames(USER, PASSWORD));
  });
}

async function timedSends(producer: Producer, topic: string, seconds: number): Promise<number[]> {
  const value = Buffer.alloc(100, 'v');
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const t = performance.now();
    await producer.send({ topic, value });
    latencies.push(performance.now() - t);
  }
  return latencies;
}

async function latency(broker: SaslBroker, concurrency: number, seconds: number): Promise<LatencyResult> {
  const topic = uniqueName('sasl-flood');
  await createTopic(broker.plaintext, topic, 1);
  const producer = new Producer({ bootstrapServers: broker.plaintext, acks: 'all', lingerMs: 0 });
  try {
    await timedSends(producer, topic, 1);
    const quiet = await timedSends(producer, topic, seconds);
    const rampSeconds = 1;
    const worker = spawn(process.execPath, [fileURLToPath(import.meta.url), '--flood-worker', '--port', String(broker.saslPort),
      '--attempts', String(concurrency), '--seconds', String(rampSeconds + seconds + 0.5)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<void>((resolve) => worker.on('close', () => resolve()));
    await sleep(rampSeconds * 1000);
    const logins: (number | null)[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        logins.push(await correctLogin(broker.saslPort));
        await sleep(100);
      }
    })();
    const pid = broker.proc.child.pid!;
    const cpu0 = cpuMsOf(pid);
    const main0 = mainThreadCpuMsOf(pid);
    const windowStart = performance.now();
    const during = await timedSends(producer, topic, seconds);
    const windowMs = performance.now() - windowStart;
    const floodCpu = (cpuMsOf(pid) - cpu0) / windowMs;
    const floodMainThreadCpu = (mainThreadCpuMsOf(pid) - main0) / windowMs;
    probing = false;
    await prober;
    await exited;
    const attempts = JSON.parse(out.trim().split('\n').pop() ?? '{}') as AttemptCounts;
    const ok = logins.filter((l): l is number => l !== null);
    return {
      quietP50: percentile(quiet, 50), quietP99: percentile(quiet, 99), floodP50: percentile(during, 50), floodP99: percentile(during, 99),
      quietSends: quiet.length, floodSends: during.length, floodCpu, floodMainThreadCpu, attempts,
      loginsOk: ok.length, loginsTried: logins.length, loginP50: percentile(ok, 50),
    };
  } finally {
    await producer.close();
  }
}

// ---- the run ----

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      connections: { type: 'string', default: '64,256' },
      'flood-mib': { type: 'string', default: '16' },
      attempts: { type: 'string', default: '256' },
      seconds: { type: 'string', default: '10' },
      reps: { type: 'string', default: '3' },
      baseline: { type: 'string' },
      'flood-worker': { type: 'boolean', default: false },
      port: { type: 'string' },
    },
  });
  if (values['flood-worker']) {
    await floodWorker(Number(values.port), Number(values.attempts), Number(values.seconds));
    return;
  }
  const parts = positionals.length > 0 ? positionals : ['flood', 'latency'];
  for (const p of parts) if (p !== 'flood' && p !== 'latency') throw new Error(`unknown part ${p} (flood, latency)`);
  const connectionCounts = values.connections.split(',').map(Number);
  const floodBytes = Number(values['flood-mib']) * 1024 * 1024;
  const reps = Number(values.reps);
  const builds: Build[] = [{ name: 'this', root: projectRoot }];
  if (values.baseline !== undefined) builds.push({ name: 'baseline', root: values.baseline });
  console.error(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  const floods = new Map<string, FloodResult[]>();
  const latencies = new Map<string, LatencyResult[]>();
  for (let rep = 0; rep < reps; rep++) {
    const order = builds.map((_, i) => builds[(i + rep) % builds.length]!);
    for (const build of order) {
      if (parts.includes('flood')) {
        for (const n of connectionCounts) {
          const broker = await startSaslBroker(build.root);
          try {
            const r = await flood(broker.saslPort, broker.proc.child.pid!, n, floodBytes);
            const key = `${build.name}/${n}`;
            floods.set(key, [...(floods.get(key) ?? []), r]);
            console.error(`  ${build.name}, ${n} connections, rep ${rep + 1}: read ${formatBytes(r.readBytes)}, RSS +${formatBytes(r.rssAboveIdle)}, all closed after ${Math.round(r.closedMs)} ms${r.stillOpen > 0 ? ` (${r.stillOpen} still open)` : ''}`);
          } finally {
            await broker.stop();
          }
        }
      }
      if (parts.includes('latency')) {
        const broker = await startSaslBroker(build.root);
        try {
          const r = await latency(broker, Number(values.attempts), Number(values.seconds));
          latencies.set(build.name, [...(latencies.get(build.name) ?? []), r]);
          console.error(`  ${build.name}, latency rep ${rep + 1}: alone p50 ${r.quietP50.toFixed(2)} p99 ${r.quietP99.toFixed(2)} ms; during the flood p50 ${r.floodP50.toFixed(2)} p99 ${r.floodP99.toFixed(2)} ms (${r.floodSends} sends; broker CPU ${r.floodCpu.toFixed(2)}, event loop ${r.floodMainThreadCpu.toFixed(2)}); attempts ${JSON.stringify(r.attempts)}; correct logins ${r.loginsOk}/${r.loginsTried}, p50 ${r.loginP50.toFixed(1)} ms`);
        } finally {
          await broker.stop();
        }
      }
    }
  }
  console.error(`load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  const med = <T>(runs: T[] | undefined, f: (r: T) => number): number => median((runs ?? []).map(f));
  if (floods.size > 0) {
    console.log(`\nFlood: each connection sends SaslHandshake, SaslAuthenticate (wrong password), then ${values['flood-mib']} MiB without waiting; median of ${reps}:`);
    const rows = builds.flatMap((b) => connectionCounts.map((n) => {
      const runs = floods.get(`${b.name}/${n}`);
      return [b.name, String(n), formatBytes(med(runs, (r) => r.readBytes)), formatBytes(med(runs, (r) => r.rssAboveIdle)), `${Math.round(med(runs, (r) => r.closedMs))} ms`];
    }));
    console.log(renderTable(['build', 'connections', 'broker read', 'RSS above idle', 'all closed after'], rows, 1));
  }
  if (latencies.size > 0) {
    console.log(`\nacks=all produce latency (ms), alone and during ${values.attempts} concurrent PLAIN attempts; median of ${reps}:`);
    const rows = builds.map((b) => {
      const runs = latencies.get(b.name);
      const f = (x: number): string => x.toFixed(2);
      const attempts = (r: LatencyResult): number => (r.attempts.answered + r.attempts.closedUnanswered) / r.attempts.seconds;
      return [b.name, f(med(runs, (r) => r.quietP50)), f(med(runs, (r) => r.quietP99)), f(med(runs, (r) => r.floodP50)), f(med(runs, (r) => r.floodP99)),
        String(Math.round(med(runs, (r) => r.floodSends / Number(values.seconds)))), f(med(runs, (r) => r.floodCpu)), f(med(runs, (r) => r.floodMainThreadCpu)),
        String(Math.round(med(runs, attempts))),
        `${Math.round(med(runs, (r) => (100 * r.loginsOk) / Math.max(1, r.loginsTried)))}%`, f(med(runs, (r) => r.loginP50))];
    });
    console.log(renderTable(['build', 'alone p50', 'alone p99', 'flood p50', 'flood p99', 'flood sends/s', 'broker CPU', 'event loop CPU', 'attempts/s', 'correct logins ok', 'login p50'], rows, 1));
  }
}

await main();
