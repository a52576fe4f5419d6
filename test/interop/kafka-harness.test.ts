/**
 * The Apache Kafka 4.4 broker harness (test/support/kafka) works: a single-node KRaft broker
 * starts from the Maven Central jars, answers Brook-encoded requests over a raw connection
 * (ApiVersions, Metadata, CreateTopics), and stops cleanly and quickly, leaving nothing behind.
 * Needs: java 17+, Maven (first run downloads the artifacts from Maven Central).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startKafka, kafkaAvailable, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { RawConnection, rawRequest } from '../support/kafka/raw-client.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';

const TOPIC = 'brook-harness-topic';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The interop suite's contract is that its peers are installed (.ci/run does it): no silent skips.
test('Kafka 4.4 broker harness: start, Metadata, CreateTopics, clean stop', { timeout: 120_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const kafka: KafkaBroker = await startKafka({ config: { 'num.partitions': '1' } });
  let stopped = false;
  try {
    const rss = kafka.rssBytes();
    t.diagnostic(
      `Kafka ready at ${kafka.bootstrap} (controller ${kafka.controllerPort}, pid ${kafka.pid}): ` +
        `format ${kafka.formatMs} ms, start-up ${kafka.startupMs} ms, RSS ${rss === null ? '?' : Math.round(rss / 1024 / 1024)} MiB`,
    );
    const fail = (what: string): string => `${what}\n--- Kafka log tail ---\n${kafka.logTail(40)}`;

    const versions = await rawRequest(kafka.host, kafka.port, 'ApiVersions', 3, { clientSoftwareName: 'brook-test', clientSoftwareVersion: '0' });
    assert.equal(versions.errorCode, 0, fail('ApiVersions error'));
    const metadataRange = versions.apiKeys.find((k) => k.apiKey === 3);
    assert.ok(metadataRange !== undefined && metadataRange.maxVersion >= 12, fail('ApiVersions lacks Metadata v12'));

    const conn = await RawConnection.connect(kafka.host, kafka.port);
    try {
      const metadata = await conn.request('Metadata', 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.deepEqual(
        metadata.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })),
        [{ nodeId: kafka.nodeId, host: kafka.host, port: kafka.port }],
        fail('Metadata brokers'),
      );
      assert.equal(metadata.clusterId, kafka.clusterId);
      assert.equal(metadata.controllerId, kafka.nodeId);
      assert.deepEqual(metadata.topics, []);

      // Two requests pipelined on one connection, answered by correlation id.
      const [createdResponse, describeCluster] = await Promise.all([
        conn.request('CreateTopics', 7, {
          topics: [{ name: TOPIC, numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }],
          timeoutMs: 10_000,
          validateOnly: false,
        }),
        conn.request('DescribeCluster', 0, { includeClusterAuthorizedOperations: false }),
      ]);
      assert.equal(describeCluster.errorCode, 0);
      assert.equal(describeCluster.clusterId, kafka.clusterId);
      assert.equal(createdResponse.topics.length, 1);
      const result = createdResponse.topics[0]!;
      assert.equal(result.errorCode, 0, fail(`CreateTopics error ${result.errorCode}: ${result.errorMessage}`));
      assert.equal(result.name, TOPIC);
      assert.equal(result.numPartitions, 3);
      assert.equal(result.replicationFactor, 1);
      assert.notEqual(result.topicId, ZERO_UUID);

      // The broker's metadata cache follows the controller's commit shortly after.
      let partitions: number[] = [];
      for (let i = 0; i < 50; i++) {
        const topicMetadata = await conn.request('Metadata', 12, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        const topic = topicMetadata.topics[0];
        if (topic !== undefined && topic.errorCode === 0 && topic.partitions.every((p) => p.leaderId === kafka.nodeId)) {
          assert.equal(topic.topicId, result.topicId);
          partitions = topic.partitions.map((p) => p.partitionIndex).sort();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(partitions, [0, 1, 2], fail('Metadata for the new topic'));

      const again = await conn.request('CreateTopics', 7, {
        topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 10_000,
        validateOnly: false,
      });
      assert.equal(again.topics[0]!.errorCode, 36, 'second CreateTopics: TOPIC_ALREADY_EXISTS');
    } finally {
      conn.close();
    }

    const stopStart = performance.now();
    const exit = await kafka.stop();
    stopped = true;
    const stopMs = Math.round(performance.now() - stopStart);
    t.diagnostic(`Kafka stopped in ${stopMs} ms: exit code ${exit.code}, signal ${exit.signal}`);
    assert.ok(exit.code === 0 || exit.code === 143, `exit code ${exit.code}, signal ${exit.signal}`);
    // Clean: it exited on SIGTERM, not on the harness's SIGKILL after its grace period. How long
    // that took is reported above, not asserted: it depends on the machine.
    assert.equal(exit.forced, false);
    assert.equal(processAlive(kafka.pid), false);
    assert.equal(existsSync(kafka.dataDir), false, 'temp dataDir removed');
  } finally {
    if (!stopped) await kafka.stop();
  }
});
