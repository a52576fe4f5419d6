/**
 * Kafka Streams 4.4's word count (test/support/java StreamsWordCount) as a child process, and
 * what tests and benchmarks need around it: a deterministic input, its true word counts, and
 * the output read back with read_committed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Consumer, Producer, stringDeserializers, stringSerializers } from '../../src/index.js';
import { javaCommand } from './java-oracle.js';

const VOCABULARY = [
  'kafka', 'brook', 'stream', 'topic', 'partition', 'offset', 'group', 'member', 'leader', 'replica',
  'record', 'batch', 'commit', 'abort', 'marker', 'epoch', 'fence', 'store', 'changelog', 'repartition',
  'count', 'word', 'line', 'exactly', 'once', 'producer', 'consumer', 'coordinator', 'transaction', 'log',
];

/** `count` lines of 1 to 8 lower-case words from a fixed vocabulary, the same for the same seed. */
export function wordCountInput(count: number, seed = 1): string[] {
  let s = seed >>> 0;
  const next = (n: number): number => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const words = 1 + next(8);
    const line: string[] = [];
    for (let w = 0; w < words; w++) line.push(VOCABULARY[next(VOCABULARY.length)]!);
    lines.push(line.join(' '));
  }
  return lines;
}

/** Each word's number of occurrences in `lines` (single spaces between words). */
export function trueCounts(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) for (const word of line.split(' ')) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

export function totalWords(counts: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const n of counts.values()) total += n;
  return total;
}

/** Produces `lines` to `topic`, keyed by line number (so spread over the partitions), acks=all, idempotent. */
export async function produceLines(bootstrap: string, topic: string, lines: readonly string[]): Promise<void> {
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 'all', lingerMs: 5, serializers: stringSerializers });
  try {
    await Promise.all(lines.map((line, i) => producer.send({ topic, key: `line-${i}`, value: line })));
    await producer.flush();
  } finally {
    await producer.close();
  }
}

export interface WordCountOutput {
  /** Each word's counts in the order read_committed shows them (per partition, so per word, in log order). */
  readonly sequences: Map<string, number[]>;
  readonly records: number;
  /** When (Date.now()) every word first showed its true count as its latest value; null if never. */
  readonly completeAtMs: number | null;
}

/**
 * Reads OUTPUT with read_committed from the beginning until every word of `expected` shows its
 * true count as its latest value and nothing more arrives for `quietMs`, or `timeoutMs` passes.
 */
export async function readWordCounts(
  bootstrap: string, topic: string, partitions: number, expected: ReadonlyMap<string, number>, timeoutMs: number, quietMs = 1000,
): Promise<WordCountOutput> {
  const consumer = new Consumer({ bootstrapServers: bootstrap, isolationLevel: 'read_committed', fetchMaxWaitMs: 100, deserializers: stringDeserializers });
  const sequences = new Map<string, number[]>();
  let records = 0;
  let complete = 0;
  let completeAtMs: number | null = null;
  try {
    consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })));
    consumer.seekToBeginning();
    const deadline = Date.now() + timeoutMs;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      const batch = await consumer.poll({ timeoutMs: 200 });
      for (const r of batch) {
        records++;
        const seq = sequences.get(r.key!) ?? [];
        if (seq.length === 0) sequences.set(r.key!, seq);
        const count = Number(r.value);
        const want = expected.get(r.key!);
        if (seq.length > 0 && seq[seq.length - 1] === want) complete--;
        if (count === want) complete++;
        seq.push(count);
      }
      if (complete === expected.size) completeAtMs ??= Date.now();
      if (batch.length > 0) quietSince = Date.now();
      else if (complete === expected.size && Date.now() - quietSince >= quietMs) break;
    }
  } finally {
    await consumer.close();
  }
  return { sequences, records, completeAtMs };
}

/** Words whose read_committed counts are not exactly 1, 2, ..., true count (a lost or double-counted update), with what was seen. */
export function wrongCounts(output: WordCountOutput, expected: ReadonlyMap<string, number>): string[] {
  const wrong: string[] = [];
  for (const [word, n] of expected) {
    const seq = output.sequences.get(word) ?? [];
    const exact = seq.length === n && seq.every((c, i) => c === i + 1);
    if (!exact) {
      const over = seq.filter((c) => c > n).length;
      wrong.push(`${word}: true count ${n}, ${seq.length} updates, latest ${seq[seq.length - 1] ?? 'none'}, ${over} above the true count`);
    }
  }
  for (const word of output.sequences.keys()) if (!expected.has(word)) wrong.push(`${word}: not in the input`);
  return wrong;
}

/** The latest count of each word. */
export function finalCounts(output: WordCountOutput): Map<string, number> {
  return new Map([...output.sequences].map(([word, seq]) => [word, seq[seq.length - 1]!]));
}

export interface WordCountApp {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  /** When (Date.now()) each of `lines` was read. */
  readonly lineTimes: number[];
  stderr(): string;
  /** Resolves once a line matching `pattern` was printed; fails when the program exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Closes stdin (the application closes) and waits for the exit; SIGKILL after `timeoutMs`. Resolves with the exit code. */
  close(timeoutMs?: number): Promise<number | null>;
}

export interface WordCountAppOptions {
  readonly bootstrap: string;
  readonly applicationId: string;
  readonly input: string;
  readonly output: string;
  readonly guarantee: 'exactly_once_v2' | 'at_least_once';
  readonly stateDir: string;
  readonly store?: 'rocksdb' | 'memory';
  readonly commitIntervalMs?: number;
  /** Further Streams configuration, e.g. `{ 'group.protocol': 'streams' }`. */
  readonly configs?: Readonly<Record<string, string>>;
  /** Close with CloseOptions LEAVE_GROUP (default: Kafka Streams' default, which for the classic protocol stays in the group). */
  readonly leaveGroupOnClose?: boolean;
}

/** Starts StreamsWordCount (the Java support jar is built first when stale). */
export function startWordCountApp(o: WordCountAppOptions): WordCountApp {
  const [cmd, ...args] = javaCommand('brook.conformance.StreamsWordCount');
  const child = spawn(cmd!, [
    ...args, o.bootstrap, o.applicationId, o.input, o.output, o.guarantee, o.stateDir, o.store ?? 'rocksdb', String(o.commitIntervalMs ?? 100),
    ...Object.entries(o.configs ?? {}).map(([key, value]) => `${key}=${value}`),
    ...(o.leaveGroupOnClose === true ? ['--leave-group-on-close'] : []),
  ], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const lineTimes: number[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    lineTimes.push(Date.now());
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
    for (const w of waiters.splice(0)) w();
  });
  const describe = (): string => `${lines.join(' | ')}\n${stderr.slice(-3000)}`;
  return {
    child,
    lines,
    lineTimes,
    stderr: () => stderr,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!lines.some((l) => pattern.test(l))) {
        if (exitCode !== undefined) throw new Error(`StreamsWordCount exited ${exitCode} before ${pattern}: ${describe()}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`StreamsWordCount printed no ${pattern} in ${timeoutMs} ms: ${describe()}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async close(timeoutMs = 30_000) {
      if (exitCode === undefined) child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
