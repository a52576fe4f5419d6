/**
 * Differential conformance: the same raw requests go to a real Apache Kafka 4.4.0 broker
 * (single-node KRaft) and to Brook (file engine), and the responses are compared field by
 * field after the normalisations listed in test/support/differential/normalize.ts
 * (NORMALISATIONS: node ids, hosts, ports, cluster ids, topic ids, producer ids, throttle
 * times, error message wording, fetch session ids, the order of map-backed lists).
 * Fetched record batches are compared byte for byte.
 *
 * Where Brook deliberately differs from Kafka (each asserted explicitly below; the same list
 * is in docs/ARCHITECTURE.md):
 *   D1  ApiVersions: fewer APIs, each with Kafka 4.4's range but AddPartitionsToTxn (v0-3: v4+
 *       is the brokers' verification request, see docs/ARCHITECTURE.md); Produce v0-2 advertised
 *       but refused, exactly as Kafka 4.4 (KAFKA-18659, librdkafka needs v0 listed to compress);
 *       of Kafka's feature flags only transaction.version and group.version (same ranges and
 *       levels).
 *   D2  Metadata auto-creation: Brook creates the topic synchronously and describes it in the
 *       same response; Kafka answers UNKNOWN_TOPIC_OR_PARTITION (zero id, no partitions)
 *       and creates it asynchronously (src/broker/handlers/metadata.ts).
 *   D3  Produce to an unknown topic auto-creates it (docs/CLI.md: topics are auto-created
 *       on the first Produce or Metadata request); Kafka answers UNKNOWN_TOPIC_OR_PARTITION
 *       and creates nothing.
 *   D4  Produce errors carry an errorMessage (free text) where Kafka leaves it null.
 *   D5  INVALID_TIMESTAMP carries no per-record recordErrors: Brook never decodes records
 *       on produce (it checks the batch's first and max timestamps).
 *   D6  CreateTopics validateOnly answers with the zero topic id; Kafka returns a random id
 *       for the topic it did not create.
 *   D7  InitProducerId with a transactional id before any FindCoordinator for one: Brook
 *       creates `__transaction_state` on demand and answers; Kafka answers NOT_COORDINATOR
 *       until a FindCoordinator has created its state topic.
 *   D8  (unused: fetch sessions are Kafka's, see test/interop/fetch-sessions-differential.test.ts.)
 *   D9  DescribeConfigs for the broker: read-only but for the dynamic configs that set topic
 *       defaults (Kafka takes more dynamically, see admin-configs-differential); max.connections defaults to 10000 (Kafka: 2147483647);
 *       log.flush.interval.ms reports Brook's fsync policy (0 = fsync before acks=all
 *       replies; Kafka: unset); no documentation text (includeDocumentation).
 *   D10 DeleteTopics of __consumer_offsets: Kafka 4.1 deletes it (NONE, no message) and its
 *       group coordinator drops every group's offsets; Brook refuses with
 *       INVALID_TOPIC_EXCEPTION "Cannot delete internal topic __consumer_offsets"
 *       (src/broker/handlers/delete-topics.ts).
 *
 * Not Brook behaviour but the test environment: Kafka's storage formatter writes a
 * cluster-level min.insync.replicas (normalised, see NORMALISATIONS); the Kafka harness
 * writes auto.create.topics.enable and num.partitions into server.properties (source
 * STATIC_BROKER_CONFIG on Kafka; Brook runs with its defaults); listeners and log.dirs name
 * each broker's own port and directory.
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both, type Compared, type RawOutcome } from '../support/differential/pair.js';
import { legacyV1Message, requestFrame, T0, testBatch, withProducerId, withSizePrefix } from '../support/differential/records.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { CRC_OFFSET, encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { FetchRequestData, FetchResponseData } from '../../src/protocol/messages/fetch.js';
import type { ProduceRequestData } from '../../src/protocol/messages/produce.js';
import type { DescribeConfigsResourceResult } from '../../src/protocol/messages/describe-configs.js';
import type { ListOffsetsRequestData } from '../../src/protocol/messages/list-offsets.js';

// ---------------------------------------------------------------------------------------
// Assertions

const pathOf = (diff: string): string => diff.slice(0, diff.indexOf(': '));

/** No difference left after normalisation. */
function assertSame(c: { diffs: string[] }, what: string): void {
  assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
}

/** Exactly these fields differ (a documented difference), nothing else, and each of them does. */
function assertOnlyDiffer(c: { diffs: string[] }, paths: string[], what: string): void {
  assert.deepEqual([...new Set(c.diffs.map(pathOf))].sort(), [...paths].sort(), `${what}: differences other than the documented ones:\n  ${c.diffs.join('\n  ')}`);
}

const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;

// ---------------------------------------------------------------------------------------
// Request builders

function produceRequest(topic: string, partition: number, records: Buffer, acks = 1): ProduceRequestData {
  return { transactionalId: null, acks, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

interface FetchSpec {
  readonly partition: number;
  readonly offset: bigint;
  readonly maxBytes?: number;
  readonly currentLeaderEpoch?: number;
}

describe('Brook vs Apache Kafka 4.4: the same requests get the same answers', { timeout: 120_000 }, () => {
  let pair: DiffPair;

  before(async () => {
    // The interop suite's contract is that its peers are installed (.ci/run does it): no silent skips.
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start({ 'num.partitions': '1', 'auto.create.topics.enable': 'true' });
  });

  after(async () => {
    await pair?.stop();
  });

  /** A Fetch request for `topic`, by name up to v12 and by each broker's topic id from v13. */
  function fetchRequest(version: number, topic: string, parts: FetchSpec[], extra: Partial<FetchRequestData> = {}): Both<FetchRequestData> {
    const body = (side: 'kafka' | 'brook'): FetchRequestData => ({
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{
        topic: version < 13 ? topic : '',
        topicId: version >= 13 ? pair.normaliser[side].topicId(topic) ?? ZERO_UUID : ZERO_UUID,
        partitions: parts.map((p) => ({ partition: p.partition, fetchOffset: p.offset, partitionMaxBytes: p.maxBytes ?? 1 << 20, currentLeaderEpoch: p.currentLeaderEpoch ?? -1, logStartOffset: -1n })),
      }],
      forgottenTopicsData: [], rackId: '', ...extra,
    });
    return { kafka: body('kafka'), brook: body('brook') };
  }

  /** Compares a Fetch; record bytes must be identical once Brook's producer id is replaced by Kafka's. */
  async function compareFetch(version: number, request: Both<FetchRequestData>, producerIds?: Both<bigint>): Promise<Compared<unknown> & { raw: Both<FetchResponseData> }> {
    const raw = await pair.both('Fetch', version, request);
    if (producerIds) {
      for (const t of raw.brook.responses) {
        for (const p of t.partitions) if (p.records) p.records = withProducerId(p.records, producerIds.brook, producerIds.kafka);
      }
    }
    return { ...pair.normalize(raw), raw };
  }

  // -------------------------------------------------------------------------------------
  it('ApiVersions: every range Brook advertises is served by Kafka 4.4, or is a documented difference (D1)', async () => {
    const c = await pair.compare('ApiVersions', 3, { clientSoftwareName: 'brook-differential', clientSoftwareVersion: '1.0' });
    const { kafka, brook } = c.raw;
    assert.equal(kafka.errorCode, ErrorCode.NONE);
    assert.equal(brook.errorCode, ErrorCode.NONE);
    const narrower: string[] = [];
    for (const range of brook.apiKeys) {
      const k = kafka.apiKeys.find((x) => x.apiKey === range.apiKey);
      assert.ok(k, `Kafka serves API key ${range.apiKey}`);
      assert.ok(range.minVersion >= k.minVersion && range.maxVersion <= k.maxVersion, `API key ${range.apiKey}: Brook ${range.minVersion}-${range.maxVersion} within Kafka's ${k.minVersion}-${k.maxVersion}`);
      if (range.minVersion > k.minVersion || range.maxVersion < k.maxVersion) {
        narrower.push(`${range.apiKey}: brook ${range.minVersion}-${range.maxVersion} kafka ${k.minVersion}-${k.maxVersion}`);
      }
    }
    // D1: every API Brook serves, with Kafka 4.4's range (Kafka 4.4.0's, pinned by the harness),
    // but AddPartitionsToTxn.
    assert.deepEqual(narrower, [
      '24: brook 0-3 kafka 0-5', // AddPartitionsToTxn: v4 (brokers' verification batches) not served, v5 (transactions V2)
    ]);
    // D1: of Kafka's features, Brook lists transaction.version and group.version, with Kafka's
    // ranges and finalized levels (and none of the KRaft ones).
    const pick = <T extends { name: string }>(features: T[] | undefined): T[] =>
      (features ?? []).filter((f) => f.name === 'transaction.version' || f.name === 'group.version').sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual([...(brook.supportedFeatures ?? [])].sort((a, b) => a.name.localeCompare(b.name)), pick(kafka.supportedFeatures));
    assert.deepEqual([...(brook.finalizedFeatures ?? [])].sort((a, b) => a.name.localeCompare(b.name)), pick(kafka.finalizedFeatures));
    assert.ok(pick(kafka.finalizedFeatures).some((f) => f.name === 'transaction.version' && f.maxVersionLevel === 2));
    const rest = c.diffs.filter((d) => !/^(apiKeys|supportedFeatures|finalizedFeatures)/.test(d));
    assert.deepEqual(rest, [], rest.join('\n'));
  });

  it('ApiVersions v5 (KIP-1242): a client names both its cluster and node or neither; a mismatch is REBOOTSTRAP_REQUIRED with no APIs', async () => {
    const ids = {
      kafka: { clusterId: pair.kafkaBroker.clusterId, nodeId: pair.kafkaBroker.nodeId },
      brook: { clusterId: pair.brookBroker.storage.clusterId, nodeId: pair.brookBroker.config.nodeId },
    };
    const request = (pick: (own: { clusterId: string; nodeId: number }) => { clusterId: string | null; nodeId: number }) => ({
      kafka: { clientSoftwareName: 'brook-differential', clientSoftwareVersion: '1.0', ...pick(ids.kafka) },
      brook: { clientSoftwareName: 'brook-differential', clientSoftwareVersion: '1.0', ...pick(ids.brook) },
    });
    const cases: [string, (own: { clusterId: string; nodeId: number }) => { clusterId: string | null; nodeId: number }, number][] = [
      ['its own cluster and node', (own) => own, ErrorCode.NONE],
      ['neither', () => ({ clusterId: null, nodeId: -1 }), ErrorCode.NONE],
      ['a node but no cluster', () => ({ clusterId: null, nodeId: 42 }), ErrorCode.INVALID_REQUEST],
      ['its cluster but no node (-1)', (own) => ({ clusterId: own.clusterId, nodeId: -1 }), ErrorCode.INVALID_REQUEST],
      ['another cluster', (own) => ({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAQ', nodeId: own.nodeId }), ErrorCode.REBOOTSTRAP_REQUIRED],
      ['its cluster, another node', (own) => ({ clusterId: own.clusterId, nodeId: own.nodeId + 1 }), ErrorCode.REBOOTSTRAP_REQUIRED],
    ];
    for (const [what, pick, expected] of cases) {
      const raw = await pair.both('ApiVersions', 5, request(pick));
      for (const side of ['kafka', 'brook'] as const) assert.equal(errorName(raw[side].errorCode), errorName(expected), `${what}: ${side}`);
      if (expected !== ErrorCode.NONE) {
        assertSame(pair.normalize(raw), what);
        assert.deepEqual(raw.brook.apiKeys, [], `${what}: no APIs`);
      }
    }
  });

  // -------------------------------------------------------------------------------------
  describe('Metadata', () => {
    before(() => pair.createTopic('md-a', 3));

    it('all topics, with authorized operations', async () => {
      // Runs before any test creates a topic on one broker only (auto-creation differs: D2, D3).
      assertSame(await pair.compare('Metadata', 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true }), 'Metadata v12 all topics');
      assertSame(await pair.compare('Metadata', 1, { topics: null }), 'Metadata v1 all topics');
      assertSame(await pair.compare('Metadata', 9, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true }), 'Metadata v9 cluster operations');
    });

    it('specific topics, unknown topics without auto-creation, an invalid name, an internal name', async () => {
      const c = await pair.compare('Metadata', 12, {
        topics: [{ name: 'md-a' }, { name: 'md-unknown' }, { name: 'bad name!' }, { name: '__consumer_offsets' }, { name: '__share_group_state' }],
        allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false,
      });
      assertSame(c, 'Metadata v12 specific topics');
      const codes = c.raw.brook.topics.map((t) => [t.name, errorName(t.errorCode), t.isInternal]);
      assert.deepEqual(codes.sort(), [
        ['__consumer_offsets', errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), true],
        ['__share_group_state', errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), true],
        ['bad name!', errorName(ErrorCode.INVALID_TOPIC_EXCEPTION), false],
        ['md-a', errorName(ErrorCode.NONE), false],
        ['md-unknown', errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), false],
      ]);
      assertSame(await pair.compare('Metadata', 12, { topics: [{ name: 'bad name!' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false }), 'invalid name with auto-creation');
      assertSame(await pair.compare('Metadata', 4, { topics: [{ name: 'md-a' }], allowAutoTopicCreation: false }), 'Metadata v4');
      // v13 adds a top-level error code, NONE on both (Kafka 4.4's broker never sets it).
      const v13 = await pair.compare('Metadata', 13, { topics: [{ name: 'md-a' }, { name: 'md-unknown' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assertSame(v13, 'Metadata v13');
      assert.equal(v13.raw.brook.errorCode, ErrorCode.NONE);
    });

    it('topics by id: a known id and an unknown one', async () => {
      const body = (side: 'kafka' | 'brook') => ({
        topics: [{ name: null, topicId: pair.normaliser[side].topicId('md-a')! }, { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }],
        allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false,
      });
      assertSame(await pair.compare('Metadata', 12, { kafka: body('kafka'), brook: body('brook') }), 'Metadata v12 by topic id');
    });

    it('auto-creation: Brook describes the new topic at once, Kafka answers UNKNOWN_TOPIC_OR_PARTITION and creates it later (D2)', async () => {
      const c = await pair.compare('Metadata', 12, { topics: [{ name: 'md-auto' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
      assertOnlyDiffer(c, ['topics[0].errorCode', 'topics[0].topicId', 'topics[0].partitions.length'], 'D2');
      const [k, b] = [c.raw.kafka.topics[0]!, c.raw.brook.topics[0]!];
      assert.equal(k.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      assert.equal(k.topicId, ZERO_UUID);
      assert.deepEqual(k.partitions, []);
      assert.equal(b.errorCode, ErrorCode.NONE);
      assert.notEqual(b.topicId, ZERO_UUID);
      assert.deepEqual(b.partitions.map((p) => [p.partitionIndex, p.leaderId, p.errorCode]), [[0, pair.brookBroker.config.nodeId, 0]]);
      // Kafka did create it (num.partitions=1), asynchronously; afterwards both describe it alike.
      await pair.waitForKafkaTopic('md-auto', 1);
      assertSame(await pair.compare('Metadata', 12, { topics: [{ name: 'md-auto' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), 'auto-created topic');
    });
  });

  // -------------------------------------------------------------------------------------
  describe('CreateTopics', () => {
    const topic = (name: string, numPartitions: number, replicationFactor = 1, configs: Record<string, string> = {}) => ({
      name, numPartitions, replicationFactor, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })),
    });
    const create = (topics: ReturnType<typeof topic>[], version = 7, validateOnly = false) =>
      pair.compare('CreateTopics', version, { topics, timeoutMs: 10_000, validateOnly });

    it('a new topic (v7): same result and the same config names, values and sources', async () => {
      const c = await create([topic('ct-a', 3, 1, { 'retention.ms': '3600000', 'cleanup.policy': 'compact' })]);
      assertSame(c, 'CreateTopics v7');
      const names = c.raw.kafka.topics[0]!.configs!.map((x) => x.name).sort();
      assert.deepEqual(c.raw.brook.topics[0]!.configs!.map((x) => x.name).sort(), names, 'the same topic configs');
      await pair.waitForKafkaTopic('ct-a', 3);
    });

    it('errors: duplicate name, already exists, invalid partitions, replication factor 3, invalid configs, invalid name', async () => {
      assertSame(await create([topic('ct-dup', 1), topic('ct-ok', 2), topic('ct-dup', 2)]), 'duplicate name in one request');
      await pair.waitForKafkaTopic('ct-ok', 2);
      assertSame(await create([topic('ct-a', 3)]), 'already exists');
      assertSame(await create([topic('ct-p0', 0), topic('ct-pm2', -2)]), 'partitions 0 and -2');
      assertSame(await create([topic('ct-rf3', 1, 3)]), 'replication factor 3');
      assertSame(await create([topic('ct-cfg1', 1, 1, { 'retention.ms': 'abc' }), topic('ct-cfg2', 1, 1, { 'no.such.config': '1' })]), 'invalid configs');
      assertSame(await create([topic('bad name!', 1)]), 'invalid topic name');
      assertSame(await create([topic('ct-v4', 1)], 4), 'CreateTopics v4');
      await pair.waitForKafkaTopic('ct-v4', 1);
    });

    it('validateOnly: the same answer, but Brook names no topic id (D6)', async () => {
      const c = await create([topic('ct-vo', 2, 1, { 'retention.ms': '1000' })], 7, true);
      assertOnlyDiffer(c, ['topics[0].topicId'], 'D6');
      assert.notEqual(c.raw.kafka.topics[0]!.topicId, ZERO_UUID);
      assert.equal(c.raw.brook.topics[0]!.topicId, ZERO_UUID);
      // Nothing was created on either.
      assertSame(await pair.compare('Metadata', 12, { topics: [{ name: 'ct-vo' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), 'validateOnly created nothing');
    });
  });

  // -------------------------------------------------------------------------------------
  it('DeleteTopics: by name (v5), by id (v6), unknown name and id', async () => {
    await pair.createTopic('del-a');
    await pair.createTopic('del-b');
    assertSame(await pair.compare('DeleteTopics', 5, { topicNames: ['del-a', 'del-unknown'], timeoutMs: 10_000 }), 'DeleteTopics v5');
    const body = (side: 'kafka' | 'brook') => ({
      topics: [
        { name: null, topicId: pair.normaliser[side].topicId('del-b')! },
        { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
        { name: 'del-unknown', topicId: ZERO_UUID },
      ],
      timeoutMs: 10_000,
    });
    const c = await pair.compare('DeleteTopics', 6, { kafka: body('kafka'), brook: body('brook') });
    assertSame(c, 'DeleteTopics v6');
    assert.deepEqual(c.raw.brook.responses.map((r) => errorName(r.errorCode)).sort(), [
      errorName(ErrorCode.NONE), errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), errorName(ErrorCode.UNKNOWN_TOPIC_ID),
    ].sort());
  });

  // -------------------------------------------------------------------------------------
  describe('DescribeConfigs', () => {
    before(() => pair.createTopic('dc-a', 1, { 'retention.ms': '3600000', 'cleanup.policy': 'compact', 'max.message.bytes': '2000' }));

    it('a topic: every key with synonyms (v4), some keys (v1-v4), an unknown topic', async () => {
      const all = await pair.compare('DescribeConfigs', 4, { resources: [{ resourceType: 2, resourceName: 'dc-a', configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
      assertSame(all, 'all keys with synonyms');
      assert.deepEqual(all.raw.brook.results[0]!.configs.map((x) => x.name).sort(), all.raw.kafka.results[0]!.configs.map((x) => x.name).sort());
      for (const version of [1, 2, 3, 4]) {
        assertSame(await pair.compare('DescribeConfigs', version, {
          resources: [{ resourceType: 2, resourceName: 'dc-a', configurationKeys: ['retention.ms', 'segment.bytes', 'segment.ms', 'flush.ms', 'max.message.bytes', 'no.such.config'] }],
          includeSynonyms: version >= 1, includeDocumentation: false,
        }), `some keys, v${version}`);
      }
      assertSame(await pair.compare('DescribeConfigs', 4, { resources: [{ resourceType: 2, resourceName: 'dc-unknown', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false }), 'unknown topic');
    });

    it('documentation: Kafka explains each config, Brook does not (D9)', async () => {
      const c = await pair.compare('DescribeConfigs', 4, { resources: [{ resourceType: 2, resourceName: 'dc-a', configurationKeys: ['retention.ms'] }], includeSynonyms: false, includeDocumentation: true });
      assertOnlyDiffer(c, ['results[0].configs[0].documentation'], 'D9 documentation');
      assert.ok((c.raw.kafka.results[0]!.configs[0]!.documentation ?? '').length > 0);
      assert.equal(c.raw.brook.results[0]!.configs[0]!.documentation, null);
    });

    it('the broker: the keys both report agree, except documented and environment ones (D9)', async () => {
      const request = (nodeId: number) => ({ resources: [{ resourceType: 4, resourceName: String(nodeId), configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
      const res = await pair.both('DescribeConfigs', 4, { kafka: request(pair.kafkaBroker.nodeId), brook: request(pair.brookBroker.config.nodeId) });
      const kafka = new Map(res.kafka.results[0]!.configs.map((x) => [x.name, x]));
      const brook = res.brook.results[0]!.configs;
      assert.equal(res.kafka.results[0]!.errorCode, 0);
      assert.equal(res.brook.results[0]!.errorCode, 0);
      // Brook reports a subset of Kafka's broker configs and invents none.
      assert.deepEqual(brook.filter((x) => !kafka.has(x.name)).map((x) => x.name), []);
      // D9: Brook takes dynamically only the configs that set topic defaults (Kafka too);
      // Kafka's other dynamic ones are read-only on Brook.
      assert.deepEqual(brook.filter((x) => !x.readOnly && kafka.get(x.name)!.readOnly).map((x) => x.name), [], 'dynamic on Brook, static on Kafka');
      assert.deepEqual(brook.filter((x) => x.readOnly && !kafka.get(x.name)!.readOnly).map((x) => x.name).sort(), [
        'compression.type', 'errors.deadletterqueue.auto.create.topics.enable', 'errors.deadletterqueue.topic.name.prefix',
        'group.consumer.assignment.interval.ms', 'group.share.assignment.interval.ms', 'group.streams.assignment.interval.ms', 'listeners', 'log.flush.interval.ms', 'max.connections', 'min.insync.replicas',
        'num.network.threads', 'unclean.leader.election.enable',
      ]);
      assert.ok(brook.some((x) => x.name === 'log.retention.ms' && !x.readOnly));
      // Their values name each broker's own port and directory, or come from the harness's
      // server.properties; their config types are still compared (listeners, advertised.listeners
      // and log.dirs are LIST since Kafka 4.4, STRING before).
      const environment = new Set(['listeners', 'advertised.listeners', 'log.dirs', 'auto.create.topics.enable', 'num.partitions']);
      // Normalised by name, asserted below: Brook's own defaults (D9). Brook has no streams
      // groups, so its group.coordinator.rebalance.protocols default leaves streams out.
      // Brook runs one socket thread where Kafka runs 3 network threads.
      const deliberate = new Set(['max.connections', 'log.flush.interval.ms', 'group.coordinator.rebalance.protocols', 'num.network.threads']);
      const strip = (x: DescribeConfigsResourceResult) => ({ ...x, readOnly: undefined });
      const diffs: string[] = [];
      for (const b of brook) {
        const k = kafka.get(b.name)!;
        if (environment.has(b.name) || deliberate.has(b.name)) {
          assert.equal(b.configType, k.configType, `${b.name}: config type`);
          continue;
        }
        diffs.push(...pair.normalize({ kafka: strip(k), brook: strip(b) }).diffs.map((d) => `${b.name}: ${d}`));
      }
      assert.deepEqual(diffs, [], diffs.join('\n'));
      // Environment: each broker names its own listener port and data directory.
      assert.match(kafka.get('listeners')!.value!, new RegExp(`PLAINTEXT://127\\.0\\.0\\.1:${pair.kafkaBroker.port}\\b`));
      assert.equal(brook.find((x) => x.name === 'listeners')!.value, `PLAINTEXT://127.0.0.1:${pair.brookBroker.port}`);
      for (const name of ['auto.create.topics.enable', 'num.partitions']) {
        assert.equal(brook.find((x) => x.name === name)!.value, kafka.get(name)!.value, `${name}: value`);
      }
      // D9: Brook's own defaults.
      assert.equal(kafka.get('max.connections')!.value, '2147483647');
      assert.equal(brook.find((x) => x.name === 'max.connections')!.value, '10000');
      assert.equal(kafka.get('num.network.threads')!.value, '3');
      assert.equal(brook.find((x) => x.name === 'num.network.threads')!.value, '1');
      assert.equal(kafka.get('log.flush.interval.ms')!.value, null);
      assert.equal(brook.find((x) => x.name === 'log.flush.interval.ms')!.value, '0');
      // Both report their own default as the default (source DEFAULT_CONFIG, one synonym).
      const protocols = (x: DescribeConfigsResourceResult) => ({ value: x.value, source: x.configSource, synonyms: x.synonyms });
      assert.deepEqual(protocols(kafka.get('group.coordinator.rebalance.protocols')!), {
        value: 'classic,consumer,streams', source: 5, synonyms: [{ name: 'group.coordinator.rebalance.protocols', value: 'classic,consumer,streams', source: 5 }],
      });
      assert.deepEqual(protocols(brook.find((x) => x.name === 'group.coordinator.rebalance.protocols')!), {
        value: 'classic,consumer,streams', source: 5, synonyms: [{ name: 'group.coordinator.rebalance.protocols', value: 'classic,consumer,streams', source: 5 }],
      });
    });
  });

  // -------------------------------------------------------------------------------------
  it('DescribeCluster: v0, v1, controller and unknown endpoint types', async () => {
    assertSame(await pair.compare('DescribeCluster', 0, { includeClusterAuthorizedOperations: true }), 'v0');
    assertSame(await pair.compare('DescribeCluster', 1, { includeClusterAuthorizedOperations: true, endpointType: 1 }), 'v1 brokers');
    const controllers = await pair.compare('DescribeCluster', 1, { includeClusterAuthorizedOperations: false, endpointType: 2 });
    assertSame(controllers, 'v1 controllers');
    assert.equal(controllers.raw.brook.errorCode, ErrorCode.MISMATCHED_ENDPOINT_TYPE);
    assertSame(await pair.compare('DescribeCluster', 1, { includeClusterAuthorizedOperations: false, endpointType: 3 }), 'v1 unknown endpoint type');
    // v2 (KIP-1073): with or without fenced brokers, one live broker that is not fenced.
    for (const includeFencedBrokers of [false, true]) {
      const c = await pair.compare('DescribeCluster', 2, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers });
      assertSame(c, `v2 includeFencedBrokers ${includeFencedBrokers}`);
      assert.deepEqual(c.raw.brook.brokers.map((b) => b.isFenced), [false]);
    }
  });

  // -------------------------------------------------------------------------------------
  describe('Produce', () => {
    before(async () => {
      await pair.createTopic('prod-a', 2);
      await pair.createTopic('prod-small', 1, { 'max.message.bytes': '1000' });
    });

    it('acks=1 and acks=-1, then the stored batches are byte for byte the same', async () => {
      assertSame(await pair.compare('Produce', 9, produceRequest('prod-a', 0, testBatch(3), 1)), 'acks=1');
      const c = await pair.compare('Produce', 9, produceRequest('prod-a', 0, testBatch(2, { first: 3 }), -1));
      assertSame(c, 'acks=-1');
      assert.equal(c.raw.brook!.responses[0]!.partitionResponses[0]!.baseOffset, 3n);
      assertSame(await pair.compare('Produce', 3, produceRequest('prod-a', 1, testBatch(1, { first: 10 }), 1)), 'Produce v3');
      assertSame(await pair.compare('Produce', 11, produceRequest('prod-a', 1, testBatch(1, { first: 11 }), -1)), 'Produce v11');
      assertSame(await compareFetch(12, fetchRequest(12, 'prod-a', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }])), 'fetched batches');
    });

    it('rejected batches: unknown partition, corrupt CRC, oversized, two batches, magic v1, non-zero base offset (D4)', async () => {
      assertSame(await pair.compare('Produce', 9, produceRequest('prod-a', 7, testBatch(1))), 'unknown partition');
      const corrupt = testBatch(2);
      corrupt[CRC_OFFSET] ^= 0xff;
      const nonZeroBase = testBatch(1);
      nonZeroBase.writeBigInt64BE(5n, 0);
      const cases: [string, string, number, Buffer, number][] = [
        ['corrupt CRC', 'prod-a', 1, corrupt, ErrorCode.CORRUPT_MESSAGE],
        ['larger than max.message.bytes', 'prod-small', 0, testBatch(1, { valueSize: 2000 }), ErrorCode.MESSAGE_TOO_LARGE],
        ['two batches', 'prod-a', 1, Buffer.concat([testBatch(1), testBatch(1, { first: 1 })]), ErrorCode.INVALID_RECORD],
        ['magic v1 message', 'prod-a', 1, legacyV1Message('legacy'), ErrorCode.INVALID_RECORD],
        ['non-zero base offset', 'prod-a', 1, nonZeroBase, ErrorCode.INVALID_RECORD],
      ];
      for (const [what, topic, partition, records, code] of cases) {
        const c = await pair.compare('Produce', 9, produceRequest(topic, partition, records));
        const [k, b] = [c.raw.kafka!.responses[0]!.partitionResponses[0]!, c.raw.brook!.responses[0]!.partitionResponses[0]!];
        assert.equal(errorName(k.errorCode), errorName(code), `${what}: Kafka`);
        // D4: Brook says why; Kafka leaves errorMessage null for these.
        assert.equal(k.errorMessage, null, `${what}: Kafka's message`);
        assert.ok(b.errorMessage, `${what}: Brook's message`);
        assertOnlyDiffer(c, ['responses[0].partitionResponses[0].errorMessage'], what);
      }
      // Nothing was appended.
      assertSame(await pair.compare('ListOffsets', 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'prod-a', partitions: [{ partitionIndex: 1, timestamp: -1n }] }] }), 'log end after rejections');
    });

    it('a timestamp too far in the future: INVALID_TIMESTAMP, but Brook lists no record errors (D5)', async () => {
      const now = Date.now();
      const records = encodeRecordBatch({ records: [{ value: Buffer.from('a'), timestamp: now }, { value: Buffer.from('b'), timestamp: now + 7_200_000 }] });
      const c = await pair.compare('Produce', 9, produceRequest('prod-a', 1, records));
      const [k, b] = [c.raw.kafka!.responses[0]!.partitionResponses[0]!, c.raw.brook!.responses[0]!.partitionResponses[0]!];
      assert.equal(k.errorCode, ErrorCode.INVALID_TIMESTAMP);
      assert.deepEqual(k.recordErrors!.map((e) => e.batchIndex), [1]);
      assert.deepEqual(b.recordErrors, []);
      assertOnlyDiffer(c, ['responses[0].partitionResponses[0].recordErrors.length'], 'D5');
    });

    it('an unknown topic: Brook creates it (D3), Kafka answers UNKNOWN_TOPIC_OR_PARTITION and creates nothing', async () => {
      const c = await pair.compare('Produce', 9, produceRequest('prod-unknown', 0, testBatch(1)));
      const [k, b] = [c.raw.kafka!.responses[0]!.partitionResponses[0]!, c.raw.brook!.responses[0]!.partitionResponses[0]!];
      assert.equal(k.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      assert.equal(b.errorCode, ErrorCode.NONE);
      assert.equal(b.baseOffset, 0n);
      assertOnlyDiffer(c, ['responses[0].partitionResponses[0].errorCode', 'responses[0].partitionResponses[0].baseOffset', 'responses[0].partitionResponses[0].logStartOffset'], 'D3');
      const md = await pair.both('Metadata', 12, { topics: [{ name: 'prod-unknown' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.equal(md.kafka.topics[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'Kafka did not create it');
      assert.equal(md.brook.topics[0]!.errorCode, ErrorCode.NONE, 'Brook did');
    });

    it('v13 names topics by id (KIP-516): a known id appends; an unknown id and the zero id are UNKNOWN_TOPIC_ID (never auto-created)', async () => {
      const byId = (side: 'kafka' | 'brook', topicId: string): ProduceRequestData => ({
        transactionalId: null, acks: 1, timeoutMs: 10_000,
        topicData: [{ topicId, partitionData: [{ index: 0, records: testBatch(1, { first: 20 }) }, { index: 7, records: testBatch(1, { first: 21 }) }] }],
      });
      const known = await pair.compare('Produce', 13, { kafka: byId('kafka', pair.normaliser.kafka.topicId('prod-a')!), brook: byId('brook', pair.normaliser.brook.topicId('prod-a')!) });
      assertSame(known, 'v13 by topic id');
      assert.deepEqual(known.raw.brook!.responses[0]!.partitionResponses.map((p) => errorName(p.errorCode)), [errorName(ErrorCode.NONE), errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]);
      for (const [what, topicId] of [['unknown id', 'AAAAAAAAAAAAAAAAAAAAAQ'], ['zero id', ZERO_UUID]] as const) {
        const c = await pair.compare('Produce', 13, byId('kafka', topicId));
        assertSame(c, `v13 ${what}`);
        assert.deepEqual(c.raw.brook!.responses[0]!.partitionResponses.map((p) => errorName(p.errorCode)), [errorName(ErrorCode.UNKNOWN_TOPIC_ID), errorName(ErrorCode.UNKNOWN_TOPIC_ID)], what);
      }
      assertSame(await pair.compare('ListOffsets', 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'prod-a', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }), 'log end after v13');
    });

    it('idempotent producer: sequences, a duplicate, a gap, producer epochs; then the same stored bytes', async () => {
      await pair.createTopic('idem', 1);
      // Kafka's producer id manager answers COORDINATOR_LOAD_IN_PROGRESS until it is ready.
      let kafkaInit = await pair.conn.kafka.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
      for (let i = 0; i < 100 && kafkaInit.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        kafkaInit = await pair.conn.kafka.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
      }
      const brookInit = await pair.conn.brook.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
      pair.normaliser.kafka.registerProducerId(kafkaInit.producerId);
      pair.normaliser.brook.registerProducerId(brookInit.producerId);
      assertSame(pair.normalize({ kafka: kafkaInit, brook: brookInit }), 'InitProducerId');
      const ids = { kafka: kafkaInit.producerId, brook: brookInit.producerId };

      const send = async (what: string, epoch: number, sequence: number, first: number, expected: number) => {
        const records = (side: 'kafka' | 'brook') => testBatch(1, { first, producerId: ids[side], producerEpoch: epoch, baseSequence: sequence });
        const c = await pair.compare('Produce', 9, { kafka: produceRequest('idem', 0, records('kafka'), -1), brook: produceRequest('idem', 0, records('brook'), -1) });
        const b = c.raw.brook!.responses[0]!.partitionResponses[0]!;
        assert.equal(errorName(b.errorCode), errorName(expected), `${what}: Brook`);
        if (expected === ErrorCode.NONE) assertSame(c, what);
        else assertOnlyDiffer(c, ['responses[0].partitionResponses[0].errorMessage'], `${what} (D4)`);
        return c;
      };
      await send('epoch 0, sequence 0', 0, 0, 0, ErrorCode.NONE);
      await send('epoch 0, sequence 1', 0, 1, 1, ErrorCode.NONE);
      const dup = await send('duplicate of sequence 1', 0, 1, 1, ErrorCode.NONE);
      const d = dup.raw.brook!.responses[0]!.partitionResponses[0]!;
      assert.equal(d.baseOffset, 1n, 'a duplicate answers with the offset it got the first time');
      assert.equal(d.logAppendTimeMs, BigInt(T0 + 1000), 'and, as Kafka, with its batch timestamp as the append time');
      await send('gap: sequence 3', 0, 3, 3, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      await send('epoch 1, sequence 0', 1, 0, 4, ErrorCode.NONE);
      await send('stale epoch 0', 0, 2, 5, ErrorCode.INVALID_PRODUCER_EPOCH);
      await send('epoch 2 starting at sequence 5', 2, 5, 6, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      assertSame(await compareFetch(12, fetchRequest(12, 'idem', [{ partition: 0, offset: 0n }]), ids), 'stored idempotent batches');
    });

    it('InitProducerId with a transactional id: after FindCoordinator both allocate, then bump the epoch; before it Kafka answers NOT_COORDINATOR, Brook allocates (D7)', async () => {
      const early = await pair.compare('InitProducerId', 4, { transactionalId: 'tx-early', transactionTimeoutMs: 60_000 });
      assert.equal(early.raw.kafka.errorCode, ErrorCode.NOT_COORDINATOR);
      assert.equal(early.raw.brook.errorCode, ErrorCode.NONE);
      const retriable = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.CONCURRENT_TRANSACTIONS]);
      const find = { key: '', keyType: 1, coordinatorKeys: ['tx-1'] };
      for (const side of ['kafka', 'brook'] as const) {
        let found = await pair.conn[side].request('FindCoordinator', 4, find);
        for (let i = 0; i < 100 && found.coordinators![0]!.errorCode !== ErrorCode.NONE; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          found = await pair.conn[side].request('FindCoordinator', 4, find);
        }
        assert.equal(found.coordinators![0]!.errorCode, ErrorCode.NONE, `${side} coordinates tx-1`);
      }
      const init = async (side: 'kafka' | 'brook') => {
        let reply = await pair.conn[side].request('InitProducerId', 4, { transactionalId: 'tx-1', transactionTimeoutMs: 60_000 });
        for (let i = 0; i < 100 && retriable.has(reply.errorCode); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          reply = await pair.conn[side].request('InitProducerId', 4, { transactionalId: 'tx-1', transactionTimeoutMs: 60_000 });
        }
        return reply;
      };
      for (const epoch of [0, 1]) {
        const [kafka, brook] = [await init('kafka'), await init('brook')];
        assert.deepEqual([brook.errorCode, brook.producerEpoch], [kafka.errorCode, kafka.producerEpoch], `InitProducerId #${epoch + 1}`);
        assert.deepEqual([kafka.errorCode, kafka.producerEpoch], [ErrorCode.NONE, epoch]);
        assert.ok(brook.producerId >= 0n);
      }
      // Too long a transaction timeout: both refuse it.
      const tooLong = await pair.compare('InitProducerId', 4, { transactionalId: 'tx-1', transactionTimeoutMs: 900_001 });
      assert.equal(tooLong.raw.kafka.errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
      assert.equal(tooLong.raw.brook.errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    });
  });

  // -------------------------------------------------------------------------------------
  describe('Fetch', () => {
    before(async () => {
      await pair.createTopic('fetch-a', 2);
      for (const [partition, records] of [[0, testBatch(3)], [0, testBatch(2, { first: 3 })], [1, testBatch(1, { first: 100 })]] as const) {
        assertSame(await pair.compare('Produce', 9, produceRequest('fetch-a', partition, records, -1)), `produce to fetch-a/${partition}`);
      }
    });

    it('from offset 0 (v4, v11, v12), from the middle of a batch, out of range', async () => {
      for (const version of [4, 11, 12]) {
        assertSame(await compareFetch(version, fetchRequest(version, 'fetch-a', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }])), `v${version} from 0`);
      }
      assertSame(await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 1n }])), 'middle of the first batch');
      assertSame(await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 4n }])), 'middle of the second batch');
      const c = await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 100n }]));
      assertSame(c, 'offset out of range');
      assert.equal(c.raw.brook.responses[0]!.partitions[0]!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    });

    it('maxBytes below the first batch (KIP-74: one batch anyway), partitionMaxBytes', async () => {
      const c = await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }], { maxBytes: 10 }));
      assertSame(c, 'maxBytes 10');
      assert.ok(c.raw.brook.responses[0]!.partitions[0]!.records!.length > 10);
      assertSame(await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n, maxBytes: 10 }, { partition: 1, offset: 0n, maxBytes: 10 }])), 'partitionMaxBytes 10');
    });

    it('unknown topic, unknown partition, a future leader epoch; by topic id (v13, v15, v17, v18) and unknown topic id', async () => {
      assertSame(await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 9, offset: 0n }])), 'unknown partition');
      assertSame(await compareFetch(12, fetchRequest(12, 'fetch-unknown', [{ partition: 0, offset: 0n }])), 'unknown topic');
      assertSame(await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n, currentLeaderEpoch: 5 }])), 'leader epoch 5');
      // v18 (KIP-1166) adds the high watermark a follower knows: nothing for a consumer.
      for (const version of [13, 15, 17, 18]) {
        assertSame(await compareFetch(version, fetchRequest(version, 'fetch-a', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }])), `v${version} by topic id`);
      }
      const unknownId = { ...fetchRequest(13, 'fetch-a', [{ partition: 0, offset: 0n }]).kafka };
      unknownId.topics = [{ ...unknownId.topics[0]!, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }];
      const c = await compareFetch(13, { kafka: unknownId, brook: unknownId });
      assertSame(c, 'unknown topic id');
      assert.equal(c.raw.brook.responses[0]!.partitions[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
    });

    it('v12 with unknown tagged fields; isolation levels', async () => {
      const request = fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }]);
      const tagged = (r: FetchRequestData): FetchRequestData => ({
        ...r,
        unknownTaggedFields: [{ tag: 90, data: Buffer.from('x') }],
        topics: r.topics.map((t) => ({
          ...t, unknownTaggedFields: [{ tag: 91, data: Buffer.alloc(3) }],
          partitions: t.partitions.map((p) => ({ ...p, unknownTaggedFields: [{ tag: 92, data: Buffer.alloc(0) }] })),
        })),
      });
      assertSame(await compareFetch(12, { kafka: tagged(request.kafka), brook: tagged(request.brook) }), 'unknown tagged fields');
      for (const isolationLevel of [0, 1]) {
        assertSame(await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }], { isolationLevel })), `isolation level ${isolationLevel}`);
      }
    });

    it('at the log end with minBytes=1: both wait maxWaitMs (500 and 2500 at once: the shorter is answered first), then answer empty', async () => {
      // Not "answered within 2 s", which a loaded machine can miss: two long polls at once on
      // separate connections of each side, and each side must answer the 500 ms one first (the
      // wait ends with maxWaitMs, not with something else), neither before its maxWaitMs (a lower
      // bound, which slowness cannot break).
      const answered: Record<'kafka' | 'brook', number[]> = { kafka: [], brook: [] };
      const connections = await Promise.all((['kafka', 'kafka', 'brook', 'brook'] as const).map((side) => pair.connect(side)));
      try {
        const poll = async (side: 'kafka' | 'brook', conn: (typeof connections)[number], maxWaitMs: number) => {
          const request = fetchRequest(12, 'fetch-a', [{ partition: 1, offset: 1n }], { maxWaitMs, minBytes: 1 });
          const start = performance.now();
          const body = await conn.request('Fetch', 12, request[side]);
          const ms = performance.now() - start;
          answered[side].push(maxWaitMs);
          assert.ok(ms >= maxWaitMs - 50, `${side} answered a ${maxWaitMs} ms long poll after ${Math.round(ms)} ms`);
          return body;
        };
        const [k, , b] = await Promise.all([
          poll('kafka', connections[0]!, 500), poll('kafka', connections[1]!, 2_500),
          poll('brook', connections[2]!, 500), poll('brook', connections[3]!, 2_500),
        ]);
        assert.deepEqual(answered, { kafka: [500, 2_500], brook: [500, 2_500] }, 'each side answers the shorter long poll first');
        assertSame(pair.normalize({ kafka: k, brook: b }), 'empty long poll');
      } finally {
        for (const c of connections) c.close();
      }
    });

    it('fetch sessions: a full request with epoch 0 opens a session on both; an unknown session id is FETCH_SESSION_ID_NOT_FOUND on both', async () => {
      const created = await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }], { sessionId: 0, sessionEpoch: 0 }));
      assertSame(created, 'new session');
      assert.notEqual(created.raw.kafka.sessionId, 0);
      assert.notEqual(created.raw.brook.sessionId, 0);
      // Closed again (a full request with epoch -1), so the session holds no slot.
      await compareFetch(12, { kafka: { ...fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }]).kafka, sessionId: created.raw.kafka.sessionId, sessionEpoch: -1 },
        brook: { ...fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }]).brook, sessionId: created.raw.brook.sessionId, sessionEpoch: -1 } });
      const unknown = await compareFetch(12, fetchRequest(12, 'fetch-a', [{ partition: 0, offset: 0n }], { sessionId: 123_456, sessionEpoch: 1 }));
      assertSame(unknown, 'unknown session');
      assert.equal(unknown.raw.brook.errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    });
  });

  // -------------------------------------------------------------------------------------
  describe('ListOffsets', () => {
    // fetch-a/0 holds offsets 0-4 with timestamps T0, T0+1s, ..., T0+4s (created by the Fetch tests).
    const listOffsets = (partitions: { partitionIndex: number; timestamp: bigint }[], topic = 'fetch-a'): ListOffsetsRequestData =>
      ({ replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: partitions.map((p) => ({ ...p, currentLeaderEpoch: -1 })) }] });

    it('earliest, latest, max timestamp, by timestamp (before all, middle, after all), in v1, v7, v9', async () => {
      const cases: [string, bigint, bigint | null][] = [
        ['earliest', -2n, 0n], ['latest', -1n, 5n], ['max timestamp', -3n, 4n],
        ['before all', BigInt(T0 - 1), 0n], ['middle', BigInt(T0 + 1500), 2n], ['after all', BigInt(T0 + 60_000), -1n],
      ];
      for (const [what, timestamp, offset] of cases) {
        for (const version of [1, 7, 9]) {
          if (version === 1 && timestamp === -3n) continue; // MAX_TIMESTAMP needs v7
          const c = await pair.compare('ListOffsets', version, listOffsets([{ partitionIndex: 0, timestamp }]));
          assertSame(c, `${what}, v${version}`);
          assert.equal(c.raw.brook.topics[0]!.partitions[0]!.offset, offset, `${what}, v${version}: offset`);
        }
      }
      assertSame(await pair.compare('ListOffsets', 9, listOffsets([{ partitionIndex: 0, timestamp: -4n }])), 'earliest local (v9)');
      assertSame(await pair.compare('ListOffsets', 9, listOffsets([{ partitionIndex: 0, timestamp: -5n }])), 'latest tiered (v9)');
      // v11 (KIP-1023): earliest pending upload; without tiered storage nothing waits for it.
      for (const timestamp of [-6n, -2n, -1n]) {
        const c = await pair.compare('ListOffsets', 11, { ...listOffsets([{ partitionIndex: 0, timestamp }]), timeoutMs: 10_000 });
        assertSame(c, `v11 timestamp ${timestamp}`);
        if (timestamp === -6n) assert.equal(c.raw.brook.topics[0]!.partitions[0]!.offset, -1n);
      }
    });

    it('unknown partition, unknown topic, a partition twice in one request', async () => {
      assertSame(await pair.compare('ListOffsets', 7, listOffsets([{ partitionIndex: 9, timestamp: -1n }])), 'unknown partition');
      assertSame(await pair.compare('ListOffsets', 7, listOffsets([{ partitionIndex: 0, timestamp: -1n }], 'lo-unknown')), 'unknown topic');
      const c = await pair.compare('ListOffsets', 7, listOffsets([{ partitionIndex: 0, timestamp: -1n }, { partitionIndex: 1, timestamp: -1n }, { partitionIndex: 0, timestamp: -2n }]));
      assertSame(c, 'duplicate partition');
      assert.deepEqual(c.raw.brook.topics[0]!.partitions.map((p) => [p.partitionIndex, errorName(p.errorCode)]), [[0, errorName(ErrorCode.INVALID_REQUEST)], [1, errorName(ErrorCode.NONE)]]);
    });
  });

  // -------------------------------------------------------------------------------------
  describe('bad input: closing the connection vs answering with an error', () => {
    const outcome = (o: RawOutcome): string => (o.kind === 'response' ? `answered ${o.exchange.body.toString('hex')}` : o.kind);

    it('an unknown API key, an unsupported Metadata version, a truncated Metadata body: both close the connection', async () => {
      const cases: [string, Buffer][] = [
        ['unknown API key 999', requestFrame(999, 0, 7, Buffer.alloc(0), false)],
        ['Metadata v99', requestFrame(3, 99, 7, Buffer.from([0, 0]), true)],
        // Metadata v1: a topic array of 5 entries, then one two-byte string length and nothing more.
        ['truncated Metadata v1 body', requestFrame(3, 1, 7, Buffer.from([0, 0, 0, 5, 0, 3]), false)],
        // Metadata v12 (flexible): the header's tagged-field section is missing too.
        ['truncated Metadata v12 header', requestFrame(3, 12, 7, Buffer.alloc(0), false)],
      ];
      for (const [what, frame] of cases) {
        const o = await pair.sendRawBoth(frame);
        assert.deepEqual({ kafka: outcome(o.kafka), brook: outcome(o.brook) }, { kafka: 'closed', brook: 'closed' }, what);
      }
    });

    it('ApiVersions of a too-new version: both answer v0 UNSUPPORTED_VERSION with ApiVersions\' own range, 0-5', async () => {
      for (const version of [6, 99]) {
        const o = await pair.sendRawBoth(requestFrame(18, version, 7, Buffer.from([0]), true));
        // errorCode 35 (UNSUPPORTED_VERSION), one range: key 18, 0-5 (the v0 body, no throttle time).
        const expected = `answered ${Buffer.from([0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 5]).toString('hex')}`;
        assert.deepEqual({ kafka: outcome(o.kafka), brook: outcome(o.brook) }, { kafka: expected, brook: expected }, `v${version}`);
      }
      // A well-formed v5 (client software "x" "1", no cluster id, node id -1, no tags): both serve it.
      const v5body = Buffer.from([2, 0x78, 2, 0x31, 0, 0xff, 0xff, 0xff, 0xff, 0]);
      const v5 = await pair.sendRawBoth(requestFrame(18, 5, 7, v5body, true));
      for (const side of ['kafka', 'brook'] as const) {
        const o = v5[side];
        assert.ok(o.kind === 'response' && o.exchange.body.readInt16BE(0) === ErrorCode.NONE, `v5: ${side} serves it (${outcome(o)})`);
      }
    });

    it('versions Kafka 4 removed (KIP-896), and InitProducerId v6 (unstable in Kafka 4.4): both close the connection, though Produce v0-2 stay advertised', async () => {
      const cases: [string, Buffer][] = [
        // CreateTopics v1: no topics, timeout 10 s, validateOnly false.
        ['CreateTopics v1', requestFrame(19, 1, 7, Buffer.from([0, 0, 0, 0, 0, 0, 0x27, 0x10, 0]), false)],
        // DeleteTopics v0: no topics, timeout 10 s.
        ['DeleteTopics v0', requestFrame(20, 0, 7, Buffer.from([0, 0, 0, 0, 0, 0, 0x27, 0x10]), false)],
        // DescribeConfigs v0: no resources.
        ['DescribeConfigs v0', requestFrame(32, 0, 7, Buffer.from([0, 0, 0, 0]), false)],
        // OffsetCommit v1 and OffsetFetch v0: group "g", no topics.
        ['OffsetCommit v1', requestFrame(8, 1, 7, Buffer.from([0, 1, 0x67, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0]), false)],
        ['OffsetFetch v0', requestFrame(9, 0, 7, Buffer.from([0, 1, 0x67, 0, 0, 0, 0]), false)],
        // Produce v2: acks 1, timeout 10 s, no topics.
        ['Produce v2', requestFrame(0, 2, 7, Buffer.from([0, 1, 0, 0, 0x27, 0x10, 0, 0, 0, 0]), false)],
        // InitProducerId v6 (KIP-939): no transactional id, 60 s, producer -1/-1, no 2PC, no tags.
        ['InitProducerId v6', requestFrame(22, 6, 7, Buffer.from([0, 0, 0, 0xea, 0x60, ...Array(10).fill(0xff), 0, 0, 0]), true)],
      ];
      for (const [what, frame] of cases) {
        const o = await pair.sendRawBoth(frame);
        assert.deepEqual({ kafka: outcome(o.kafka), brook: outcome(o.brook) }, { kafka: 'closed', brook: 'closed' }, what);
      }
    });

    it('valid requests followed by bad input in the same write: both answer the valid ones, then close', async () => {
      const apiVersions = (correlationId: number): Buffer => withSizePrefix(requestFrame(18, 0, correlationId, Buffer.alloc(0), false));
      const metadata = (correlationId: number): Buffer => withSizePrefix(requestFrame(3, 1, correlationId, Buffer.from([0xff, 0xff, 0xff, 0xff]), false));
      const cases: [string, Buffer][] = [
        ['ApiVersions, Metadata, then a negative size', Buffer.concat([apiVersions(7), metadata(8), Buffer.from([0xff, 0xff, 0xff, 0xfe])])],
        ['ApiVersions, then an unknown API key', Buffer.concat([apiVersions(7), withSizePrefix(requestFrame(0x7fff, 0, 9, Buffer.alloc(0), false))])],
        ['Metadata, then a truncated Metadata body', Buffer.concat([metadata(7), withSizePrefix(requestFrame(3, 1, 9, Buffer.from([0, 0, 0, 5, 0, 3]), false))])],
      ];
      const correlationIds = (received: Buffer): number[] => {
        const ids: number[] = [];
        for (let at = 0; received.length - at >= 8; at += 4 + received.readInt32BE(at)) ids.push(received.readInt32BE(at + 4));
        return ids;
      };
      for (const [what, bytes] of cases) {
        const o = await pair.sendBytesBoth(bytes);
        const seen = { kafka: [correlationIds(o.kafka.received), o.kafka.closedByBroker], brook: [correlationIds(o.brook.received), o.brook.closedByBroker] };
        assert.deepEqual(seen.brook, seen.kafka, what);
        assert.equal(o.kafka.closedByBroker, true, `${what}: Kafka closes`);
        assert.ok(correlationIds(o.kafka.received).length > 0, `${what}: Kafka answers first`);
      }
    });

    it('a valid request on the same connection after an error response keeps working on both', async () => {
      // Produce with acks=2 is answered with INVALID_REQUIRED_ACKS; the connection stays usable.
      const c = await pair.compare('Produce', 9, produceRequest('fetch-a', 0, testBatch(1), 2));
      assertSame(c, 'acks=2');
      assert.equal(c.raw.brook!.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.INVALID_REQUIRED_ACKS);
      assertSame(await pair.compare('Metadata', 12, { topics: [{ name: 'fetch-a' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), 'after an error');
    });
  });

  // -------------------------------------------------------------------------------------
  // Last: it creates __consumer_offsets on both (the Metadata test above expects it absent),
  // then Kafka deletes it.
  it('DeleteTopics of __consumer_offsets: Kafka deletes it and drops the groups\' offsets; Brook refuses with INVALID_TOPIC_EXCEPTION (D10)', async () => {
    const OFFSETS = '__consumer_offsets';
    await pair.createTopic('d10');
    // Kafka creates __consumer_offsets at the first FindCoordinator and answers
    // COORDINATOR_NOT_AVAILABLE until its coordinator has loaded it.
    for (let i = 0; ; i++) {
      const found = await pair.conn.kafka.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['d10-group'] });
      if (found.coordinators![0]!.errorCode === ErrorCode.NONE) break;
      assert.ok(i < 150, `Kafka has no coordinator for the group: ${errorName(found.coordinators![0]!.errorCode)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const commit = {
      groupId: 'd10-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'd10', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    };
    // And NOT_COORDINATOR for a while after FindCoordinator found it (the partition is loading).
    for (let i = 0; ; i++) {
      const committed = await pair.conn.kafka.request('OffsetCommit', 8, commit);
      if (committed.topics[0]!.partitions[0]!.errorCode === ErrorCode.NONE) break;
      assert.ok(i < 150, `Kafka refuses the commit: ${errorName(committed.topics[0]!.partitions[0]!.errorCode)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await pair.conn.brook.request('OffsetCommit', 8, commit)).topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    const offsetFetch = { groupId: '', topics: [], groups: [{ groupId: 'd10-group', memberId: null, memberEpoch: -1, topics: null }], requireStable: false };

    const c = await pair.compare('DeleteTopics', 5, { topicNames: [OFFSETS], timeoutMs: 10_000 });
    assertOnlyDiffer(c, ['responses[0].errorCode', 'responses[0].errorMessage'], 'D10');
    assert.deepEqual(c.raw.kafka.responses.map((r) => [r.name, errorName(r.errorCode), r.errorMessage]), [[OFFSETS, errorName(ErrorCode.NONE), null]]);
    assert.deepEqual(c.raw.brook.responses.map((r) => [r.name, errorName(r.errorCode), r.errorMessage]), [
      [OFFSETS, errorName(ErrorCode.INVALID_TOPIC_EXCEPTION), `Cannot delete internal topic ${OFFSETS}`],
    ]);

    // Kafka's coordinator lets go of the group (NOT_COORDINATOR while __consumer_offsets is
    // gone, then, once recreated, a group without offsets); Brook's still has the offset.
    for (let i = 0; ; i++) {
      const fetched = await pair.conn.kafka.request('OffsetFetch', 8, offsetFetch);
      const group = fetched.groups![0]!;
      if (group.errorCode !== ErrorCode.NONE || group.topics.length === 0) break;
      assert.ok(i < 150, 'Kafka still has the group\'s offset 15 s after deleting __consumer_offsets');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const brook = await pair.conn.brook.request('OffsetFetch', 8, offsetFetch);
    assert.equal(brook.groups![0]!.topics[0]!.partitions[0]!.committedOffset, 7n);
  });
});