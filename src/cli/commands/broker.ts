/**
 * `brook broker`: runs the broker until SIGTERM/SIGINT. The contract (docs/CLI.md):
 * prints one line containing `listening on HOST:PORT` when ready (the first listener's
 * advertised address); shuts down cleanly with exit code 0 on a signal.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import { Broker } from '../../broker/broker.js';
import { BROKER_CONFIG_ENTRIES, defaultText, type AnySettingDef } from '../../broker/broker-configs.js';
import { configFromProperties, settingFromText, type PartialBrokerConfig } from '../../broker/broker-properties.js';
import type { Command } from '../command.js';
import { parseProperties } from '../../util/java-properties.js';
import { createLogger, parseLogFormat, parseLogLevel } from '../../util/log.js';
import { UsageError } from '../options.js';

/** The settings that have a flag, in the table's order. */
const FLAGGED = BROKER_CONFIG_ENTRIES.filter((d): d is AnySettingDef => d.kind === 'setting' && d.flag !== undefined);

/** A default as --help and docs/CLI.md describe it: the value, then notes (Markdown code spans only). */
export interface DefaultDoc {
  readonly value: string;
  readonly notes: readonly string[];
}

/** A flag as --help and docs/CLI.md describe it (Markdown code spans only). */
export interface FlagDoc {
  readonly flag: string;
  readonly default: DefaultDoc | null;
  readonly doc: string;
}

/** A setting's default: its value, a note on it, and Kafka's where it differs. */
export function settingDefaultDoc(d: AnySettingDef): DefaultDoc {
  const text = defaultText(d);
  const notes = d.defaultNote === undefined ? [] : [d.defaultNote];
  if (d.kafkaDefault !== undefined && d.kafkaDefault !== null && d.kafkaDefault !== text) notes.push(`Kafka: \`${d.kafkaDefault}\``);
  return { value: d.defaultDoc ?? (text === null ? 'none' : `\`${text}\``), notes };
}

/** `value (note; note)`, as the docs' tables show a default. */
export function defaultMarkdown(d: DefaultDoc | null): string {
  if (d === null) return '';
  return d.notes.length === 0 ? d.value : `${d.value} (${d.notes.join('; ')})`;
}

const value = (v: string): DefaultDoc => ({ value: v, notes: [] });

/** Every flag: the settings' (in the table's order), then the command's own. */
export const BROKER_FLAG_DOCS: readonly FlagDoc[] = [
  ...FLAGGED.map((d) => ({
    flag: `--${d.flag!.name} ${d.flag!.arg}`, default: settingDefaultDoc(d), doc: d.brookOnly === true ? d.doc : `Kafka's \`${d.name}\`: ${d.doc}`,
  })),
  { flag: '--log-level LEVEL', default: value('`info`, or `BROOK_LOG_LEVEL`'), doc: '`debug`, `info`, `warn`, `error` or `silent` (a bad value: exit 2)' },
  { flag: '--log-format FORMAT', default: value('`text`, or `BROOK_LOG_FORMAT`'), doc: '`text` (logfmt: `key=value`) or `json` (one object per line)' },
  { flag: '--config FILE', default: value('none'), doc: "a Kafka-style properties file (Java's `.properties` format); flags given too win over it" },
  { flag: '-h, --help', default: null, doc: 'show this help' },
];

const WIDTH = 100;

/** Words of `text` in lines of at most WIDTH characters, each but the first indented by `indent` spaces. */
function wrap(text: string, indent: number, first = indent): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const start = lines.length === 0 ? first : indent;
    if (line !== '' && start + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

const plain = (markdown: string): string => markdown.replaceAll('`', '');

function flagLine(f: FlagDoc): string {
  const dflt = f.default === null ? '' : ` (default ${plain([f.default.value, ...f.default.notes].join('; '))})`;
  return `  ${f.flag.padEnd(40)} ${wrap(`${plain(f.doc)}${dflt}`, 43)}`;
}

/** Every name --config takes, in the table's order. */
function propertyNames(): string[] {
  return BROKER_CONFIG_ENTRIES.flatMap((d) => {
    if (d.kind === 'setting') return [d.aliases.length === 0 ? d.name : `${d.name} (or ${d.aliases.join(', ')})`];
    if (d.kind === 'family') return d.properties.flatMap((p) => p.names);
    return [];
  });
}

export const BROKER_HELP = `Usage: brook broker [options]

Runs a Kafka-compatible broker.

Options:
${BROKER_FLAG_DOCS.map(flagLine).join('\n')}

Logs go to stderr. Besides requests and storage, the broker logs every group's lifecycle at
info: members joining, leaving or expiring, rebalances starting (with the reason) and
completing (generation, members, duration), offsets expiring, groups deleted.

${wrap(`Properties understood in --config (docs/CLI.md describes each): ${propertyNames().join(', ')}, and the broker settings that are topic defaults (log.retention.hours/ms/bytes, log.segment.bytes, log.roll.ms, message.max.bytes, log.message.timestamp.type, ...).`, 0)}`;

export const BROKER_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  ...Object.fromEntries(FLAGGED.map((d) => [d.flag!.name, { type: 'string' as const }])),
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** A host as a URL writes it (an IPv6 address in brackets). */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** A malformed option value is a usage error (exit code 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export const brokerCommand: Command = {
  name: 'broker',
  gracefulStopMs: null,
  async run(args, context) {
    const { values } = parseArgs({ args, options: BROKER_OPTIONS, strict: true }) as { values: Record<string, string | boolean | undefined> };
    if (values['help'] === true) {
      process.stdout.write(`${BROKER_HELP}\n`);
      return 0;
    }
    const file = values['config'] as string | undefined;
    const config: PartialBrokerConfig = file !== undefined ? configFromProperties(parseProperties(readFileSync(file, 'utf8'))) : {};
    for (const d of FLAGGED) {
      const text = values[d.flag!.name] as string | undefined;
      if (text !== undefined) (config as Record<string, unknown>)[d.option] = settingFromText(d, text, `--${d.flag!.name}`, d.flag!.parse);
    }
    const [logLevel, logFormat] = [values['log-level'] as string | undefined, values['log-format'] as string | undefined];
    const level = logLevel !== undefined ? usage(() => parseLogLevel(logLevel)) : undefined;
    const format = logFormat !== undefined ? usage(() => parseLogFormat(logFormat)) : undefined;
    const broker = await Broker.start({ ...config, log: createLogger('broker', level, undefined, format) });
    process.stdout.write(`brook broker listening on ${broker.host}:${broker.port}\n`);
    if (broker.metricsPort !== null) process.stdout.write(`brook broker metrics at http://${broker.host}:${broker.metricsPort}/metrics\n`);
    if (broker.consolePort !== null) process.stdout.write(`brook broker console at http://${urlHost(broker.config.consoleHost)}:${broker.consolePort}/\n`);
    return new Promise<number>((resolve) => {
      const shutdown = (signal: string): void => {
        process.stderr.write(`brook broker: ${signal}, shutting down\n`);
        broker.stop().then(() => resolve(0), (err: unknown) => {
          process.stderr.write(`brook broker: shutdown failed: ${(err as Error).message}\n`);
          resolve(1);
        });
      };
      // A second signal exits at once (the CLI's main): acknowledged data is already fsynced.
      context.interrupted.addEventListener('abort', () => shutdown(String(context.interrupted.reason)), { once: true });
      // It stopped itself after a failure it cannot serve through: exit non-zero, for a supervisor to restart it.
      void broker.failed.then((err) => {
        process.stderr.write(`brook broker: ${err.message}; stopped\n`);
        resolve(1);
      });
    });
  },
};
