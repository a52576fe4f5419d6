/**
 * Apache Kafka 4.4's `kafka-console-share-consumer` (ConsoleShareConsumer from the tools jar)
 * on the same script against Kafka 4.4 and against Brook: 30 records on a 3-partition topic,
 * the group set to read from the start (`kafka-configs --entity-type groups`'s request:
 * IncrementalAlterConfigs, share.auto.offset.reset=earliest), then the tool with
 * `--max-messages 30` prints every record once (it accepts each as it prints it); a second run
 * in the same group finds nothing left (`--timeout-ms`), since every record was accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const CONSOLE_SHARE_CONSUMER = 'org.apache.kafka.tools.consumer.ConsoleShareConsumer';
const TOPIC = 'console-share';
const GROUP = 'console-share-group';

async function readFromStart(bootstrap: string): Promise<void> {
  const [host, port] = bootstrap.split(':');
  const conn = await KafkaConnection.connect({ host: host!, port: Number(port) });
  try {
    const r = await conn.request(Api.IncrementalAlterConfigs, {
      resources: [{ resourceType: 32, resourceName: GROUP, configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }] }], validateOnly: false,
    });
    assert.equal(r.responses[0]!.errorCode, ErrorCode.NONE, r.responses[0]!.errorMessage ?? '');
  } finally {
    conn.close();
  }
}

async function script(bootstrap: string): Promise<{ first: string[]; second: string[] }> {
  await createTopic(bootstrap, TOPIC, 3);
  for (let p = 0; p < 3; p++) await produce(bootstrap, TOPIC, p, Array.from({ length: 10 }, (_, i) => `record-${p}-${i}`));
  await readFromStart(bootstrap);
  const run = async (args: readonly string[]): Promise<string[]> => {
    const r = await runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), CONSOLE_SHARE_CONSUMER, '--bootstrap-server', bootstrap, '--topic', TOPIC, '--group', GROUP, ...args], { timeoutMs: 120_000 });
    // The records; the tool also logs (to stdout) that --timeout-ms ran out.
    return r.stdout.split('\n').filter((l) => l.startsWith('record-')).sort();
  };
  const first = await run(['--max-messages', '30']);
  const second = await run(['--timeout-ms', '8000']);
  return { first, second };
}

test('kafka-console-share-consumer reads every record once, on Kafka 4.4 and on Brook', { timeout: 400_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0' } });
  cleanup.add('kafka', () => kafka.stop());
  const brook = await startBrook();
  cleanup.add('brook', () => brook.stop());
  const expected = Array.from({ length: 30 }, (_, i) => `record-${Math.floor(i / 10)}-${i % 10}`).sort();
  const onKafka = await script(kafka.bootstrap);
  assert.deepEqual(onKafka, { first: expected, second: [] }, 'Kafka 4.4 (the oracle)');
  const onBrook = await script(brook.bootstrap);
  assert.deepEqual(onBrook, onKafka);
});
