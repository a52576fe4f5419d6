/**
 * What every Apache Kafka JVM the tests start shares (test/support/kafka: startKafka's
 * single broker, startKafkaCluster's nodes): the Java and classpath checks, class data
 * sharing, the JVM options, log4j2 config, temp dirs and JVMs that never outlive this process,
 * free ports, log reading for failure messages, and spawning one Kafka JVM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const kafkaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'support', 'kafka');

export const HOST = '127.0.0.1';

/** How the JVM ended. */
export interface KafkaExit {
  /** Exit code: 0 or 143 after SIGTERM (Kafka's shutdown hook ran), null if killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stop() gave up waiting for SIGTERM and sent SIGKILL. */
  forced: boolean;
}

// ---------------------------------------------------------------------------------------
// Availability and the classpath

export const javaBin = (): string => process.env['BROOK_KAFKA_JAVA'] ?? 'java';

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

export function commandRuns(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return result.status === 0;
}

let javaVersion: string | undefined;

/** `java -version` output ('' when java does not run). */
export function javaVersionText(): string {
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

/** The Kafka release pom.xml names (the oracle); build.sh resolves another with --kafka-version. */
export const DEFAULT_KAFKA_VERSION = '4.4.0';

const classpaths = new Map<string, string>();

/**
 * Resolves the classpath of Kafka `version` (default 4.4.0) when missing or stale
 * (build.sh, `--kafka-version` for another release); returns it.
 */
export function kafkaClasspath(version: string = DEFAULT_KAFKA_VERSION): string {
  let classpath = classpaths.get(version);
  if (classpath === undefined) {
    const args = version === DEFAULT_KAFKA_VERSION ? [] : ['--kafka-version', version];
    const result = spawnSync('bash', [join(kafkaDir, 'build.sh'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) throw new Error(`test/support/kafka/build.sh ${args.join(' ')} failed (${result.status})`);
    classpath = readFileSync(result.stdout.trim(), 'utf8').trim();
    classpaths.set(version, classpath);
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
export function cdsOptions(cp: string, dump: boolean): { options: string[]; dumpTo: string | null; archive: string | null } {
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

export function installExitHooks(): void {
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
export function deathSignalPrefix(): string[] {
  setprivWorks ??= commandRuns('setpriv', ['--pdeathsig', 'SIGKILL', '--', 'true']);
  return setprivWorks ? ['setpriv', '--pdeathsig', 'SIGKILL', '--'] : [];
}

/** Two distinct ports the OS considers free right now (closed again: a small race, accepted). */
export async function freePorts(count: number): Promise<number[]> {
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
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export function log4j2Properties(dataDir: string): string {
  const file = join(dataDir, 'server.log').replace(/\\/g, '\\\\');
  return [
    '# written by test/support/kafka/kafka-jvm.ts: everything to server.log, nothing to stdout',
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

export const defaultJvmOptions = [
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

export function runJava(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(javaBin(), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

export function tailOfFile(path: string, lines: number): string {
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
export function errorsSince(dataDir: string, fromOffset: number): string[] {
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

export function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** A start-up failure message: the first errors of this run, then the log's last lines. */
export function failureReport(dataDir: string, fromOffset: number): string {
  const errors = errorsSince(dataDir, fromOffset);
  const first = errors.length === 0 ? '' : `errors logged (first ${Math.min(errors.length, 8)} of ${errors.length}):\n${errors.slice(0, 8).join('\n')}\n`;
  return `${first}log tail (${join(dataDir, 'server.log')}):\n${logTailOf(dataDir, 40)}`;
}

export function logTailOf(dataDir: string, lines: number): string {
  const server = tailOfFile(join(dataDir, 'server.log'), lines);
  const jvm = tailOfFile(join(dataDir, 'jvm.out'), lines);
  return jvm === '' ? server : `${server}\n--- jvm.out (stdout/stderr) ---\n${jvm}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Ready: ApiVersions answered and Metadata lists this broker at its advertised port. */

/** Removes `dir` when this process exits, unless releaseTempDir() removed it first. */
export function trackTempDir(dir: string): void {
  installExitHooks();
  ownedDirs.add(dir);
}

export function releaseTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  ownedDirs.delete(dir);
}

/** `key=value` lines of a Java properties file. */
export function propertiesText(props: Record<string, string>, writer: string): string {
  const escape = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# written by ${writer}\n${Object.entries(props).map(([k, v]) => `${escape(k)}=${escape(v)}`).join('\n')}\n`;
}

/** One running Kafka JVM (`kafka.Kafka <properties>`). */
export interface KafkaJvm {
  readonly pid: number;
  /** The whole command line. */
  readonly command: readonly string[];
  /** Settles when the JVM exits, however it ends. */
  readonly exited: Promise<KafkaExit>;
  /** How it ended, or null while it runs. */
  exit(): KafkaExit | null;
  /** SIGTERM (Kafka's controlled shutdown), SIGKILL after `graceMs`; resolves on exit. */
  terminate(graceMs?: number): Promise<KafkaExit>;
  /** SIGKILL; resolves on exit. */
  kill(): Promise<KafkaExit>;
  /** Resident set size in bytes (from /proc), or null once it has exited. */
  rssBytes(): number | null;
  /** It writes the CDS archive on a clean exit (there was none yet). */
  readonly dumpsCds: boolean;
}

/**
 * Spawns `java ... kafka.Kafka <propertiesPath>` in `dataDir` (stdout/stderr appended to
 * `<dataDir>/jvm.out`), with the CDS archive when there is one. `dumpCds`: when there is none,
 * this JVM writes it as it exits cleanly (a few seconds longer, once per machine).
 */
export function spawnKafkaJvm(cp: string, dataDir: string, propertiesPath: string, jvmArgs: readonly string[], dumpCds: boolean): KafkaJvm {
  installExitHooks();
  const cds = cdsOptions(cp, dumpCds);
  const command = [...deathSignalPrefix(), javaBin(), ...cds.options, ...jvmArgs, 'kafka.Kafka', propertiesPath];
  const out = openSync(join(dataDir, 'jvm.out'), 'a');
  let child: ChildProcess;
  try {
    child = spawn(command[0]!, command.slice(1), { cwd: dataDir, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  live.add(child);
  // (an object, so that TypeScript does not narrow `exit` to null where it is polled)
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
  return {
    pid: child.pid!,
    command,
    exited,
    dumpsCds: cds.dumpTo !== null,
    exit: () => status.exit,
    async terminate(graceMs = 20_000): Promise<KafkaExit> {
      if (status.exit === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          status.forced = true;
          child.kill('SIGKILL');
        }, graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
    async kill(): Promise<KafkaExit> {
      if (status.exit === null) child.kill('SIGKILL');
      return exited;
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
