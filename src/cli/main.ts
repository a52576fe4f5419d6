/**
 * The `brook` command line: runs the command named by the first argument (one module per
 * command in commands/: broker, topics, produce, consume, groups, configs, cluster, users) and turns its outcome into
 * the exit code. A command that throws gets one line on stderr; usage errors exit 2, other
 * failures 1, so scripts can tell a wrong invocation from a failed one. It also owns the
 * process's signals: the first SIGINT/SIGTERM asks the command to stop (its context's
 * `interrupted` signal aborts) and, for client commands, exits anyway if it has not stopped
 * a few seconds later; a second signal exits at once (130/143). docs/CLI.md is the contract.
 * A command's module is imported only when it runs: `brook consume` does not compile the
 * broker, and start-up time counts in every short command and every pipe.
 */
import { readFileSync } from 'node:fs';

import type { Command } from './command.js';

interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

const commands: readonly CommandEntry[] = [
  { name: 'broker', summary: 'run a Kafka-compatible broker', load: async () => (await import('./commands/broker.js')).brokerCommand },
  { name: 'topics', summary: 'create, list, describe and delete topics', load: async () => (await import('./commands/topics.js')).topicsCommand },
  { name: 'produce', summary: 'send stdin lines as records to a topic', load: async () => (await import('./commands/produce.js')).produceCommand },
  { name: 'consume', summary: 'print records of a topic (alone or as a group member)', load: async () => (await import('./commands/consume.js')).consumeCommand },
  { name: 'groups', summary: 'list, describe, watch the lag of, reset offsets of and delete consumer and share groups; list and describe streams groups; show the rebalance timeline of a group', load: async () => (await import('./commands/groups.js')).groupsCommand },
  { name: 'configs', summary: 'describe and alter topic and broker configs', load: async () => (await import('./commands/configs.js')).configsCommand },
  { name: 'cluster', summary: 'show the cluster: brokers, controller, topics (as kcat -L)', load: async () => (await import('./commands/cluster.js')).clusterCommand },
  { name: 'users', summary: 'add, list and delete SASL users (SCRAM, PLAIN)', load: async () => (await import('./commands/users.js')).usersCommand },
];

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const lines = [
    'Usage: brook <command> [options]',
    '',
    'Brook: a Kafka-compatible broker with a group coordinator, and Kafka clients.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`),
    `  ${'help'.padEnd(12)} show this help`,
    `  ${'version'.padEnd(12)} print the version`,
    '',
    'Run `brook <command> --help` for a command\'s options.',
  ];
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${usage()}\n`);
    // No command at all is a usage error, like an unknown one.
    return name === undefined ? 2 : 0;
  }
  if (name === 'version' || name === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`brook: unknown command '${name}' (see 'brook --help')\n`);
    return 2;
  }
  const command = await entry.load();
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    const exitCode = signal === 'SIGINT' ? 130 : 143;
    if (interrupt.signal.aborted) process.exit(exitCode); // the second one: at once
    interrupt.abort(signal);
    if (command.gracefulStopMs !== null) {
      setTimeout(() => {
        process.stderr.write(`brook ${name}: did not stop within ${command.gracefulStopMs} ms of ${signal}; exiting\n`);
        process.exit(exitCode);
      }, command.gracefulStopMs).unref();
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await command.run(rest, { interrupted: interrupt.signal });
  } catch (err) {
    if (interrupt.signal.aborted) {
      process.stderr.write(`brook ${name}: interrupted by ${String(interrupt.signal.reason)}\n`);
      return interrupt.signal.reason === 'SIGINT' ? 130 : 143;
    }
    // One clear line on stderr and a non-zero exit: the command-line contract.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`brook ${name}: ${message}\n`);
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && (code === 'ERR_USAGE' || code.startsWith('ERR_PARSE_ARGS_')) ? 2 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
