/**
 * The `brook` command line: runs the command named by the first argument (one module per
 * command in commands/: broker, topics, produce, consume, groups, cluster) and turns its outcome into
 * the exit code. A command that throws gets one line on stderr; usage errors exit 2, other
 * failures 1, so scripts can tell a wrong invocation from a failed one. It also owns the
 * process's signals: the first SIGINT/SIGTERM asks the command to stop (its context's
 * `interrupted` signal aborts) and, for client commands, exits anyway if it has not stopped
 * a few seconds later; a second signal exits at once (130/143). docs/CLI.md is the contract.
 */
import { readFileSync } from 'node:fs';

import type { Command } from './command.js';
import { brokerCommand } from './commands/broker.js';
import { topicsCommand } from './commands/topics.js';
import { groupsCommand } from './commands/groups.js';
import { produceCommand } from './commands/produce.js';
import { consumeCommand } from './commands/consume.js';
import { configsCommand } from './commands/configs.js';
import { clusterCommand } from './commands/cluster.js';
import { usersCommand } from './commands/users.js';

const commands: Command[] = [brokerCommand, topicsCommand, produceCommand, consumeCommand, groupsCommand, configsCommand, clusterCommand, usersCommand];

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
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`brook: unknown command '${name}' (see 'brook --help')\n`);
    return 2;
  }
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
