import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import {
  describeTopicConfigs,
  TOPIC_CONFIG_DEFAULTS,
  topicDefaultsFromBrokerConfig,
  validateTopicConfigs,
  type Storage,
} from '../../src/storage/index.js';
import { batch, ENGINES, errorCodeOf, makeEnv, NOW, partitionDir, readAll, type StorageEnv } from '../support/storage/helpers.js';

const BASE64URL_UUID = /^[A-Za-z0-9_-]{22}$/;

for (const kind of ENGINES) {
  describe(`topic catalog (${kind})`, () => {
    let env: StorageEnv;
    let storage: Storage;
    before(async () => {
      env = makeEnv(kind);
      storage = await env.open();
    });
    after(() => env.cleanup());

    it('has a Kafka-style cluster id', () => {
      assert.match(storage.clusterId, BASE64URL_UUID);
    });

    it('creates topics with ids, partitions, configs and the internal flag', () => {
      const t = storage.createTopic('orders', 3, { 'retention.ms': '1000' });
      assert.match(t.topicId, BASE64URL_UUID);
      assert.equal(t.partitions, 3);
      assert.deepEqual(t.configs, { 'retention.ms': '1000' });
      assert.equal(t.isInternal, false);
      assert.equal(storage.topic('orders'), t);
      assert.equal(storage.topicById(t.topicId), t);
      for (let p = 0; p < 3; p++) assert.equal(storage.partition('orders', p)!.logEndOffset, 0n);
      assert.equal(storage.partition('orders', 3), undefined);
      assert.equal(storage.createTopic('__consumer_offsets', 2, {}, { isInternal: true }).isInternal, true);
    });

    it('validates names as Kafka does', () => {
      for (const bad of ['', '.', '..', 'a'.repeat(250), 'has space', 'slash/name', 'ümlaut']) {
        assert.equal(errorCodeOf(() => storage.createTopic(bad, 1)), ErrorCode.INVALID_TOPIC_EXCEPTION, bad);
      }
      storage.createTopic('a'.repeat(249), 1);
      storage.createTopic('ok.name_with-all', 1);
      // '.' and '_' collide in Kafka's metric names.
      assert.equal(errorCodeOf(() => storage.createTopic('ok_name_with-all', 1)), ErrorCode.INVALID_TOPIC_EXCEPTION);
    });

    it('refuses duplicates, bad partition counts and bad configs', () => {
      storage.createTopic('dup', 1);
      assert.equal(errorCodeOf(() => storage.createTopic('dup', 1)), ErrorCode.TOPIC_ALREADY_EXISTS);
      assert.equal(errorCodeOf(() => storage.createTopic('zero', 0)), ErrorCode.INVALID_PARTITIONS);
      assert.equal(errorCodeOf(() => storage.createTopic('neg', -1)), ErrorCode.INVALID_PARTITIONS);
      assert.equal(errorCodeOf(() => storage.createTopic('cfg', 1, { 'no.such.config': '1' })), ErrorCode.INVALID_CONFIG);
      assert.equal(errorCodeOf(() => storage.createTopic('cfg', 1, { 'retention.ms': 'soon' })), ErrorCode.INVALID_CONFIG);
      assert.equal(storage.topic('cfg'), undefined);
    });

    it('validates without creating', () => {
      storage.validateTopic('maybe', 2, { 'cleanup.policy': 'compact' });
      assert.equal(storage.createTopic('maybe2', 2, {}, { validateOnly: true }).partitions, 2);
      assert.equal(storage.topic('maybe'), undefined);
      assert.equal(storage.topic('maybe2'), undefined);
      assert.equal(errorCodeOf(() => storage.validateTopic('dup', 1)), ErrorCode.TOPIC_ALREADY_EXISTS);
    });

    it('deletes topics; a new topic of the same name starts empty with a new id', () => {
      const first = storage.createTopic('recycled', 1);
      storage.partition('recycled', 0)!.append(batch({ count: 5 }), { nowMs: NOW });
      storage.deleteTopic('recycled');
      assert.equal(storage.topic('recycled'), undefined);
      assert.equal(storage.topicById(first.topicId), undefined);
      assert.equal(errorCodeOf(() => storage.deleteTopic('recycled')), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      if (kind === 'file') assert.equal(fs.existsSync(partitionDir(env, 'recycled')), false);
      const second = storage.createTopic('recycled', 1);
      assert.notEqual(second.topicId, first.topicId);
      assert.equal(storage.partition('recycled', 0)!.logEndOffset, 0n);
    });

    it('hands out producer ids once', () => {
      const ids = new Set(Array.from({ length: 1500 }, () => storage.allocateProducerId()));
      assert.equal(ids.size, 1500);
    });
  });
}

describe('topic catalog persistence (file)', () => {
  let env: StorageEnv;
  before(() => {
    env = makeEnv('file');
  });
  after(() => env.cleanup());

  it('keeps topics, ids, the cluster id and data across restarts; never reuses producer ids', async () => {
    let storage = await env.open();
    const clusterId = storage.clusterId;
    const t = storage.createTopic('kept', 2, { 'retention.bytes': '12345' });
    storage.partition('kept', 1)!.append(batch({ count: 3 }), { nowMs: NOW });
    const producerId = storage.allocateProducerId();
    await storage.close();
    assert.ok(fs.existsSync(join(env.dir, 'catalog.json')));
    assert.match(fs.readFileSync(join(partitionDir(env, 'kept', 1), 'partition.metadata'), 'utf8'), new RegExp(`topic_id: ${t.topicId}`));

    storage = await env.open();
    assert.equal(storage.clusterId, clusterId);
    assert.deepEqual(storage.topic('kept'), t);
    assert.equal(readAll(storage.partition('kept', 1)!).length, 3);
    assert.ok(storage.allocateProducerId() > producerId);
    await storage.close();
  });

  it('rewrites a lost or torn partition.metadata from the catalog (new partitions write it without fsync)', async () => {
    let storage = await env.open();
    const t = storage.createTopic('meta', 2);
    await storage.close();
    // As a crash could leave them: one file gone, one cut short.
    fs.rmSync(join(partitionDir(env, 'meta', 0), 'partition.metadata'));
    fs.writeFileSync(join(partitionDir(env, 'meta', 1), 'partition.metadata'), 'version: 0\ntopic_id: ');
    storage = await env.open();
    for (const p of [0, 1]) {
      assert.match(fs.readFileSync(join(partitionDir(env, 'meta', p), 'partition.metadata'), 'utf8'), new RegExp(`topic_id: ${t.topicId}$`, 'm'));
    }
    await storage.close();
  });

  it('refuses a data directory that is already open', async () => {
    const storage = await env.open();
    await assert.rejects(env.open(), (err: unknown) => errorCodeOf(() => {
      throw err;
    }) === ErrorCode.KAFKA_STORAGE_ERROR);
    await storage.close();
    await (await env.open()).close();
  });

  it('removes directories left by a deleted topic at the next open', async () => {
    let storage = await env.open();
    const t = storage.createTopic('ghost', 1);
    await storage.close();
    // A crash between the catalog update and the directory removal leaves the directory behind.
    const catalog = JSON.parse(fs.readFileSync(join(env.dir, 'catalog.json'), 'utf8')) as { topics: { topicId: string }[] };
    catalog.topics = catalog.topics.filter((x) => x.topicId !== t.topicId);
    fs.writeFileSync(join(env.dir, 'catalog.json'), JSON.stringify(catalog));
    fs.mkdirSync(join(env.dir, 'old-0.abc-delete'));
    storage = await env.open();
    assert.equal(fs.existsSync(partitionDir(env, 'ghost')), false);
    assert.equal(fs.existsSync(join(env.dir, 'old-0.abc-delete')), false);
    await storage.close();
  });
});

describe('topic configs', () => {
  it('has Kafka 4.4 defaults', () => {
    assert.equal(TOPIC_CONFIG_DEFAULTS['cleanup.policy'], 'delete');
    assert.equal(TOPIC_CONFIG_DEFAULTS['retention.ms'], '604800000');
    assert.equal(TOPIC_CONFIG_DEFAULTS['retention.bytes'], '-1');
    assert.equal(TOPIC_CONFIG_DEFAULTS['segment.bytes'], '1073741824');
    assert.equal(TOPIC_CONFIG_DEFAULTS['segment.ms'], '604800000');
    assert.equal(TOPIC_CONFIG_DEFAULTS['max.message.bytes'], '1048588');
    assert.equal(TOPIC_CONFIG_DEFAULTS['message.timestamp.type'], 'CreateTime');
    assert.equal(TOPIC_CONFIG_DEFAULTS['message.timestamp.before.max.ms'], '9223372036854775807');
    assert.equal(TOPIC_CONFIG_DEFAULTS['message.timestamp.after.max.ms'], '3600000');
    assert.equal(TOPIC_CONFIG_DEFAULTS['index.interval.bytes'], '4096');
    assert.equal(TOPIC_CONFIG_DEFAULTS['segment.index.bytes'], '10485760');
    assert.equal(TOPIC_CONFIG_DEFAULTS['min.insync.replicas'], '1');
    assert.equal(TOPIC_CONFIG_DEFAULTS['compression.type'], 'producer');
    assert.equal(TOPIC_CONFIG_DEFAULTS['file.delete.delay.ms'], '60000');
    assert.equal(TOPIC_CONFIG_DEFAULTS['unclean.leader.election.enable'], 'false');
    // Added by Kafka 4.4 (LogConfig's defaults there).
    assert.equal(TOPIC_CONFIG_DEFAULTS['max.decompressed.message.bytes'], '2147483639');
    assert.equal(TOPIC_CONFIG_DEFAULTS['remote.copy.lag.bytes'], '-1');
    assert.equal(TOPIC_CONFIG_DEFAULTS['remote.copy.lag.ms'], '0');
    assert.equal(TOPIC_CONFIG_DEFAULTS['errors.deadletterqueue.group.enable'], 'false');
    assert.equal(TOPIC_CONFIG_DEFAULTS['internal.segment.bytes'], undefined);
    assert.equal(TOPIC_CONFIG_DEFAULTS['message.format.version'], undefined, 'removed in Kafka 4.0');
  });

  it('refuses unknown names and bad values with INVALID_CONFIG', () => {
    const bad: Record<string, string>[] = [
      { 'message.format.version': '3.0' },
      { 'segment.bytes': '1000' },
      { 'segment.bytes': '4294967296' },
      { 'retention.ms': '-2' },
      { 'cleanup.policy': 'delete,shred' },
      { 'message.timestamp.type': 'Whenever' },
      { 'compression.type': 'brotli' },
      { 'min.cleanable.dirty.ratio': '1.5' },
      { 'preallocate': 'yes' },
      { 'compression.gzip.level': '0' },
      { 'remote.storage.enable': 'true' },
      { 'leader.replication.throttled.replicas': 'everything' },
      { 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' },
      // Kafka 4.4's ranges: [1,...,2147483639], [-1,...], [-1,...]; a boolean.
      { 'max.decompressed.message.bytes': '0' },
      { 'max.decompressed.message.bytes': '2147483640' },
      { 'remote.copy.lag.bytes': '-2' },
      { 'remote.copy.lag.ms': '-2' },
      { 'errors.deadletterqueue.group.enable': 'yes' },
    ];
    for (const configs of bad) assert.equal(errorCodeOf(() => validateTopicConfigs(configs)), ErrorCode.INVALID_CONFIG, JSON.stringify(configs));
    validateTopicConfigs({
      'cleanup.policy': 'compact, delete', 'retention.ms': '-1', 'preallocate': 'TRUE', 'compression.gzip.level': '-1',
      'leader.replication.throttled.replicas': '0:1,1:1', 'segment.bytes': ' 1048576 ', 'internal.segment.bytes': '100',
      'max.decompressed.message.bytes': '1', 'remote.copy.lag.bytes': '-1', 'remote.copy.lag.ms': '-1', 'errors.deadletterqueue.group.enable': 'true',
    });
  });

  it('maps broker settings onto topic defaults with Kafka\'s synonyms and units', () => {
    assert.deepEqual(topicDefaultsFromBrokerConfig({ 'log.retention.hours': '2', 'log.roll.ms': '5000', 'message.max.bytes': '100', 'num.partitions': '3' }), {
      'retention.ms': '7200000', 'segment.ms': '5000', 'max.message.bytes': '100',
    });
    assert.deepEqual(topicDefaultsFromBrokerConfig({ 'log.retention.ms': '10', 'log.retention.minutes': '1' }), { 'retention.ms': '10' });
    assert.deepEqual(topicDefaultsFromBrokerConfig({ 'log.retention.minutes': '1' }), { 'retention.ms': '60000' });
    // Kafka 4.4's new synonyms: the broker's max.decompressed.message.bytes and log.remote.copy.lag.*.
    assert.deepEqual(topicDefaultsFromBrokerConfig({ 'max.decompressed.message.bytes': '1000', 'log.remote.copy.lag.ms': '5', 'log.remote.copy.lag.bytes': '7' }), {
      'max.decompressed.message.bytes': '1000', 'remote.copy.lag.ms': '5', 'remote.copy.lag.bytes': '7',
    });
  });

  it('describes every config with its source', async () => {
    const entries = describeTopicConfigs({ 'retention.ms': '5' }, { 'segment.ms': '7' });
    const byName = new Map(entries.map((e) => [e.name, e]));
    assert.deepEqual(byName.get('retention.ms'), { name: 'retention.ms', value: '5', source: 'topic', serverDefaultName: 'log.retention.ms', implemented: true });
    assert.equal(byName.get('segment.ms')!.source, 'broker');
    assert.equal(byName.get('segment.ms')!.serverDefaultName, 'log.roll.ms');
    assert.equal(byName.get('compression.type')!.source, 'default');
    assert.equal(byName.has('internal.segment.bytes'), false);
    const env = makeEnv('memory');
    const storage = await env.open({ topicDefaults: { 'retention.ms': '99' } });
    storage.createTopic('described', 1);
    assert.equal(storage.describeTopicConfigs('described')!.find((e) => e.name === 'retention.ms')!.value, '99');
    assert.equal(storage.describeTopicConfigs('missing'), undefined);
    await env.cleanup();
  });
});
