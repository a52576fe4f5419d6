/**
 * `brook produce TOPIC`: what `kafka-console-producer.sh` does. One record per stdin line,
 * read as a stream (huge inputs are fine: reading pauses while too many records await
 * their acknowledgement). Records go out with `send(record, callback)`: no promise per line. With --key-separator each line is "KEY SEP VALUE", split at the
 * first SEP; a line without it is an error, as Kafka's console producer's "No key
 * separator found on line number N" (records before it are still delivered).
 */
import { parseArgs } from 'node:util';
import type { Readable } from 'node:stream';
import { Producer } from '../../client/producer/producer.js';
import { parseAcks, type CompressionName } from '../../client/producer/options.js';
import { INTERRUPTED_CLOSE_TIMEOUT_MS, type Command } from '../command.js';
import { LineSplitter } from '../line-splitter.js';
import type { RecordCallback } from '../../client/producer/delivery.js';
import { BOOTSTRAP_OPTIONS, bootstrapFrom, UsageError } from '../options.js';

const HELP = `Usage:
  brook produce TOPIC [--key-separator SEP] [--acks all|1|0]

Reads stdin and sends one record per line to TOPIC; with --key-separator, each line is
"KEY<SEP>VALUE". A summary (records, seconds, records/s) goes to stderr at the end.

Options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --key-separator SEP                      split each line into key and value at the first SEP
  --acks all|-1|1|0                        acknowledgements to wait for (default all)
  --compression none|gzip|snappy|lz4|zstd  batch compression (default none)
  --linger-ms N                            wait up to N ms to fill a batch (default 5)
  --batch-size N                           batch size in bytes (default 16384)
  -h, --help                               show this help`;

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
  summary: 'send stdin lines as records to a topic',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...BOOTSTRAP_OPTIONS,
        'key-separator': { type: 'string' },
        acks: { type: 'string' },
        compression: { type: 'string' },
        'linger-ms': { type: 'string' },
        'batch-size': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [topic, extra] = positionals;
    if (!topic) throw new UsageError('produce needs a TOPIC (see brook produce --help)');
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const separator = values['key-separator'];
    if (separator === '') throw new UsageError('--key-separator must not be empty');
    let acks: number;
    try {
      acks = parseAcks(values.acks);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const producer = new Producer({
      bootstrapServers: bootstrapFrom(values), clientId: 'brook-console-producer', acks: acks === -1 ? 'all' : (acks as 0 | 1),
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
    const splitter = new LineSplitter((line) => {
      lineNumber++;
      if (failure) return;
      let key: string | null = null;
      let value = line;
      if (separator !== undefined) {
        const at = line.indexOf(separator);
        if (at < 0) {
          failure = new MissingKeySeparatorError(`No key separator found on line number ${lineNumber}: '${line}'`);
          return;
        }
        key = line.slice(0, at);
        value = line.slice(at + separator.length);
      }
      outstanding++;
      sent++;
      producer.send({ topic, key, value }, onDelivery);
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
