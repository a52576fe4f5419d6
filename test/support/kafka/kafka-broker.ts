/**
 * Starts a real Apache Kafka 4.4 broker for differential tests: one JVM, single-node KRaft
 * (combined broker and controller), its jars resolved from Maven Central by
 * test/support/kafka/build.sh, listening on 127.0.0.1 ports the OS picked. `kafkaVersion`
 * starts another release from the same pom (e.g. 4.1.2, for Brook's client against an older
 * broker).
 *
 *   const kafka = await startKafka({ config: { 'num.partitions': '1' } });
 *   ... talk to kafka.bootstrap ...
 *   await kafka.stop();
 *
 * Storage is formatted like the 4.4 quickstart does it (a dynamic quorum, `kafka-storage
 * format --standalone`). The broker logs to `<dataDir>/server.log` only; the JVM's own
 * stdout/stderr go to `<dataDir>/jvm.out`. The JVM dies with this process: it is started
 * under `setpriv --pdeathsig SIGKILL` when setpriv exists, and killed from 'exit' and
 * signal handlers otherwise.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawConnection } from './raw-client.js';
import {
  DEFAULT_KAFKA_VERSION, HOST, defaultJvmOptions, errorsSince, failureReport, fileSize, freePorts, kafkaClasspath, log4j2Properties, logTailOf, propertiesText,
  randomClusterId, releaseTempDir, runJava, cdsOptions, sleep, spawnKafkaJvm, trackTempDir, type KafkaExit,
} from './kafka-jvm.js';

export { DEFAULT_KAFKA_VERSION, kafkaAvailable, kafkaClasspath, type KafkaExit } from './kafka-jvm.js';

const NODE_ID = 1;
/** Written into dataDir: what a later start on the same directory must reuse. */
const STATE_FILE = 'brook-kafka.json';

export interface KafkaBrokerOptions {
  /**
   * The Apache Kafka release to run (its classpath from `build.sh --kafka-version`); default
   * 4.4.0. A restart on a dataDir runs the release that formatted it.
   */
  kafkaVersion?: string;
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
  /**
   * Also open a listener named SSL (security protocol SSL) on a free port; its `ssl.*`
   * settings go in `config`. Its port is `sslPort`.
   */
  sslListener?: boolean;
  /**
   * Also open these listeners, each named after its security protocol (so its settings go in
   * `config` as `listener.name.sasl_ssl.*`), on free ports; their ports are `listenerPorts`.
   * The broker and controller still talk to each other over PLAINTEXT.
   */
  saslListeners?: readonly ('SASL_PLAINTEXT' | 'SASL_SSL')[];
  /**
   * A fixed port for some of `saslListeners` instead of a free one (for clients that hardcode
   * their bootstrap address, e.g. KafkaJS's examples: SASL_SSL on 9094). A port already taken
   * fails the start.
   */
  saslListenerPorts?: Readonly<Partial<Record<'SASL_PLAINTEXT' | 'SASL_SSL', number>>>;
  /** Extra `kafka-storage format` arguments, e.g. `['--add-scram', 'SCRAM-SHA-512=[name=admin,password=admin-secret]']`. */
  formatArgs?: readonly string[];
}

export interface KafkaBroker {
  /** The Apache Kafka release running, e.g. '4.4.0'. */
  readonly kafkaVersion: string;
  /** '127.0.0.1' */
  readonly host: string;
  /** The client (PLAINTEXT) listener port, chosen free by the OS. */
  readonly port: number;
  /** `${host}:${port}` */
  readonly bootstrap: string;
  /** The SSL listener's port (options.sslListener), else null. */
  readonly sslPort: number | null;
  /** The ports of options.saslListeners, by listener name. */
  readonly listenerPorts: Readonly<Record<string, number>>;
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
// Configuration files

interface BrokerState {
  /** Absent in a state file written before releases could be chosen: 4.4.0. */
  kafkaVersion?: string;
  clusterId: string;
  port: number;
  controllerPort: number;
  sslPort?: number;
  saslPorts?: Record<string, number>;
}

function serverProperties(dataDir: string, state: BrokerState, extra: Record<string, string>): string {
  const sasl = Object.entries(state.saslPorts ?? {});
  const ssl = (state.sslPort !== undefined ? `,SSL://${HOST}:${state.sslPort}` : '') + sasl.map(([name, port]) => `,${name}://${HOST}:${port}`).join('');
  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(NODE_ID),
    // 4.4's dynamic quorum (KIP-853), as in the quickstart; formatted with --standalone.
    'controller.quorum.bootstrap.servers': `${HOST}:${state.controllerPort}`,
    listeners: `PLAINTEXT://${HOST}:${state.port},CONTROLLER://${HOST}:${state.controllerPort}${ssl}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${state.port},CONTROLLER://${HOST}:${state.controllerPort}${ssl}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': `PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${state.sslPort !== undefined ? ',SSL:SSL' : ''}${sasl.map(([name]) => `,${name}:${name}`).join('')}`,
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
  return propertiesText(props, 'test/support/kafka/kafka-broker.ts');
}

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
  const owned = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'brook-kafka-'));
  if (owned) trackTempDir(dataDir);
  mkdirSync(dataDir, { recursive: true });
  try {
    const statePath = join(dataDir, STATE_FILE);
    if (existsSync(statePath)) {
      // A restart (e.g. after kill()): same cluster, same ports, storage already formatted.
      const state = JSON.parse(readFileSync(statePath, 'utf8')) as BrokerState;
      const formattedBy = state.kafkaVersion ?? DEFAULT_KAFKA_VERSION;
      if (options.kafkaVersion !== undefined && options.kafkaVersion !== formattedBy) {
        throw new Error(`${dataDir} was formatted by Kafka ${formattedBy}, not ${options.kafkaVersion}`);
      }
      return await launch(kafkaClasspath(formattedBy), dataDir, owned, { ...state, kafkaVersion: formattedBy }, false, options);
    }
    if (existsSync(join(dataDir, 'logs', 'meta.properties'))) {
      throw new Error(`${dataDir} holds Kafka storage that was not formatted by this harness (no ${STATE_FILE})`);
    }
    const kafkaVersion = options.kafkaVersion ?? DEFAULT_KAFKA_VERSION;
    const cp = kafkaClasspath(kafkaVersion);
    for (let attempt = 1; ; attempt++) {
      const saslListeners = options.saslListeners ?? [];
      const fixed = saslListeners.filter((name) => options.saslListenerPorts?.[name] !== undefined).length;
      const [port, controllerPort, ...more] = await freePorts(2 + saslListeners.length - fixed + (options.sslListener ? 1 : 0));
      const saslPorts = Object.fromEntries(saslListeners.map((name) => [name, options.saslListenerPorts?.[name] ?? more.shift()!]));
      const sslPort = more.shift();
      const state: BrokerState = {
        kafkaVersion, clusterId: randomClusterId(), port: port!, controllerPort: controllerPort!, ...(sslPort !== undefined ? { sslPort } : {}),
        ...(saslListeners.length > 0 ? { saslPorts } : {}),
      };
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
    if (owned) releaseTempDir(dataDir);
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
    // (Kafka 4.1 formats and starts the same way, with the same server.properties: KIP-853's
    // --standalone is in Kafka since 3.9, and 4.1 knows every setting written above.)
    const formatted = await runJava([...cdsOptions(cp, false).options, ...jvmArgs, 'kafka.tools.StorageTool', 'format', '--cluster-id', state.clusterId, '--config', propertiesPath, '--standalone', ...(options.formatArgs ?? [])], dataDir);
    formatMs = Math.round(performance.now() - formatStart);
    if (formatted.code !== 0) {
      throw new Error(`kafka-storage format failed (exit ${formatted.code}):\n${formatted.output}\n${failureReport(dataDir, logStart)}`);
    }
    writeFileSync(join(dataDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
  }

  const spawnedAt = performance.now();
  const jvm = spawnKafkaJvm(cp, dataDir, propertiesPath, jvmArgs, true);
  const { command, exited } = jvm;

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const deadline = spawnedAt + timeoutMs;
  for (;;) {
    const exit = jvm.exit();
    if (exit !== null) {
      const report = failureReport(dataDir, logStart);
      const message = `Kafka exited during start-up (code ${exit.code}, signal ${exit.signal}); ${report}`;
      if (format && errorsSince(dataDir, logStart).some((e) => e.includes('Address already in use'))) throw new BindError(message);
      throw new Error(message);
    }
    if (await probe(state.port)) break;
    if (performance.now() > deadline) {
      await jvm.kill();
      throw new Error(`Kafka was not ready within ${timeoutMs} ms (${HOST}:${state.port}); ${failureReport(dataDir, logStart)}`);
    }
    await sleep(200);
  }
  const startupMs = Math.round(performance.now() - spawnedAt);

  let stopping: Promise<KafkaExit> | null = null;
  const removeOwnedDir = (): void => {
    if (owned) releaseTempDir(dataDir);
  };
  return {
    kafkaVersion: state.kafkaVersion ?? DEFAULT_KAFKA_VERSION,
    host: HOST,
    port: state.port,
    bootstrap: `${HOST}:${state.port}`,
    sslPort: state.sslPort ?? null,
    listenerPorts: state.saslPorts ?? {},
    controllerPort: state.controllerPort,
    clusterId: state.clusterId,
    nodeId: NODE_ID,
    dataDir,
    startupMs,
    formatMs,
    pid: jvm.pid,
    command,
    exited,
    stop(): Promise<KafkaExit> {
      stopping ??= (async () => {
        const exit = await jvm.terminate(20_000);
        removeOwnedDir();
        return exit;
      })();
      return stopping;
    },
    kill: () => jvm.kill(),
    logTail(lines = 50): string {
      return logTailOf(dataDir, lines);
    },
    rssBytes: () => jvm.rssBytes(),
  };
}
