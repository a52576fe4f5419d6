/**
 * Request and response hooks of the embedded broker: every request a client sends and every
 * response the broker sends back, decoded, through `broker.onRequest`/`onResponse` and the
 * `brook:request`/`brook:response` diagnostics channels. The expected values are what the
 * raw client put on the wire (api key, version, correlation id, client id, body).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import diagnostics_channel from 'node:diagnostics_channel';
import { BROKER_CHANNELS, type BrokerRequest, type BrokerRequestOf, type BrokerResponse } from '../../src/index.js';
import type { MetadataResponseData } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 20_000 };
const METADATA_KEY = 3;
const PRODUCE_KEY = 0;

test('onRequest and onResponse see every request and response, decoded, until unsubscribed', T, async (t) => {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { clientId: 'hooks-test', timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  broker.createTopic('hooked', 1);
  const requests: BrokerRequest[] = [];
  const responses: BrokerResponse[] = [];
  const offRequest = broker.onRequest((r) => requests.push(r));
  const offResponse = broker.onResponse((r) => responses.push(r));

  await conn.request('Metadata', 12, { topics: [{ name: 'hooked', topicId: undefined }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const records = encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v') }] });
  await conn.request('Produce', 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'hooked', partitionData: [{ index: 0, records }] }] });

  assert.deepEqual(requests.map((r) => [r.api, r.apiKey, r.apiVersion, r.correlationId, r.clientId]), [['Metadata', METADATA_KEY, 12, 1, 'hooks-test'], ['Produce', PRODUCE_KEY, 9, 2, 'hooks-test']]);
  const { requestApiKey, requestApiVersion, correlationId, clientId } = requests[0]!.header;
  assert.deepEqual({ requestApiKey, requestApiVersion, correlationId, clientId }, { requestApiKey: METADATA_KEY, requestApiVersion: 12, correlationId: 1, clientId: 'hooks-test' });
  // The union narrows by API name: the body is typed (ProduceRequestData) without a cast.
  const produce = requests.find((r): r is BrokerRequestOf<'Produce'> => r.api === 'Produce')!;
  assert.equal(produce.body.topicData[0]!.name, 'hooked');
  assert.equal(produce.body.acks, -1);
  assert.equal(requests[0]!.broker, `127.0.0.1:${broker.port}`);
  assert.equal(requests[0]!.clientHost, '/127.0.0.1');

  assert.deepEqual(responses.map((r) => [r.api, r.apiKey, r.apiVersion, r.correlationId, r.clientId, r.injected]), [['Metadata', METADATA_KEY, 12, 1, 'hooks-test', false], ['Produce', PRODUCE_KEY, 9, 2, 'hooks-test', false]]);
  assert.equal(responses[0]!.request, requests[0]);
  assert.deepEqual((responses[0]!.body as MetadataResponseData).topics.map((x) => [x.name, x.errorCode]), [['hooked', 0]]);

  offRequest();
  offResponse();
  await conn.request('ApiVersions', 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
  assert.equal(requests.length, 2);
  assert.equal(responses.length, 2);
});

test('the diagnostics channels carry the same events, and unused hooks leave the request path alone', T, async (t) => {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  const controls = broker.context.controls;
  assert.equal(controls.active, false, 'nothing listens: the connection skips the controls');
  const seen: string[] = [];
  const onRequest = (m: unknown): void => void seen.push(`request ${(m as BrokerRequest).api} ${(m as BrokerRequest).correlationId}`);
  const onResponse = (m: unknown): void => void seen.push(`response ${(m as BrokerResponse).api} ${(m as BrokerResponse).correlationId}`);
  diagnostics_channel.subscribe(BROKER_CHANNELS.request, onRequest);
  diagnostics_channel.subscribe(BROKER_CHANNELS.response, onResponse);
  try {
    assert.equal(controls.active, true);
    await conn.request('ApiVersions', 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
    assert.deepEqual(seen, ['request ApiVersions 1', 'response ApiVersions 1']);
  } finally {
    diagnostics_channel.unsubscribe(BROKER_CHANNELS.request, onRequest);
    diagnostics_channel.unsubscribe(BROKER_CHANNELS.response, onResponse);
  }
  assert.equal(controls.active, false);
  const off = broker.onResponse(() => undefined);
  assert.equal(controls.active, true);
  off();
  assert.equal(controls.active, false);
});

test('a hook that throws is logged; the request is still answered', T, async (t) => {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  broker.onRequest(() => {
    throw new Error('hook bug');
  });
  const answer = await conn.request('ApiVersions', 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
  assert.equal(answer.errorCode, 0);
});
