/**
 * Differential conformance of groups' configs (ConfigResource type GROUP, KIP-848/KIP-932):
 * DescribeConfigs (every config with its source, synonyms and documentation),
 * IncrementalAlterConfigs (SET, DELETE; APPEND/SUBTRACT, unknown names, bad and
 * out-of-bounds values refused with Kafka's codes and messages; validateOnly) and the legacy
 * AlterConfigs, sent raw to Apache Kafka 4.4 and to Brook; error messages word for word.
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair } from '../support/differential/pair.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { IncrementalAlterConfigsRequestAlterableConfig } from '../../src/protocol/messages/incremental-alter-configs.js';

const GROUP = 32;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

const op = (name: string, configOperation: number, value: string | null): IncrementalAlterConfigsRequestAlterableConfig => ({ name, configOperation, value });

function outcomes(r: readonly { errorCode: number; errorMessage: string | null; resourceName: string }[]): string[] {
  return r.map((x) => `${x.resourceName}: ${x.errorCode} ${x.errorMessage}`);
}

describe('Brook vs Apache Kafka 4.4: group configs (DescribeConfigs, IncrementalAlterConfigs, AlterConfigs on GROUP)', { timeout: 180_000 }, () => {
  let pair: DiffPair;

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start({ 'num.partitions': '1' });
  });

  after(async () => {
    await pair?.stop();
  });

  async function incremental(resources: { name: string; configs: IncrementalAlterConfigsRequestAlterableConfig[] }[], validateOnly = false): Promise<string[]> {
    const body = { resources: resources.map((r) => ({ resourceType: GROUP, resourceName: r.name, configs: r.configs })), validateOnly };
    const c = await pair.compare('IncrementalAlterConfigs', 1, body);
    const what = `IncrementalAlterConfigs ${JSON.stringify(body)}`;
    assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
    assert.deepEqual(outcomes(c.raw.brook.responses), outcomes(c.raw.kafka.responses), `${what}: messages`);
    return outcomes(c.raw.brook.responses);
  }

  const one = async (name: string, ...configs: IncrementalAlterConfigsRequestAlterableConfig[]): Promise<string> => (await incremental([{ name, configs }]))[0]!;

  /** Kafka's broker learns a group's configs from its metadata log: asks again (briefly) until they agree. */
  async function describeGroup(name: string, keys: string[] | null, includeSynonyms = true, includeDocumentation = false) {
    const request = { resources: [{ resourceType: GROUP, resourceName: name, configurationKeys: keys }], includeSynonyms, includeDocumentation };
    let c = await pair.compare('DescribeConfigs', 4, request);
    for (let i = 0; i < 40 && c.diffs.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      c = await pair.compare('DescribeConfigs', 4, request);
    }
    assert.deepEqual(c.diffs, [], `DescribeConfigs ${JSON.stringify(request)}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
    assert.equal(c.raw.brook.results[0]!.errorMessage, c.raw.kafka.results[0]!.errorMessage);
    return c.raw.brook.results[0]!;
  }

  const values = (r: { configs: readonly { name: string; value: string | null; configSource: number }[] }): string[] =>
    r.configs.map((c) => `${c.name}=${c.value} (${c.configSource})`).sort();

  it('describes every group config at its default, with synonyms and documentation; the empty name is refused', async () => {
    const all = await describeGroup('g-defaults', null, true, true);
    assert.equal(all.configs.length, 21);
    assert.ok(all.configs.every((c) => c.configSource === 5 && c.documentation !== null));
    await describeGroup('g-defaults', null, false, false);
    const empty = await describeGroup('', null);
    assert.equal(empty.errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal(empty.errorMessage, 'Group name must not be empty');
  });

  it('SET and DELETE, then what DescribeConfigs shows; validateOnly changes nothing', async () => {
    assert.equal(await one('g1', op('consumer.session.timeout.ms', SET, '50000'), op('share.auto.offset.reset', SET, 'earliest')), 'g1: 0 null');
    const set = await describeGroup('g1', null);
    assert.ok(values(set).includes('consumer.session.timeout.ms=50000 (8)'));
    assert.ok(values(set).includes('share.auto.offset.reset=earliest (8)'));
    await describeGroup('g1', ['consumer.session.timeout.ms', 'share.auto.offset.reset', 'no.such.config']);
    assert.equal(await one('g1', op('consumer.session.timeout.ms', DELETE, null), op('share.delivery.count.limit', SET, '7')), 'g1: 0 null');
    const after = await describeGroup('g1', ['consumer.session.timeout.ms', 'share.delivery.count.limit', 'share.auto.offset.reset']);
    assert.deepEqual(values(after), ['consumer.session.timeout.ms=45000 (5)', 'share.auto.offset.reset=earliest (8)', 'share.delivery.count.limit=7 (8)']);
    // Deleting what is not set is no error.
    assert.equal(await one('g1', op('share.record.lock.duration.ms', DELETE, null)), 'g1: 0 null');

    assert.deepEqual(await incremental([{ name: 'g2', configs: [op('consumer.session.timeout.ms', SET, '50000')] }], true), ['g2: 0 null']);
    assert.deepEqual(values(await describeGroup('g2', ['consumer.session.timeout.ms'])), ['consumer.session.timeout.ms=45000 (5)']);
    // validateOnly still validates.
    await incremental([{ name: 'g2', configs: [op('consumer.session.timeout.ms', SET, '1')] }], true);
  });

  it('refusals with Kafka\'s codes and messages', async () => {
    const refusals: IncrementalAlterConfigsRequestAlterableConfig[][] = [
      [op('no.such.config', SET, '1')],
      [op('group.consumer.session.timeout.ms', SET, '50000')],
      [op('consumer.session.timeout.ms', SET, 'abc')],
      [op('consumer.session.timeout.ms', SET, '0')],
      [op('consumer.session.timeout.ms', SET, '1000')],
      [op('consumer.session.timeout.ms', SET, '70000')],
      [op('consumer.heartbeat.interval.ms', SET, '16000')],
      [op('share.session.timeout.ms', SET, '44999')],
      [op('share.heartbeat.interval.ms', SET, '4999')],
      [op('consumer.session.timeout.ms', APPEND, '50000')],
      [op('consumer.session.timeout.ms', SUBTRACT, '50000')],
      [op('streams.rack.aware.assignment.tags', APPEND, 'a')],
      [op('consumer.session.timeout.ms', 7, '50000')],
      [op('share.auto.offset.reset', SET, 'by_duration:-PT1H')],
      [op('share.auto.offset.reset', SET, 'bogus')],
      [op('share.auto.offset.reset', SET, 'by_duration:PT')],
      [op('share.isolation.level', SET, 'bogus')],
      [op('share.record.lock.duration.ms', SET, '500')],
      [op('share.record.lock.duration.ms', SET, '5000')],
      [op('share.delivery.count.limit', SET, '11')],
      [op('share.delivery.count.limit', SET, '1')],
      [op('share.partition.max.record.locks', SET, '5000')],
      [op('share.assignment.interval.ms', SET, '20000')],
      [op('consumer.assignor.offload.enable', SET, 'maybe')],
      [op('share.renew.acknowledge.enable', SET, 'yes')],
      [op('errors.deadletterqueue.topic.name', SET, '__dlq')],
      [op('streams.num.standby.replicas', SET, '5')],
      [op('streams.num.warmup.replicas', SET, '21')],
      [op('streams.task.offset.interval.ms', SET, '1000')],
      [op('streams.assignor.name', SET, 'x')],
      [op('streams.acceptable.recovery.lag', SET, 'lots')],
      [op('streams.rack.aware.assignment.tags', SET, 'a,b,a')],
      // The first problem in Kafka's order: names, then values as parsed, then bounds.
      [op('share.delivery.count.limit', SET, '11'), op('consumer.session.timeout.ms', SET, 'x')],
      [op('consumer.session.timeout.ms', SET, '1000'), op('consumer.heartbeat.interval.ms', SET, '1')],
    ];
    for (const configs of refusals) {
      const [outcome] = await incremental([{ name: 'g-refused', configs }]);
      assert.notEqual(outcome, 'g-refused: 0 null', JSON.stringify(configs));
    }
    assert.deepEqual(await incremental([{ name: '', configs: [op('consumer.session.timeout.ms', SET, '50000')] }]), [': 42 Default group resources are not allowed.']);
    // Values Kafka takes, at the edges of their bounds.
    assert.equal(await one('g-edges', op('share.auto.offset.reset', SET, 'by_duration:P1DT2H3M4.5S'), op('share.record.lock.duration.ms', SET, '60000'),
      op('share.delivery.count.limit', SET, '2'), op('share.heartbeat.interval.ms', SET, '15000'), op('share.session.timeout.ms', SET, '45000'),
      op('errors.deadletterqueue.topic.name', SET, 'dlq'), op('streams.assignor.name', SET, 'sticky'), op('share.isolation.level', SET, 'read_committed')), 'g-edges: 0 null');
    await describeGroup('g-edges', null);
    // Resources of one request are answered each on its own.
    assert.deepEqual(await incremental([
      { name: 'g-a', configs: [op('share.delivery.count.limit', SET, '3')] },
      { name: 'g-b', configs: [op('share.delivery.count.limit', SET, '30')] },
    ]), ['g-a: 0 null', 'g-b: 40 share.delivery.count.limit must be in the range 2 to 10 inclusive.']);
    await describeGroup('g-a', ['share.delivery.count.limit']);
    await describeGroup('g-b', ['share.delivery.count.limit']);
  });

  it('the legacy AlterConfigs replaces a group\'s configs as a whole', async () => {
    assert.equal(await one('g-legacy', op('share.auto.offset.reset', SET, 'earliest')), 'g-legacy: 0 null');
    const res = await pair.both('AlterConfigs', 2, {
      resources: [{ resourceType: GROUP, resourceName: 'g-legacy', configs: [{ name: 'consumer.session.timeout.ms', value: '50000' }] }], validateOnly: false,
    });
    assert.deepEqual(outcomes(res.brook.responses), outcomes(res.kafka.responses));
    assert.deepEqual(outcomes(res.brook.responses), ['g-legacy: 0 null']);
    const described = await describeGroup('g-legacy', ['consumer.session.timeout.ms', 'share.auto.offset.reset']);
    assert.deepEqual(values(described), ['consumer.session.timeout.ms=50000 (8)', 'share.auto.offset.reset=latest (5)']);
    const bad = await pair.both('AlterConfigs', 2, {
      resources: [{ resourceType: GROUP, resourceName: 'g-legacy', configs: [{ name: 'share.delivery.count.limit', value: '99' }] }], validateOnly: false,
    });
    assert.deepEqual(outcomes(bad.brook.responses), outcomes(bad.kafka.responses));
  });
});
