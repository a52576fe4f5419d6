/**
 * Group configs' validation where the differential test against Kafka 4.4 cannot reach with
 * Kafka's default bounds (a session not longer than the heartbeat interval needs wider
 * broker bounds), and the ISO-8601 durations of share.auto.offset.reset=by_duration.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brokerConfig } from '../../src/broker/config.js';
import { groupConfigsProblem } from '../../src/broker/group-configs/group-config-defs.js';
import { isoDurationMs } from '../../src/broker/group-configs/iso-duration.js';

describe('group configs: validation', () => {
  it('a session must outlast the heartbeat interval, the broker\'s value standing in for the one not set (GroupConfig.validate)', () => {
    const wide = brokerConfig({ groupConsumerMinSessionTimeoutMs: 1000, groupConsumerMaxHeartbeatIntervalMs: 60_000, groupConsumerSessionTimeoutMs: 45_000 });
    assert.equal(groupConfigsProblem({ 'consumer.session.timeout.ms': '5000' }, wide), 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms');
    assert.equal(groupConfigsProblem({ 'consumer.heartbeat.interval.ms': '45000' }, wide), 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms');
    assert.equal(groupConfigsProblem({ 'consumer.session.timeout.ms': '6000', 'consumer.heartbeat.interval.ms': '5000' }, wide), null);
  });

  it('names are checked first, then values in Kafka\'s order of definition, then bounds', () => {
    const c = brokerConfig({});
    assert.equal(groupConfigsProblem({ 'share.delivery.count.limit': 'x', 'nope': '1' }, c), 'Unknown group config name: nope');
    assert.equal(groupConfigsProblem({ 'share.delivery.count.limit': 'x', 'consumer.session.timeout.ms': 'y' }, c),
      'Invalid value y for configuration consumer.session.timeout.ms: Not a number of type INT');
    assert.equal(groupConfigsProblem({ 'consumer.session.timeout.ms': '2147483648' }, c),
      'Invalid value 2147483648 for configuration consumer.session.timeout.ms: Not a number of type INT');
  });
});

describe('ISO-8601 durations (Java\'s Duration.parse)', () => {
  it('reads days, hours, minutes and seconds with fractions and signs; refuses what Java refuses', () => {
    assert.equal(isoDurationMs('PT1H'), 3_600_000);
    assert.equal(isoDurationMs('P1DT2H3M4.5S'), 93_784_500);
    assert.equal(isoDurationMs('pt15m'), 900_000);
    assert.equal(isoDurationMs('PT-1.5S'), -1500);
    assert.equal(isoDurationMs('-PT1H'), -3_600_000);
    assert.equal(isoDurationMs('P2D'), 172_800_000);
    for (const bad of ['P', 'PT', '1H', 'PT1H2', 'P1H', 'PT1.5M', '']) assert.equal(isoDurationMs(bad), null, bad);
  });
});
