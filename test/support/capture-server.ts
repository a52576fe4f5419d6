/**
 * A tiny Kafka endpoint for tests that records the request frames real clients send.
 * It answers just enough for a client to go on to its next request (ApiVersions,
 * Metadata, Produce, InitProducerId, FindCoordinator, the join/sync handshake, an empty
 * long-poll Fetch); anything else gets the response schema's all-default value, which
 * Kafka reads as "no error, nothing to report".
 */
import { createServer, type Server, type Socket } from 'node:net';
import { API_CODECS, type ApiCodecs } from '../../src/protocol/messages/index.js';
import { FrameDecoder, decodeRequestHeader, encodeResponse } from '../../src/protocol/frame.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { defaultStruct } from './random-message.js';
import { GOLDEN_TOPIC, GOLDEN_TOPIC_ID } from './golden.js';

export interface CapturedFrame {
  readonly apiKey: number;
  readonly apiName: string;
  readonly apiVersion: number;
  readonly clientId: string | null;
  /** The frame without its size prefix: header and body exactly as received. */
  readonly frame: Buffer;
}

export interface CaptureServer {
  readonly port: number;
  readonly frames: CapturedFrame[];
  /** Responses this server failed to build (a test-support bug if not empty). */
  readonly errors: string[];
  close(): Promise<void>;
}

const UNSUPPORTED_VERSION = 35;
const MEMBER_ID_REQUIRED = 79;

type Body = Record<string, unknown>;

export async function startCaptureServer(options: { partitions?: number } = {}): Promise<CaptureServer> {
  const partitions = options.partitions ?? 1;
  const frames: CapturedFrame[] = [];
  const errors: string[] = [];
  const sockets = new Set<Socket>();
  let port = 0;
  let generation = 0;

  const apiVersionsBody = (): Body => ({
    ...defaultStruct(API_CODECS.find((a) => a.name === 'ApiVersions')!.response.schema),
    apiKeys: API_CODECS.map((a) => ({ apiKey: a.apiKey, minVersion: a.request.lowestVersion, maxVersion: a.request.highestVersion })),
  });

  const respond = (api: ApiCodecs, version: number, body: Body): Body => {
    const base = defaultStruct(api.response.schema);
    switch (api.name) {
      case 'ApiVersions':
        return apiVersionsBody();
      case 'Metadata': {
        const requested = (body['topics'] as { name: string | null }[] | null) ?? [];
        return {
          ...base,
          brokers: [{ ...defaultStruct(brokerSchema(api)), nodeId: 0, host: '127.0.0.1', port, rack: null }],
          clusterId: 'brook-capture',
          controllerId: 0,
          topics: requested.map((t) => ({
            ...defaultStruct(topicSchema(api)),
            name: t.name,
            topicId: t.name === GOLDEN_TOPIC ? GOLDEN_TOPIC_ID : ZERO_UUID,
            partitions: Array.from({ length: partitions }, (_, p) => ({
              ...defaultStruct(partitionSchema(api)),
              partitionIndex: p, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [],
            })),
          })),
        };
      }
      case 'Produce': {
        const topics = body['topicData'] as { name?: string; topicId?: string; partitionData: { index: number }[] }[];
        return {
          ...base,
          responses: topics.map((t) => ({
            name: t.name ?? '',
            topicId: t.topicId ?? ZERO_UUID,
            partitionResponses: t.partitionData.map((p) => ({
              index: p.index, errorCode: 0, baseOffset: 0n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null,
            })),
          })),
        };
      }
      case 'InitProducerId':
        return { ...base, producerId: 1000n, producerEpoch: 0 };
      case 'FindCoordinator': {
        const keys = (body['coordinatorKeys'] as string[] | undefined) ?? [];
        const node = { nodeId: 0, host: '127.0.0.1', port };
        if (version >= 4) return { ...base, coordinators: keys.map((key) => ({ key, ...node, errorCode: 0, errorMessage: null })) };
        return { ...base, ...node, errorCode: 0 };
      }
      case 'JoinGroup': {
        const protocols = body['protocols'] as { name: string; metadata: Buffer }[];
        const memberId = body['memberId'] as string;
        if (memberId === '' && version >= 4) return { ...base, errorCode: MEMBER_ID_REQUIRED, memberId: 'member-1' };
        const id = memberId === '' ? 'member-1' : memberId;
        generation++;
        return {
          ...base, generationId: generation, protocolName: protocols[0]?.name ?? '', leader: id, memberId: id,
          protocolType: body['protocolType'],
          members: [{ memberId: id, groupInstanceId: null, metadata: protocols[0]?.metadata ?? Buffer.alloc(0) }],
        };
      }
      case 'SyncGroup': {
        const assignments = body['assignments'] as { memberId: string; assignment: Buffer }[];
        const mine = assignments.find((a) => a.memberId === body['memberId']);
        return {
          ...base, protocolType: body['protocolType'] ?? null, protocolName: body['protocolName'] ?? null,
          assignment: mine?.assignment ?? Buffer.alloc(0),
        };
      }
      default:
        return base;
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const decoder = new FrameDecoder();
    socket.on('data', (chunk) => {
      let list: Buffer[];
      try {
        list = decoder.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const frame of list) handle(socket, frame);
    });
  });

  const handle = (socket: Socket, frame: Buffer): void => {
    let decoded;
    try {
      decoded = decodeRequestHeader(frame);
    } catch {
      socket.destroy();
      return;
    }
    const { header, api, body: reader } = decoded;
    const version = header.requestApiVersion;
    frames.push({ apiKey: api.apiKey, apiName: api.name, apiVersion: version, clientId: header.clientId ?? null, frame: Buffer.from(frame) });
    if (version > api.request.highestVersion) {
      // Kafka's answer to a too-new ApiVersions request: v0 with the supported ranges.
      if (api.name === 'ApiVersions') {
        socket.write(Buffer.concat(encodeResponse(api, 0, header.correlationId, { ...apiVersionsBody(), errorCode: UNSUPPORTED_VERSION })));
      } else socket.destroy();
      return;
    }
    let body: Body;
    try {
      body = api.request.read(reader, version) as Body;
    } catch {
      socket.destroy();
      return;
    }
    if (api.name === 'Produce' && body['acks'] === 0) return;
    const reply = (): void => {
      if (socket.destroyed) return;
      try {
        socket.write(Buffer.concat(encodeResponse(api, version, header.correlationId, respond(api, version, body))));
      } catch (err) {
        // A bug in this test server must show, not hang the client: record it and hang up.
        errors.push(`${api.name} v${version}: ${(err as Error).message}`);
        socket.destroy();
      }
    };
    // An empty fetch answers after its max wait, as a broker's long poll would.
    if (api.name === 'Fetch') setTimeout(reply, Math.min(Number(body['maxWaitMs'] ?? 100), 500));
    else reply();
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    frames,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function field(api: ApiCodecs, name: string) {
  const f = api.response.schema.fields.find((x) => x.name === name);
  if (!f) throw new Error(`${api.name} response has no field ${name}`);
  return f;
}

function elementStruct(f: ReturnType<typeof field>) {
  const t = f.type;
  if (t.kind === 'array' && t.element.kind === 'struct') return t.element.struct;
  throw new Error(`${f.name} is not an array of structs`);
}

function brokerSchema(api: ApiCodecs) {
  return elementStruct(field(api, 'brokers'));
}

function topicSchema(api: ApiCodecs) {
  return elementStruct(field(api, 'topics'));
}

function partitionSchema(api: ApiCodecs) {
  const topic = topicSchema(api);
  const f = topic.fields.find((x) => x.name === 'partitions')!;
  return elementStruct(f);
}
