/**
 * Starts a real Apache Kafka 4.1 broker for differential tests: one JVM, single-node KRaft
 * (combined broker and controller), its jars resolved from Maven Central by
 * test/support/kafka/build.sh, listening on 127.0.0.1 ports the OS picked.
 *
 *   const kafka = await startKafka({ config: { 'num.partitions': '1' } });
 *   ... talk to kafka.bootstrap ...
 *   await kafka.stop();
 *
 * Storage is formatted like the 4.1 quickstart does it (a dynamic quorum, `kafka-storage
 * format --standalone`). The broker logs to `<dataDir>/server.log` only; the JVM's own
 * stdout/stderr go to `<dataDir>/jvm.out`. The JVM dies with this process: it is started
 * under `setpriv --pdeathsig SIGKILL` when setpriv exists, and killed from 'exit' and
 * signal handlers otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawConnection } from './raw-client.js';

const kafkaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'support', 'kafka');

const HOST = '127.0.0.1';
const NODE_ID = 1;
/** Written into dataDir: what a later start on the same directory must reuse. */
const STATE_FILE = 'brook-kafka.json';

export interface KafkaBrokerOptions {
  /** Extra server.properties entries, e.g. { 'group.initial.rebalance.delay.ms': '0', 'num.partitions': '1' } */
  config?: Record<string, string>;
  /**
   * Where to keep logs/data; default a fresh temp dir removed on stop(). A directory a
   * previous broker used (e.g. after kill()) is started again as it is, on the same ports,
   * without formatting.
   */
  dataDir?: string;
  /** Default 60000. */
  startTimeoutMs?: number;
  /** Extra JVM options, after the defaults (so `-Xmx1g` here wins). */
  jvmOptions?: string[];
}

/** How the JVM ended. */
export interface KafkaExit {
  /** Exit code: 0 or 143 after SIGTERM (Kafka's shutdown hook ran), null if killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stop() gave up waiting for SIGTERM and sent SIGKILL. */
  forced: boolean;
}

export interface KafkaBroker {
  /** '127.0.0.1' */
  readonly host: string;
  /** The client (PLAINTEXT) listener port, chosen free by the OS. */
  readonly port: number;
  /** `${host}:${port}` */
  readonly bootstrap: string;
  readonly dataDir: string;
  /** Time from spawning the broker's JVM to ready (ApiVersions and Metadata answered). */
  readonly startupMs: number;
  readonly pid: number;
  /** The controller listener port. */
  readonly controllerPort: number;
  readonly clusterId: string;
  readonly nodeId: number;
  /** Time spent formatting storage before the broker was spawned (0 when reusing a dataDir). */
  readonly formatMs: number;
  /** The whole command line the broker runs with. */
  readonly command: readonly string[];
  /** Settles when the JVM exits, however it ends. */
  readonly exited: Promise<KafkaExit>;
  /**
   * SIGTERM (Kafka's controlled shutdown, typically 0.5 s), wait for the exit, SIGKILL after
   * 20 s; then removes the temp dataDir (a caller's dataDir stays). Idempotent; also right
   * after kill(), to remove the temp dir. The first broker on a machine also writes the CDS
   * archive as it exits, which adds about 5 s once.
   */
  stop(): Promise<KafkaExit>;
  /**
   * SIGKILL, for crash tests; keeps dataDir (a temp one until stop() or this process exits).
   * Start again with `startKafka({ dataDir: broker.dataDir })`: same ports and cluster. Such a
   * restart waits until the controller expires the killed broker's session
   * (broker.session.timeout.ms, 9 s by default: about 12 s in all); with
   * `{ 'broker.heartbeat.interval.ms': '500', 'broker.session.timeout.ms': '2000' }` in
   * `config` of both starts it takes about 4 s.
   */
  kill(): Promise<KafkaExit>;
  /** The last lines of server.log (and of jvm.out when the JVM printed anything), for failure messages. */
  logTail(lines?: number): string;
  /** Resident set size of the JVM in bytes (from /proc), or null once it has exited. */
  rssBytes(): number | null;
}

// ---------------------------------------------------------------------------------------
// Availability and the classpath

const javaBin = (): string => process.env['BROOK_KAFKA_JAVA'] ?? 'java';

let availability: boolean | undefined;

/**
 * True when a Kafka broker can be started here: a Java 17+ on PATH (or in
 * BROOK_KAFKA_JAVA) and either the resolved classpath or Maven to resolve it.
 * `BROOK_KAFKA=0` forces false.
 */
export function kafkaAvailable(): boolean {
  if (availability === undefined) {
    availability = process.env['BROOK_KAFKA'] !== '0' && javaMajorVersion() >= 17 && (existsSync(join(kafkaDir, 'target', 'classpath.txt')) || commandRuns('mvn', ['-v']));
  }
  return availability;
}

function commandRuns(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return result.status === 0;
}

let javaVersion: string | undefined;

/** `java -version` output ('' when java does not run). */
function javaVersionText(): string {
  if (javaVersion === undefined) {
    const result = spawnSync(javaBin(), ['-version'], { encoding: 'utf8', timeout: 30_000 });
    javaVersion = result.status === 0 ? result.stderr : '';
  }
  return javaVersion;
}

function javaMajorVersion(): number {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(javaVersionText());
  if (match === null) return 0;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

let classpath: string | undefined;

/** Resolves the broker's classpath when missing or stale (build.sh); returns it. */
export function kafkaClasspath(): string {
  if (classpath === undefined) {
    const result = spawnSync('bash', [join(kafkaDir, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) throw new Error(`test/support/kafka/build.sh failed (${result.status})`);
    classpath = readFileSync(result.stdout.trim(), 'utf8').trim();
  }
  return classpath;
}

// ---------------------------------------------------------------------------------------
// Class data sharing: start-up about 1.5 s faster, formatting about 0.6 s

/**
 * The JVM options for a dynamic AppCDS archive of the broker's classes, in
 * test/support/kafka/target/cds/, one per classpath and Java build. When there is none yet,
 * the first broker writes one as it exits after stop() (which then takes a few seconds
 * longer, once). A missing, stale or unreadable archive only costs speed: the JVM ignores
 * it (`-Xshare:auto`, the default), and `-Xlog:cds*=off` keeps it quiet about that.
 * `BROOK_KAFKA_CDS=0` turns this off.
 */
function cdsOptions(cp: string, dump: boolean): { options: string[]; dumpTo: string | null; archive: string | null } {
  if (process.env['BROOK_KAFKA_CDS'] === '0') return { options: [], dumpTo: null, archive: null };
  const key = createHash('sha256').update(`${javaBin()}\n${javaVersionText()}\n${cp}`).digest('hex').slice(0, 16);
  const dir = join(kafkaDir, 'target', 'cds');
  const archive = join(dir, `kafka-${key}.jsa`);
  if (existsSync(archive)) return { options: [`-XX:SharedArchiveFile=${archive}`, '-Xlog:cds*=off'], dumpTo: null, archive };
  if (!dump) return { options: [], dumpTo: null, archive: null };
  mkdirSync(dir, { recursive: true });
  const dumpTo = `${archive}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  return { options: [`-XX:ArchiveClassesAtExit=${dumpTo}`, '-Xlog:cds*=off'], dumpTo, archive };
}

// ---------------------------------------------------------------------------------------
// Clean-up when this process ends

const live = new Set<ChildProcess>();
const ownedDirs = new Set<string>();
let exitHooksInstalled = false;

function killEverything(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  for (const dir of ownedDirs) rmSync(dir, { recursive: true, force: true });
  ownedDirs.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', killEverything);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killEverything();
      process.off(signal, onSignal);
      // Nobody else listening: die of the signal as we would have without this handler.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

let setprivWorks: boolean | undefined;

/** `setpriv --pdeathsig SIGKILL`: the JVM gets SIGKILL when this process dies, however it dies. */
function deathSignalPrefix(): string[] {
  setprivWorks ??= commandRuns('setpriv', ['--pdeathsig', 'SIGKILL', '--', 'true']);
  return setprivWorks ? ['setpriv', '--pdeathsig', 'SIGKILL', '--'] : [];
}

// ---------------------------------------------------------------------------------------
// Configuration files

interface BrokerState {
  clusterId: string;
  port: number;
  controllerPort: number;
}

/** Two distinct ports the OS considers free right now (closed again: a small race, accepted). */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, HOST, () => resolve());
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port from listen(0)');
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

/** A random cluster id as Kafka writes one: 16 bytes, base64url without padding, not starting with '-'. */
function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function serverProperties(dataDir: string, state: BrokerState, extra: Record<string, string>): string {
  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(NODE_ID),
    // 4.1's dynamic quorum (KIP-853), as in the quickstart; formatted with --standalone.
    'controller.quorum.bootstrap.servers': `${HOST}:${state.controllerPort}`,
    listeners: `PLAINTEXT://${HOST}:${state.port},CONTROLLER://${HOST}:${state.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${state.port},CONTROLLER://${HOST}:${state.controllerPort}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': join(dataDir, 'logs'),
    'offsets.topic.replication.factor': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    'auto.create.topics.enable': 'true',
    // The log cleaner allocates this buffer on the heap at start-up: 128 MiB by default.
    'log.cleaner.dedupe.buffer.size': String(16 * 1024 * 1024),
    ...extra,
  };
  const escape = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# written by test/support/kafka/kafka-broker.ts\n${Object.entries(props).map(([k, v]) => `${escape(k)}=${escape(v)}`).join('\n')}\n`;
}

function log4j2Properties(dataDir: string): string {
  const file = join(dataDir, 'server.log').replace(/\\/g, '\\\\');
  return [
    '# written by test/support/kafka/kafka-broker.ts: everything to server.log, nothing to stdout',
    'status = warn',
    // Kafka still logs while its shutdown hook runs; log4j's own hook would stop logging first.
    'shutdownHook = disable',
    'appender.file.type = File',
    'appender.file.name = file',
    `appender.file.fileName = ${file}`,
    'appender.file.append = true',
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = INFO',
    'rootLogger.appenderRef.file.ref = file',
    // The request log at INFO would be noise; state changes are worth keeping.
    'logger.request.name = kafka.request.logger',
    'logger.request.level = WARN',
    '',
  ].join('\n');
}

const defaultJvmOptions = [
  '-Xms256m',
  '-Xmx512m',
  // One GC thread and no concurrent GC work: the test machine has 2 cores.
  '-XX:+UseSerialGC',
  // C1 only: less compilation CPU at start-up; plenty fast for tests.
  '-XX:TieredStopAtLevel=1',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

// ---------------------------------------------------------------------------------------
// Starting

function runJava(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(javaBin(), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function tailOfFile(path: string, lines: number): string {
  if (!existsSync(path)) return '';
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const want = Math.min(size, 256 * 1024);
    const buf = Buffer.alloc(want);
    readSync(fd, buf, 0, want, size - want);
    const all = buf.toString('utf8').split('\n');
    if (all[all.length - 1] === '') all.pop();
    return all.slice(-lines).join('\n');
  } finally {
    closeSync(fd);
  }
}

/** The ERROR and FATAL lines (each with the line after it) logged since `fromOffset`. */
function errorsSince(dataDir: string, fromOffset: number): string[] {
  const path = join(dataDir, 'server.log');
  if (!existsSync(path)) return [];
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const want = Math.min(Math.max(0, size - fromOffset), 8 * 1024 * 1024);
    const buf = Buffer.alloc(want);
    readSync(fd, buf, 0, want, size - want);
    const lines = buf.toString('utf8').split('\n');
    const errors: string[] = [];
    lines.forEach((line, i) => {
      if (/^\[[^\]]*\] (ERROR|FATAL) /.test(line)) errors.push(lines[i + 1]?.startsWith('[') === false ? `${line}\n    ${lines[i + 1]}` : line);
    });
    return errors;
  } finally {
    closeSync(fd);
  }
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** A start-up failure message: the first errors of this run, then the log's last lines. */
function failureReport(dataDir: string, fromOffset: number): string {
  const errors = errorsSince(dataDir, fromOffset);
  const first = errors.length === 0 ? '' : `errors logged (first ${Math.min(errors.length, 8)} of ${errors.length}):\n${errors.slice(0, 8).join('\n')}\n`;
  return `${first}log tail (${join(dataDir, 'server.log')}):\n${logTailOf(dataDir, 40)}`;
}

function logTailOf(dataDir: string, lines: number): string {
  const server = tailOfFile(join(dataDir, 'server.log'), lines);
  const jvm = tailOfFile(join(dataDir, 'jvm.out'), lines);
  return jvm === '' ? server : `${server}\n--- jvm.out (stdout/stderr) ---\n${jvm}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Ready: ApiVersions answered and Metadata lists this broker at its advertised port. */
async function probe(port: number): Promise<boolean> {
  let conn: RawConnection;
  try {
    conn = await RawConnection.connect(HOST, port, { clientId: 'brook-kafka-harness', timeoutMs: 2_000 });
  } catch {
    return false;
  }
  try {
    const versions = await conn.request('ApiVersions', 3, { clientSoftwareName: 'brook-kafka-harness', clientSoftwareVersion: '0' });
    if (versions.errorCode !== 0) return false;
    const metadata = await conn.request('Metadata', 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return metadata.brokers.some((b) => b.nodeId === NODE_ID && b.port === port);
  } catch {
    return false;
  } finally {
    conn.close();
  }
}

class BindError extends Error {}

export async function startKafka(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  const cp = kafkaClasspath();
  installExitHooks();
  const owned = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'brook-kafka-'));
  if (owned) ownedDirs.add(dataDir);
  mkdirSync(dataDir, { recursive: true });
  try {
    const statePath = join(dataDir, STATE_FILE);
    if (existsSync(statePath)) {
      // A restart (e.g. after kill()): same cluster, same ports, storage already formatted.
      const state = JSON.parse(readFileSync(statePath, 'utf8')) as BrokerState;
      return await launch(cp, dataDir, owned, state, false, options);
    }
    if (existsSync(join(dataDir, 'logs', 'meta.properties'))) {
      throw new Error(`${dataDir} holds Kafka storage that was not formatted by this harness (no ${STATE_FILE})`);
    }
    for (let attempt = 1; ; attempt++) {
      const [port, controllerPort] = await freePorts(2);
      const state: BrokerState = { clusterId: randomClusterId(), port: port!, controllerPort: controllerPort! };
      try {
        return await launch(cp, dataDir, owned, state, true, options);
      } catch (err) {
        // Someone took a port between freePorts() and Kafka's bind: once more, on new ports.
        if (!(err instanceof BindError) || attempt >= 2) throw err;
        rmSync(join(dataDir, 'logs'), { recursive: true, force: true });
        rmSync(statePath, { force: true });
      }
    }
  } catch (err) {
    if (owned) {
      rmSync(dataDir, { recursive: true, force: true });
      ownedDirs.delete(dataDir);
    }
    throw err;
  }
}

async function launch(cp: string, dataDir: string, owned: boolean, state: BrokerState, format: boolean, options: KafkaBrokerOptions): Promise<KafkaBroker> {
  const propertiesPath = join(dataDir, 'server.properties');
  const log4jPath = join(dataDir, 'log4j2.properties');
  const logStart = fileSize(join(dataDir, 'server.log'));
  writeFileSync(propertiesPath, serverProperties(dataDir, state, options.config ?? {}));
  writeFileSync(log4jPath, log4j2Properties(dataDir));
  const jvmArgs = [...defaultJvmOptions, ...(options.jvmOptions ?? []), `-Dlog4j2.configurationFile=${log4jPath}`, '-cp', cp];

  let formatMs = 0;
  if (format) {
    const formatStart = performance.now();
    // --standalone: this controller alone is the initial voter set of a dynamic quorum.
    const formatted = await runJava([...cdsOptions(cp, false).options, ...jvmArgs, 'kafka.tools.StorageTool', 'format', '--cluster-id', state.clusterId, '--config', propertiesPath, '--standalone'], dataDir);
    formatMs = Math.round(performance.now() - formatStart);
    if (formatted.code !== 0) {
      throw new Error(`kafka-storage format failed (exit ${formatted.code}):\n${formatted.output}\n${failureReport(dataDir, logStart)}`);
    }
    writeFileSync(join(dataDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
  }

  const cds = cdsOptions(cp, true);
  const command = [...deathSignalPrefix(), javaBin(), ...cds.options, ...jvmArgs, 'kafka.Kafka', propertiesPath];
  const out = openSync(join(dataDir, 'jvm.out'), 'a');
  const spawnedAt = performance.now();
  let child: ChildProcess;
  try {
    child = spawn(command[0]!, command.slice(1), { cwd: dataDir, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  live.add(child);
  // (an object, so that TypeScript does not narrow `exit` to null in the loop below)
  const status: { exit: KafkaExit | null; forced: boolean } = { exit: null, forced: false };
  const exited = new Promise<KafkaExit>((resolve) => {
    const ended = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (status.exit !== null) return;
      live.delete(child);
      status.exit = { code, signal, forced: status.forced };
      if (cds.dumpTo !== null) {
        // The JVM wrote the archive as it exited; keep it only after a clean exit.
        const clean = (code === 0 || code === 143) && !status.forced;
        try {
          if (clean && existsSync(cds.dumpTo)) renameSync(cds.dumpTo, cds.archive!);
          else rmSync(cds.dumpTo, { force: true });
        } catch {
          rmSync(cds.dumpTo, { force: true });
        }
      }
      resolve(status.exit);
    };
    child.once('exit', ended);
    child.once('error', () => ended(null, null));
  });

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const deadline = spawnedAt + timeoutMs;
  for (;;) {
    if (status.exit !== null) {
      const report = failureReport(dataDir, logStart);
      const message = `Kafka exited during start-up (code ${status.exit.code}, signal ${status.exit.signal}); ${report}`;
      if (format && errorsSince(dataDir, logStart).some((e) => e.includes('Address already in use'))) throw new BindError(message);
      throw new Error(message);
    }
    if (await probe(state.port)) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`Kafka was not ready within ${timeoutMs} ms (${HOST}:${state.port}); ${failureReport(dataDir, logStart)}`);
    }
    await sleep(200);
  }
  const startupMs = Math.round(performance.now() - spawnedAt);

  let stopping: Promise<KafkaExit> | null = null;
  const removeOwnedDir = (): void => {
    if (owned) {
      rmSync(dataDir, { recursive: true, force: true });
      ownedDirs.delete(dataDir);
    }
  };
  return {
    host: HOST,
    port: state.port,
    bootstrap: `${HOST}:${state.port}`,
    controllerPort: state.controllerPort,
    clusterId: state.clusterId,
    nodeId: NODE_ID,
    dataDir,
    startupMs,
    formatMs,
    pid: child.pid!,
    command,
    exited,
    stop(): Promise<KafkaExit> {
      stopping ??= (async () => {
        if (status.exit === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => {
            status.forced = true;
            child.kill('SIGKILL');
          }, 20_000);
          await exited;
          clearTimeout(timer);
        }
        const exit = await exited;
        removeOwnedDir();
        return exit;
      })();
      return stopping;
    },
    async kill(): Promise<KafkaExit> {
      if (status.exit === null) child.kill('SIGKILL');
      return exited;
    },
    logTail(lines = 50): string {
      return logTailOf(dataDir, lines);
    },
    rssBytes(): number | null {
      if (status.exit !== null) return null;
      try {
        const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return match === null ? null : Number(match[1]) * 1024;
      } catch {
        return null;
      }
    },
  };
}
