/**
 * `brook produce TOPIC`: what `kafka-console-producer.sh` and `kcat -P` do. One record per
 * stdin line, read as a stream (huge inputs are fine: reading pauses while too many records
 * await their acknowledgement). Records go out with `send(record, callback)`: no promise per
 * line. A line is the value, or with --key-separator "KEY SEP VALUE" split at the first SEP
 * (a line without it is an error, as Kafka's console producer's "No key separator found on
 * line number N"), or with --input-format json an object with key, value, headers,
 * partition and timestamp (produce-input.ts). A bad line stops the command; records before
 * it are still delivered.
 */
import { parseArgs } from 'node:util';
import type { Readable } from 'node:stream';
import { Producer } from '../../client/producer/producer.js';
import { parseAcks, type CompressionName } from '../../client/producer/options.js';
import { INTERRUPTED_CLOSE_TIMEOUT_MS, type Command } from '../command.js';
import { LineSplitter } from '../line-splitter.js';
import type { RecordCallback } from '../../client/producer/delivery.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';
import { parseEncoding } from '../record-format.js';
import { InputLineError, decodeField, parseHeaderOption, parseJsonRecord, type InputRecord } from '../produce-input.js';

export const PRODUCE_HELP = `Usage:
  brook produce TOPIC [--key-separator SEP] [--input-format line|json] [--header K=V ...]
                      [--partition P] [--tombstone] [--acks all|1|0]

Reads stdin and sends one record per line to TOPIC; with --key-separator, each line is
"KEY<SEP>VALUE". A summary (records, seconds, records/s) goes to stderr at the end.

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  --key-separator SEP                      split each line into key and value at the first SEP
  --input-format line|json                 line: the line is the value (default); json: each
                                           line is {"key","value","headers","partition","timestamp"},
                                           all optional; a null value is a tombstone; headers
                                           {"k":"v"}, [["k","v"]] or [{"key","value"}]
  -H, --header K=V                         add this header to every record (repeatable)
  -p, --partition P                        send every record to partition P (default: by key,
                                           as Kafka's partitioner)
  --tombstone                              an empty value is sent as null (a tombstone)
  --key-encoding utf8|hex|base64           how keys are written in the input (default utf8)
  --value-encoding utf8|hex|base64         how values (and JSON header values) are written
  --acks all|-1|1|0                        acknowledgements to wait for (default all)
  --compression none|gzip|snappy|lz4|zstd  batch compression (default none)
  --linger-ms N                            wait up to N ms to fill a batch (default 5)
  --batch-size N                           batch size in bytes (default 1000000)
  -h, --help                               show this help`;

export const PRODUCE_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  'key-separator': { type: 'string' },
  'input-format': { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  partition: { type: 'string', short: 'p' },
  tombstone: { type: 'boolean' },
  'key-encoding': { type: 'string' },
  'value-encoding': { type: 'string' },
  acks: { type: 'string' },
  compression: { type: 'string' },
  'linger-ms': { type: 'string' },
  'batch-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Reading pauses above this many unacknowledged records and resumes below half of it. */
const MAX_OUTSTANDING = 50_000;

function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}

export class MissingKeySeparatorError extends Error {
  readonly code = 'ERR_NO_KEY_SEPARATOR' as const;
}

export const produceCommand: Command = {
  name: 'produce',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: PRODUCE_OPTIONS });
    if (values.help) {
      process.stdout.write(`${PRODUCE_HELP}\n`);
      return 0;
    }
    const [topic, extra] = positionals;
    if (!topic) throw new UsageError('produce needs a TOPIC (see brook produce --help)');
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const separator = values['key-separator'];
    if (separator === '') throw new UsageError('--key-separator must not be empty');
    const inputFormat = values['input-format'] ?? 'line';
    if (inputFormat !== 'line' && inputFormat !== 'json') throw new UsageError(`--input-format must be line or json, got '${inputFormat}'`);
    if (inputFormat === 'json' && separator !== undefined) throw new UsageError('--key-separator applies to --input-format line only');
    const keyEncoding = parseEncoding('key-encoding', values['key-encoding']);
    const valueEncoding = parseEncoding('value-encoding', values['value-encoding']);
    const fixedHeaders = (values.header ?? []).map(parseHeaderOption);
    const fixedPartition = intOption('partition', values.partition);
    const tombstone = values.tombstone ?? false;
    let acks: number;
    try {
      acks = parseAcks(values.acks);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const producer = new Producer({
      ...connectionFrom(values), clientId: 'brook-console-producer', acks: acks === -1 ? 'all' : (acks as 0 | 1),
      compression: (values.compression ?? 'none') as CompressionName,
      lingerMs: intOption('linger-ms', values['linger-ms']), batchSize: intOption('batch-size', values['batch-size']),
      // The console producer should not sit for a minute when no broker answers.
      maxBlockMs: 30_000,
    });
    try {
      // Fail now, with the broker address, rather than after maxBlockMs of waiting for metadata.
      await producer.connect({ signal: context.interrupted });
    } catch (err) {
      await producer.close(0).catch(() => undefined);
      throw err;
    }
    const started = process.hrtime.bigint();
    const tty = process.stderr.isTTY === true;
    let sent = 0;
    let acked = 0;
    let outstanding = 0;
    let failure: Error | null = null;
    const input: Readable = process.stdin;
    let paused = false;
    // One callback for every record.
    const onDelivery: RecordCallback = (err) => {
      if (err) failure ??= err;
      else acked++;
      outstanding--;
      if (paused && (outstanding < MAX_OUTSTANDING / 2 || failure)) {
        paused = false;
        input.resume();
      }
    };
    let lineNumber = 0;
    /** One input line → a record, or null when the line is to be skipped. */
    const toRecord = (line: string): InputRecord | null => {
      if (inputFormat === 'json') {
        if (line.trim() === '') return null;
        const r = parseJsonRecord(line, keyEncoding, valueEncoding);
        return fixedHeaders.length > 0 ? { ...r, headers: [...fixedHeaders, ...r.headers] } : r;
      }
      let key: string | null = null;
      let value = line;
      if (separator !== undefined) {
        const at = line.indexOf(separator);
        if (at < 0) throw new MissingKeySeparatorError(`No key separator found on line number ${lineNumber}: '${line}'`);
        key = line.slice(0, at);
        value = line.slice(at + separator.length);
      }
      return {
        key: key === null ? null : decodeField(key, keyEncoding),
        value: tombstone && value === '' ? null : decodeField(value, valueEncoding),
        headers: fixedHeaders,
      };
    };
    const splitter = new LineSplitter((line) => {
      lineNumber++;
      if (failure) return;
      let record: InputRecord | null;
      try {
        record = toRecord(line);
      } catch (err) {
        failure = err instanceof InputLineError ? new InputLineError(`line ${lineNumber}: ${err.message}`) : (err as Error);
        return;
      }
      if (record === null) return;
      outstanding++;
      sent++;
      producer.send({
        topic, key: record.key, value: record.value,
        ...(record.headers.length > 0 ? { headers: record.headers } : {}),
        ...(record.partition !== undefined ? { partition: record.partition } : fixedPartition !== undefined ? { partition: fixedPartition } : {}),
        ...(record.timestamp !== undefined ? { timestamp: record.timestamp } : {}),
      }, onDelivery);
    });
    const progress = tty ? setInterval(() => process.stderr.write(`\r${acked} records acknowledged...`), 1000) : null;
    try {
      await new Promise<void>((resolve, reject) => {
        const done = (): void => {
          context.interrupted.removeEventListener('abort', onInterrupt);
          input.off('data', onData);
          input.off('end', onEnd);
          input.off('error', reject);
          input.pause();
          resolve();
        };
        const onData = (chunk: Buffer): void => {
          splitter.push(chunk);
          if (failure) done();
          else if (outstanding >= MAX_OUTSTANDING && !paused) {
            paused = true;
            input.pause();
          }
        };
        const onEnd = (): void => {
          splitter.end();
          done();
        };
        const onInterrupt = (): void => {
          splitter.end();
          done();
        };
        input.on('data', onData);
        input.on('end', onEnd);
        input.on('error', reject);
        context.interrupted.addEventListener('abort', onInterrupt, { once: true });
      });
      // Interrupted: what was read gets a short, bounded chance to be delivered.
      if (context.interrupted.aborted) await producer.close(INTERRUPTED_CLOSE_TIMEOUT_MS);
      else await producer.flush();
    } finally {
      if (progress) clearInterval(progress);
      await producer.close(5_000).catch(() => undefined);
    }
    if (tty) process.stderr.write('\r');
    if (failure) throw failure;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const rate = seconds > 0 ? Math.round(sent / seconds) : sent;
    process.stderr.write(`Produced ${sent} records to ${topic} in ${seconds.toFixed(2)} s (${rate} records/s)\n`);
    // Every record read was delivered, but the input was not read to its end.
    if (context.interrupted.aborted) throw new Error('interrupted');
    return 0;
  },
};
