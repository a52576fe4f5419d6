/**
 * Fixtures for the admin client and `brook groups` tests: a topic with known records (fixed
 * timestamps, so --to-datetime has exact answers), a group of KafkaJS consumers that reads
 * everything and commits it, and running `bin/brook` as a child process.
 */
import { join } from 'node:path';
import { Partitioners, type Consumer } from 'kafkajs';
import { projectRoot } from './brook.js';
import { kafkaJs, createTopicWithKafkaJs } from './clients/kafkajs.js';
import { runProcess, until, type RunResult } from './clients/run.js';

/** Record i of every partition has timestamp BASE_TIMESTAMP_MS + i * 1000. */
export const BASE_TIMESTAMP_MS = Date.UTC(2024, 0, 1, 0, 0, 0);

/** Creates `topic` and writes `perPartition` records to each partition. */
export async function seedTopic(bootstrap: string, topic: string, partitions: number, perPartition: number): Promise<void> {
  await createTopicWithKafkaJs(bootstrap, topic, partitions);
  const producer = kafkaJs(bootstrap).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    for (let p = 0; p < partitions; p++) {
      await producer.send({
        topic, acks: -1,
        messages: Array.from({ length: perPartition }, (_, i) => ({
          partition: p, key: `k${p}-${i}`, value: `v${p}-${i}`, timestamp: String(BASE_TIMESTAMP_MS + i * 1000),
        })),
      });
    }
  } finally {
    await producer.disconnect();
  }
}

export interface RunningGroup {
  readonly consumers: Consumer[];
  readonly consumed: () => number;
  /** Disconnects every member (LeaveGroup), leaving the group Empty. */
  stop(): Promise<void>;
}

/** `members` KafkaJS consumers in `groupId` reading `topic` from the beginning, committing after every record, until `expected` records were read. */
export async function runGroup(bootstrap: string, groupId: string, topic: string, members: number, expected: number, clientId = 'admin-test-consumer'): Promise<RunningGroup> {
  const kafka = kafkaJs(bootstrap, clientId);
  const consumers: Consumer[] = [];
  let consumed = 0;
  for (let i = 0; i < members; i++) {
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 100 });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ autoCommitThreshold: 1, eachMessage: async () => { consumed++; } });
  }
  await until(`${expected} records consumed by ${groupId}`, 30_000, async () => (consumed >= expected ? true : undefined));
  return {
    consumers,
    consumed: () => consumed,
    stop: async () => {
      for (const c of consumers) await c.disconnect();
    },
  };
}

/** Runs `bin/brook ...args` (asynchronously, so an in-process broker keeps serving). */
export function brookCli(args: readonly string[], timeoutMs = 30_000): Promise<RunResult> {
  return runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), ...args], { timeoutMs });
}
