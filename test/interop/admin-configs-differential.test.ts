/**
 * Differential conformance of the admin APIs that change a cluster: CreatePartitions,
 * IncrementalAlterConfigs and AlterConfigs, and what DescribeConfigs reports after them.
 * The same raw requests go to Apache Kafka 4.4 and to Brook (test/support/differential);
 * beyond the normalised comparison, error messages are compared word for word, since
 * Kafka's tools print them.
 *
 * Where Brook deliberately differs (each asserted below; also in docs/ARCHITECTURE.md):
 *   A1  CreatePartitions on __consumer_offsets: Kafka 4.4 grows it; Brook refuses with
 *       INVALID_TOPIC_EXCEPTION (which partition holds a group follows from the count).
 *   A2  Dynamic broker configs: Brook takes those that set topic defaults (log.retention.ms,
 *       message.max.bytes, log.cleanup.policy, ...); Kafka's other dynamic ones
 *       (max.connections, thread pools, TLS, ...) and names Kafka does not know (which
 *       Kafka stores for plugins) are refused: INVALID_REQUEST "Cannot update these configs
 *       dynamically: [...]", as Kafka refuses its static ones.
 *   A3  BROKER_LOGGER: Brook has no log4j loggers, so every logger is unknown
 *       (INVALID_CONFIG "Logger X does not exist!", Kafka's wording for an unknown one).
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both } from '../support/differential/pair.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { CreatePartitionsRequestData, CreatePartitionsTopic } from '../../src/protocol/messages/create-partitions.js';
import type { IncrementalAlterConfigsRequestAlterableConfig } from '../../src/protocol/messages/incremental-alter-configs.js';
import type { DescribeConfigsResourceResult } from '../../src/protocol/messages/describe-configs.js';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

function assertSame(c: { diffs: string[] }, what: string): void {
  assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
}

/** Error codes and messages, word for word, in order. */
function outcomes(r: { errorCode: number; errorMessage: string | null; name?: string; resourceName?: string }[]): string[] {
  return r.map((x) => `${x.name ?? x.resourceName}: ${x.errorCode} ${x.errorMessage}`);
}

function assertSameOutcomes<T extends { errorCode: number; errorMessage: string | null }>(res: Both<T[]>, what: string): void {
  assert.deepEqual(outcomes(res.brook), outcomes(res.kafka), what);
}

const op = (name: string, configOperation: number, value: string | null): IncrementalAlterConfigsRequestAlterableConfig => ({ name, configOperation, value });

describe('Brook vs Apache Kafka 4.4: CreatePartitions, IncrementalAlterConfigs, AlterConfigs', { timeout: 180_000 }, () => {
  let pair: DiffPair;
  let nodeId: Both<number>;

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start({ 'num.partitions': '1', 'auto.create.topics.enable': 'true' });
    nodeId = { kafka: pair.kafkaBroker.nodeId, brook: pair.brookBroker.config.nodeId };
  });

  after(async () => {
    await pair?.stop();
  });

  async function createPartitions(topics: CreatePartitionsTopic[], validateOnly = false) {
    const body: CreatePartitionsRequestData = { topics, timeoutMs: 10_000, validateOnly };
    const c = await pair.compare('CreatePartitions', 3, body);
    assertSame(c, `CreatePartitions ${JSON.stringify(topics)}`);
    assertSameOutcomes({ kafka: c.raw.kafka.results, brook: c.raw.brook.results }, `CreatePartitions ${JSON.stringify(topics)}: messages`);
    return c.raw.brook.results;
  }

  it('CreatePartitions: refusals with Kafka\'s codes and messages, then growth that Metadata shows', async () => {
    await pair.createTopic('cp', 1);
    await pair.createTopic('cp-other', 1);
    const results = await createPartitions([
      { name: 'cp', count: 1, assignments: null }, { name: 'cp-unknown', count: 3, assignments: null }, { name: 'cp', count: 0, assignments: null },
    ]);
    assert.deepEqual(results.map((r) => r.errorCode), [ErrorCode.INVALID_REQUEST, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    await createPartitions([{ name: 'cp', count: 1, assignments: null }]);
    await createPartitions([{ name: 'cp', count: 0, assignments: null }]);
    await createPartitions([{ name: 'cp', count: -1, assignments: null }]);
    await createPartitions([{ name: 'cp', count: 3, assignments: [{ brokerIds: [1] }] }]);
    await createPartitions([{ name: 'cp', count: 2, assignments: [{ brokerIds: [7] }] }]);
    await createPartitions([{ name: 'cp', count: 2, assignments: [{ brokerIds: [1, 1] }] }]);
    await createPartitions([{ name: 'cp', count: 2, assignments: [{ brokerIds: [] }] }]);
    // More than 10000 new partitions in one request fail it as a whole.
    await createPartitions([{ name: 'cp', count: 6000, assignments: null }, { name: 'cp-other', count: 5000, assignments: null }], true);
    await createPartitions([{ name: 'cp', count: 10_001, assignments: null }], true);
    await createPartitions([{ name: 'cp', count: 3, assignments: null }], true);

    await createPartitions([{ name: 'cp', count: 3, assignments: [{ brokerIds: [1] }, { brokerIds: [1] }] }]);
    await createPartitions([{ name: 'cp-other', count: 2, assignments: null }]);
    await pair.waitForKafkaTopic('cp', 3);
    await pair.waitForKafkaTopic('cp-other', 2);
    assertSame(await pair.compare('Metadata', 12, {
      topics: [{ name: 'cp' }, { name: 'cp-other' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false,
    }), 'Metadata after CreatePartitions');
    const already = await createPartitions([{ name: 'cp', count: 3, assignments: null }]);
    assert.equal(already[0]!.errorMessage, 'Topic already has 3 partition(s).');
  });

  it('CreatePartitions on __consumer_offsets: Kafka grows it, Brook refuses (A1)', async () => {
    // A group's FindCoordinator makes both create the topic.
    await pair.both('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['cp-group'] });
    await pair.waitForKafkaTopic('__consumer_offsets', 50);
    const res = await pair.both('CreatePartitions', 3, { topics: [{ name: '__consumer_offsets', count: 60, assignments: null }], timeoutMs: 10_000, validateOnly: true });
    assert.deepEqual(outcomes(res.kafka.results), ['__consumer_offsets: 0 null']);
    assert.deepEqual(outcomes(res.brook.results), ['__consumer_offsets: 17 Cannot increase the number of partitions of internal topic __consumer_offsets']);
  });

  describe('IncrementalAlterConfigs and AlterConfigs on topics', () => {
    before(() => pair.createTopic('cfg', 1));

    async function incremental(resourceName: string, configs: IncrementalAlterConfigsRequestAlterableConfig[], validateOnly = false, resourceType = TOPIC) {
      const c = await pair.compare('IncrementalAlterConfigs', 1, { resources: [{ resourceType, resourceName, configs }], validateOnly });
      const what = `IncrementalAlterConfigs ${resourceType}/${resourceName} ${JSON.stringify(configs)}`;
      assertSame(c, what);
      assertSameOutcomes({ kafka: c.raw.kafka.responses, brook: c.raw.brook.responses }, `${what}: messages`);
      return c.raw.brook.responses[0]!;
    }

    /** Kafka's broker learns a topic's new configs from its metadata log: asks again (briefly) until they agree. */
    async function describeTopic(keys: string[] | null) {
      const request = { resources: [{ resourceType: TOPIC, resourceName: 'cfg', configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false };
      let c = await pair.compare('DescribeConfigs', 4, request);
      for (let i = 0; i < 40 && c.diffs.length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        c = await pair.compare('DescribeConfigs', 4, request);
      }
      assertSame(c, `DescribeConfigs cfg ${JSON.stringify(keys)}`);
      return c.raw.brook.results[0]!.configs;
    }

    it('every operation, and every refusal, as Kafka', async () => {
      assert.equal((await incremental('cfg', [op('retention.ms', SET, '3600000')])).errorCode, ErrorCode.NONE);
      assert.equal((await incremental('cfg', [op('cleanup.policy', APPEND, 'compact')])).errorCode, ErrorCode.NONE);
      assert.deepEqual((await describeTopic(['cleanup.policy', 'retention.ms'])).map((c) => `${c.name}=${c.value}`).sort(), ['cleanup.policy=delete,compact', 'retention.ms=3600000']);
      await incremental('cfg', [op('cleanup.policy', SUBTRACT, 'delete')]);
      await incremental('cfg', [op('cleanup.policy', SUBTRACT, 'compact')]);
      await incremental('cfg', [op('leader.replication.throttled.replicas', APPEND, '0:1')]);
      await describeTopic(null);
      await incremental('cfg', [op('cleanup.policy', DELETE, null), op('leader.replication.throttled.replicas', DELETE, null)]);
      await incremental('cfg', [op('no.such.config', DELETE, null)]);

      const refused = [
        [op('no.such.config', SET, '1')],
        [op('retention.ms', SET, 'abc')],
        [op('retention.ms', SET, '')],
        [op('segment.bytes', SET, '100')],
        [op('cleanup.policy', SET, 'compact,foo')],
        [op('retention.ms', APPEND, '5')],
        [op('retention.ms', SUBTRACT, '5')],
        [op('retention.ms', SET, null)],
        [op('cleanup.policy', APPEND, null)],
        [op('retention.ms', 7, '1')],
        [op('retention.ms', SET, '1'), op('retention.ms', DELETE, null)],
        [op('min.compaction.lag.ms', SET, '100'), op('max.compaction.lag.ms', SET, '10')],
      ];
      for (const configs of refused) assert.notEqual((await incremental('cfg', configs)).errorCode, ErrorCode.NONE, JSON.stringify(configs));
      await incremental('cfg-unknown', [op('retention.ms', SET, '1')]);
      await incremental('cfg-unknown', [op('retention.ms', APPEND, '1')]);
      await incremental('', [op('retention.ms', SET, '1')]);
      await incremental('cfg', [op('retention.ms', SET, '1')], true);
      for (const resourceType of [3, 99]) await incremental('x', [op('retention.ms', SET, '1')], false, resourceType);
      const dup = await pair.compare('IncrementalAlterConfigs', 1, {
        resources: [{ resourceType: TOPIC, resourceName: 'cfg', configs: [] }, { resourceType: TOPIC, resourceName: 'cfg', configs: [] }], validateOnly: false,
      });
      assertSame(dup, 'duplicate resources');
      assertSameOutcomes({ kafka: dup.raw.kafka.responses, brook: dup.raw.brook.responses }, 'duplicate resources: messages');
      // validateOnly changed nothing: retention.ms is still the value set first.
      const retention = (await describeTopic(['retention.ms']))[0]!;
      assert.equal(retention.value, '3600000');
    });

    it('AlterConfigs replaces the whole set; its refusals as Kafka', async () => {
      const alter = async (resourceName: string, configs: { name: string; value: string | null }[], what: string) => {
        const c = await pair.compare('AlterConfigs', 2, { resources: [{ resourceType: TOPIC, resourceName, configs }], validateOnly: false });
        assertSame(c, what);
        assertSameOutcomes({ kafka: c.raw.kafka.responses, brook: c.raw.brook.responses }, `${what}: messages`);
      };
      await alter('cfg', [{ name: 'segment.ms', value: '60000' }, { name: 'max.message.bytes', value: '5000' }], 'replace');
      const configs = await describeTopic(null);
      assert.deepEqual(configs.filter((c) => c.configSource === 1).map((c) => c.name).sort(), ['max.message.bytes', 'segment.ms']);
      await alter('cfg', [{ name: 'segment.ms', value: '60000' }, { name: 'foo', value: '1' }], 'unknown name');
      await alter('cfg', [{ name: 'segment.ms', value: null }], 'null value');
      await alter('cfg-unknown', [{ name: 'segment.ms', value: '1' }], 'unknown topic');
      const logger = await pair.compare('AlterConfigs', 2, { resources: [{ resourceType: BROKER_LOGGER, resourceName: '1', configs: [] }], validateOnly: false });
      assertSame(logger, 'broker logger');
      assertSameOutcomes({ kafka: logger.raw.kafka.responses, brook: logger.raw.brook.responses }, 'broker logger: messages');
    });
  });

  describe('dynamic broker configs', () => {
    const brokerOps = (resourceName: (side: 'kafka' | 'brook') => string, configs: IncrementalAlterConfigsRequestAlterableConfig[], validateOnly = false) => ({
      kafka: { resources: [{ resourceType: BROKER, resourceName: resourceName('kafka'), configs }], validateOnly },
      brook: { resources: [{ resourceType: BROKER, resourceName: resourceName('brook'), configs }], validateOnly },
    });
    const self = (side: 'kafka' | 'brook'): string => String(nodeId[side]);

    async function incremental(name: (side: 'kafka' | 'brook') => string, configs: IncrementalAlterConfigsRequestAlterableConfig[], validateOnly = false) {
      const c = await pair.compare('IncrementalAlterConfigs', 1, brokerOps(name, configs, validateOnly));
      assertSame(c, `broker ${JSON.stringify(configs)}`);
      assertSameOutcomes({ kafka: c.raw.kafka.responses, brook: c.raw.brook.responses }, `broker ${JSON.stringify(configs)}: messages`);
      return c.raw.brook.responses[0]!;
    }

    /** Kafka applies dynamic configs as its metadata log reaches the broker: waits until it shows `value`. */
    async function kafkaBrokerShows(name: string, value: string): Promise<void> {
      for (let i = 0; i < 200; i++) {
        const res = await pair.conn.kafka.request('DescribeConfigs', 4, {
          resources: [{ resourceType: BROKER, resourceName: self('kafka'), configurationKeys: [name] }], includeSynonyms: false, includeDocumentation: false,
        });
        if (res.results[0]?.configs[0]?.value === value) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`Kafka's broker did not show ${name}=${value}`);
    }

    it('validation as Kafka: node ids, static configs, values, list operations', async () => {
      await incremental(() => '2', [op('log.retention.ms', SET, '1000')], true);
      await incremental(() => 'x', [op('log.retention.ms', SET, '1000')], true);
      for (const configs of [
        [op('node.id', SET, '5')], [op('num.partitions', SET, '5')], [op('auto.create.topics.enable', SET, 'false')],
        [op('log.retention.ms', SET, 'abc')], [op('log.segment.bytes', SET, '10')], [op('log.retention.ms', APPEND, '1')],
        [op('log.retention.ms', 9, '1')], [op('log.retention.ms', SET, null)],
      ]) {
        assert.notEqual((await incremental(self, configs, true)).errorCode, ErrorCode.NONE, JSON.stringify(configs));
      }
      assert.equal((await incremental(self, [op('log.cleanup.policy', APPEND, 'compact')], true)).errorCode, ErrorCode.NONE);
      const logger = await pair.compare('IncrementalAlterConfigs', 1, {
        kafka: { resources: [{ resourceType: BROKER_LOGGER, resourceName: self('kafka'), configs: [op('kafka', SET, 'DEBUG')] }], validateOnly: true },
        brook: { resources: [{ resourceType: BROKER_LOGGER, resourceName: self('brook'), configs: [op('kafka', SET, 'DEBUG')] }], validateOnly: true },
      });
      assertSameOutcomes({ kafka: logger.raw.kafka.responses, brook: logger.raw.brook.responses }, 'a logger neither has');
    });

    it('per broker over the cluster default: DescribeConfigs of the broker, the cluster default and a topic agree', async () => {
      await pair.createTopic('dyn', 1);
      await incremental(self, [op('log.retention.ms', SET, '100000'), op('log.cleanup.policy', SET, 'compact')]);
      await incremental(() => '', [op('log.retention.ms', SET, '200000'), op('message.max.bytes', SET, '2000000')]);
      await kafkaBrokerShows('message.max.bytes', '2000000');
      const keys = ['log.retention.ms', 'message.max.bytes', 'log.cleanup.policy', 'log.segment.bytes', 'log.roll.ms', 'log.cleaner.min.cleanable.ratio',
        'log.index.size.max.bytes', 'log.message.timestamp.type', 'log.retention.bytes', 'log.cleaner.delete.retention.ms'];
      const broker = await pair.compare('DescribeConfigs', 4, {
        kafka: { resources: [{ resourceType: BROKER, resourceName: self('kafka'), configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false },
        brook: { resources: [{ resourceType: BROKER, resourceName: self('brook'), configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false },
      });
      assertSame(broker, 'the broker\'s dynamic configs');
      assert.equal(broker.raw.brook.results[0]!.configs.length, keys.length);
      assertSame(await pair.compare('DescribeConfigs', 4, {
        resources: [{ resourceType: TOPIC, resourceName: 'dyn', configurationKeys: ['retention.ms', 'max.message.bytes', 'cleanup.policy', 'segment.ms'] }],
        includeSynonyms: true, includeDocumentation: false,
      }), 'a topic under dynamic broker defaults');
      // The cluster default resource: Kafka's also holds the formatter's min.insync.replicas (the environment).
      const defaults = await pair.both('DescribeConfigs', 4, { resources: [{ resourceType: BROKER, resourceName: '', configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
      const strip = (configs: DescribeConfigsResourceResult[]) => configs.filter((c) => c.name !== 'min.insync.replicas').sort((a, b) => (a.name < b.name ? -1 : 1));
      assert.deepEqual(strip(defaults.brook.results[0]!.configs), strip(defaults.kafka.results[0]!.configs));
      // AlterConfigs replaces the broker's whole dynamic set, as Kafka's.
      const replaced = await pair.compare('AlterConfigs', 2, {
        kafka: { resources: [{ resourceType: BROKER, resourceName: self('kafka'), configs: [{ name: 'log.retention.ms', value: '300000' }] }], validateOnly: false },
        brook: { resources: [{ resourceType: BROKER, resourceName: self('brook'), configs: [{ name: 'log.retention.ms', value: '300000' }] }], validateOnly: false },
      });
      assertSame(replaced, 'AlterConfigs on the broker');
      await kafkaBrokerShows('log.cleanup.policy', 'delete');
      assertSame(await pair.compare('DescribeConfigs', 4, {
        kafka: { resources: [{ resourceType: BROKER, resourceName: self('kafka'), configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false },
        brook: { resources: [{ resourceType: BROKER, resourceName: self('brook'), configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false },
      }), 'the broker after AlterConfigs');
      // Back to the defaults for the other tests.
      await incremental(self, [op('log.retention.ms', DELETE, null)]);
      await incremental(() => '', [op('log.retention.ms', DELETE, null), op('message.max.bytes', DELETE, null)]);
    });

    it('Kafka\'s other dynamic configs and unknown names: Kafka takes them, Brook refuses (A2)', async () => {
      for (const name of ['max.connections', 'no.such.broker.config']) {
        const res = await pair.both('IncrementalAlterConfigs', 1, brokerOps(self, [op(name, SET, '100')], true));
        assert.deepEqual(outcomes(res.kafka.responses), [`${nodeId.kafka}: 0 null`]);
        assert.deepEqual(outcomes(res.brook.responses), [`${nodeId.brook}: 42 Cannot update these configs dynamically: [${name}]`]);
      }
    });
  });
});
