/**
 * A bare Kafka wire-protocol connection for tests: Brook's own codecs (`encodeRequest` /
 * `decodeResponse`) over a plain `net.Socket`, no client logic at all (no retries, no
 * metadata, no version negotiation). The same bytes go to Apache Kafka and to Brook, so
 * differential tests can compare the answers.
 *
 *   const conn = await RawConnection.connect('127.0.0.1', 9092);
 *   const md = await conn.request('Metadata', 12, { topics: [] });
 *   conn.close();
 *
 * or, for a single request, `await rawRequest(host, port, 'ApiVersions', 3, {})`.
 */
import { Socket } from 'node:net';
import { API_CODECS, type ApiCodecs } from '../../../src/protocol/messages/index.js';
import type * as M from '../../../src/protocol/messages/index.js';
import { encodeRequest, decodeResponse, responseCorrelationId, FrameDecoder } from '../../../src/protocol/frame.js';

/** Request and response body types of every API Brook has codecs for, by API name. */
export interface ApiTypes {
  Produce: [M.ProduceRequestData, M.ProduceResponseData];
  Fetch: [M.FetchRequestData, M.FetchResponseData];
  ListOffsets: [M.ListOffsetsRequestData, M.ListOffsetsResponseData];
  Metadata: [M.MetadataRequestData, M.MetadataResponseData];
  OffsetCommit: [M.OffsetCommitRequestData, M.OffsetCommitResponseData];
  OffsetFetch: [M.OffsetFetchRequestData, M.OffsetFetchResponseData];
  FindCoordinator: [M.FindCoordinatorRequestData, M.FindCoordinatorResponseData];
  JoinGroup: [M.JoinGroupRequestData, M.JoinGroupResponseData];
  Heartbeat: [M.HeartbeatRequestData, M.HeartbeatResponseData];
  LeaveGroup: [M.LeaveGroupRequestData, M.LeaveGroupResponseData];
  SyncGroup: [M.SyncGroupRequestData, M.SyncGroupResponseData];
  DescribeGroups: [M.DescribeGroupsRequestData, M.DescribeGroupsResponseData];
  ListGroups: [M.ListGroupsRequestData, M.ListGroupsResponseData];
  SaslHandshake: [M.SaslHandshakeRequestData, M.SaslHandshakeResponseData];
  ApiVersions: [M.ApiVersionsRequestData, M.ApiVersionsResponseData];
  CreateTopics: [M.CreateTopicsRequestData, M.CreateTopicsResponseData];
  DeleteTopics: [M.DeleteTopicsRequestData, M.DeleteTopicsResponseData];
  InitProducerId: [M.InitProducerIdRequestData, M.InitProducerIdResponseData];
  DescribeConfigs: [M.DescribeConfigsRequestData, M.DescribeConfigsResponseData];
  SaslAuthenticate: [M.SaslAuthenticateRequestData, M.SaslAuthenticateResponseData];
  DeleteGroups: [M.DeleteGroupsRequestData, M.DeleteGroupsResponseData];
  OffsetDelete: [M.OffsetDeleteRequestData, M.OffsetDeleteResponseData];
  DescribeCluster: [M.DescribeClusterRequestData, M.DescribeClusterResponseData];
  ConsumerGroupHeartbeat: [M.ConsumerGroupHeartbeatRequestData, M.ConsumerGroupHeartbeatResponseData];
  ConsumerGroupDescribe: [M.ConsumerGroupDescribeRequestData, M.ConsumerGroupDescribeResponseData];
  ShareGroupHeartbeat: [M.ShareGroupHeartbeatRequestData, M.ShareGroupHeartbeatResponseData];
  ShareFetch: [M.ShareFetchRequestData, M.ShareFetchResponseData];
  ShareAcknowledge: [M.ShareAcknowledgeRequestData, M.ShareAcknowledgeResponseData];
  ShareGroupDescribe: [M.ShareGroupDescribeRequestData, M.ShareGroupDescribeResponseData];
  StreamsGroupHeartbeat: [M.StreamsGroupHeartbeatRequestData, M.StreamsGroupHeartbeatResponseData];
  StreamsGroupDescribe: [M.StreamsGroupDescribeRequestData, M.StreamsGroupDescribeResponseData];
  CreatePartitions: [M.CreatePartitionsRequestData, M.CreatePartitionsResponseData];
  AlterConfigs: [M.AlterConfigsRequestData, M.AlterConfigsResponseData];
  IncrementalAlterConfigs: [M.IncrementalAlterConfigsRequestData, M.IncrementalAlterConfigsResponseData];
  DeleteRecords: [M.DeleteRecordsRequestData, M.DeleteRecordsResponseData];
  DescribeLogDirs: [M.DescribeLogDirsRequestData, M.DescribeLogDirsResponseData];
  DescribeProducers: [M.DescribeProducersRequestData, M.DescribeProducersResponseData];
  DescribeTopicPartitions: [M.DescribeTopicPartitionsRequestData, M.DescribeTopicPartitionsResponseData];
  DescribeClientQuotas: [M.DescribeClientQuotasRequestData, M.DescribeClientQuotasResponseData];
  AlterClientQuotas: [M.AlterClientQuotasRequestData, M.AlterClientQuotasResponseData];
  DescribeUserScramCredentials: [M.DescribeUserScramCredentialsRequestData, M.DescribeUserScramCredentialsResponseData];
  AlterPartitionReassignments: [M.AlterPartitionReassignmentsRequestData, M.AlterPartitionReassignmentsResponseData];
  ListPartitionReassignments: [M.ListPartitionReassignmentsRequestData, M.ListPartitionReassignmentsResponseData];
  AddPartitionsToTxn: [M.AddPartitionsToTxnRequestData, M.AddPartitionsToTxnResponseData];
  AddOffsetsToTxn: [M.AddOffsetsToTxnRequestData, M.AddOffsetsToTxnResponseData];
  EndTxn: [M.EndTxnRequestData, M.EndTxnResponseData];
  WriteTxnMarkers: [M.WriteTxnMarkersRequestData, M.WriteTxnMarkersResponseData];
  TxnOffsetCommit: [M.TxnOffsetCommitRequestData, M.TxnOffsetCommitResponseData];
  DescribeTransactions: [M.DescribeTransactionsRequestData, M.DescribeTransactionsResponseData];
  ListTransactions: [M.ListTransactionsRequestData, M.ListTransactionsResponseData];
  InitializeShareGroupState: [M.InitializeShareGroupStateRequestData, M.InitializeShareGroupStateResponseData];
  ReadShareGroupState: [M.ReadShareGroupStateRequestData, M.ReadShareGroupStateResponseData];
  WriteShareGroupState: [M.WriteShareGroupStateRequestData, M.WriteShareGroupStateResponseData];
  DeleteShareGroupState: [M.DeleteShareGroupStateRequestData, M.DeleteShareGroupStateResponseData];
  ReadShareGroupStateSummary: [M.ReadShareGroupStateSummaryRequestData, M.ReadShareGroupStateSummaryResponseData];
  DescribeShareGroupOffsets: [M.DescribeShareGroupOffsetsRequestData, M.DescribeShareGroupOffsetsResponseData];
  AlterShareGroupOffsets: [M.AlterShareGroupOffsetsRequestData, M.AlterShareGroupOffsetsResponseData];
  DeleteShareGroupOffsets: [M.DeleteShareGroupOffsetsRequestData, M.DeleteShareGroupOffsetsResponseData];
}

export type ApiName = keyof ApiTypes;
export type RequestBody<N extends ApiName> = ApiTypes[N][0];
/** Produce with `acks: 0` gets no response from Kafka; `request` then resolves `undefined`. */
export type ResponseBody<N extends ApiName> = N extends 'Produce' ? ApiTypes[N][1] | undefined : ApiTypes[N][1];

const apisByName = new Map<string, ApiCodecs>(API_CODECS.map((api) => [api.name, api]));

/** The codecs of one API by name (throws for a name Brook has no codec for). */
export function apiByName(name: string): ApiCodecs {
  const api = apisByName.get(name);
  if (api === undefined) throw new Error(`no codec for API ${JSON.stringify(name)}`);
  return api;
}

export interface RequestOptions {
  /** The request header's client id; default the connection's (`'brook-test'` unless set). */
  clientId?: string | null;
  /**
   * Whether the server answers. Default: true, except Produce with `acks: 0`, which Kafka
   * never answers; such a request resolves `undefined` as soon as it is written.
   */
  expectResponse?: boolean;
}

export interface ConnectOptions {
  /** Default client id of the connection's requests. */
  clientId?: string | null;
  /** Connect timeout, and how long each request waits for its response; default 30000. */
  timeoutMs?: number;
}

/** One response, with the frame it came in (size prefix removed, response header included). */
export interface RawExchange<T> {
  correlationId: number;
  body: T;
  frame: Buffer;
}

interface Pending {
  api: ApiCodecs | null;
  version: number;
  resolve(value: RawExchange<unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * One TCP connection. Requests can be pipelined: each gets the next correlation id, and
 * every response is matched to its request by correlation id. A response whose id matches
 * nothing, a frame that cannot be cut, a timeout or the socket closing fail every request
 * still waiting and close the connection.
 */
export class RawConnection {
  readonly host: string;
  readonly port: number;
  private readonly socket: Socket;
  private readonly decoder = new FrameDecoder();
  private readonly pending = new Map<number, Pending>();
  private readonly clientId: string | null;
  private readonly timeoutMs: number;
  private nextCorrelationId = 1;
  private failure: Error | null = null;

  private constructor(host: string, port: number, socket: Socket, options: ConnectOptions) {
    this.host = host;
    this.port = port;
    this.socket = socket;
    this.clientId = options.clientId === undefined ? 'brook-test' : options.clientId;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(new Error(`connection to ${host}:${port} failed: ${err.message}`)));
    socket.on('close', () => this.fail(new Error(`connection to ${host}:${port} closed`)));
  }

  static connect(host: string, port: number, options: ConnectOptions = {}): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connecting to ${host}:${port} timed out after ${options.timeoutMs ?? 30_000} ms`));
      }, options.timeoutMs ?? 30_000);
      const onError = (err: Error): void => {
        clearTimeout(timer);
        reject(err);
      };
      socket.once('error', onError);
      socket.connect(port, host, () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(new RawConnection(host, port, socket, options));
      });
    });
  }

  /** True until the connection failed or was closed. */
  get open(): boolean {
    return this.failure === null;
  }

  /** Sends one request and resolves its decoded response body. */
  async request<N extends ApiName>(apiName: N, version: number, body: RequestBody<N>, options: RequestOptions = {}): Promise<ResponseBody<N>> {
    const exchange = await this.exchange(apiName, version, body, options);
    return exchange?.body as ResponseBody<N>;
  }

  /**
   * Like `request`, but also returns the correlation id and the raw response frame, for
   * byte-level comparisons. Resolves `undefined` when no response is expected.
   */
  exchange<N extends ApiName>(apiName: N, version: number, body: RequestBody<N>, options: RequestOptions = {}): Promise<RawExchange<ResponseBody<N>> | undefined> {
    const api = apiByName(apiName);
    const correlationId = this.takeCorrelationId();
    const expectResponse = options.expectResponse ?? !(apiName === 'Produce' && (body as M.ProduceRequestData).acks === 0);
    let frame: Buffer[];
    try {
      frame = encodeRequest({ api, apiVersion: version, correlationId, clientId: options.clientId === undefined ? this.clientId : options.clientId, body });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.send(Buffer.concat(frame), correlationId, expectResponse ? api : null, version, expectResponse) as Promise<RawExchange<ResponseBody<N>> | undefined>;
  }

  /**
   * Sends a request given as raw bytes: the frame without its size prefix (request header
   * and body, e.g. a deliberately malformed one). Its correlation id is read from bytes 4..8.
   * Resolves the response frame undecoded (`body` is the frame after the 4-byte correlation
   * id), or `undefined` if `expectResponse` is false.
   */
  sendRaw(payload: Buffer, expectResponse = true): Promise<RawExchange<Buffer> | undefined> {
    if (payload.length < 8) return Promise.reject(new Error('a request needs at least api key, version and correlation id (8 bytes)'));
    const correlationId = payload.readInt32BE(4);
    const sized = Buffer.alloc(4 + payload.length);
    sized.writeInt32BE(payload.length, 0);
    payload.copy(sized, 4);
    return this.send(sized, correlationId, null, 0, expectResponse) as Promise<RawExchange<Buffer> | undefined>;
  }

  /** Reserves the next correlation id, e.g. to build a `sendRaw` payload with it. */
  takeCorrelationId(): number {
    const id = this.nextCorrelationId;
    this.nextCorrelationId = id === 0x7fffffff ? 1 : id + 1;
    return id;
  }

  /** Closes the socket; requests still waiting fail. */
  close(): void {
    this.fail(new Error(`connection to ${this.host}:${this.port} closed by the caller`));
  }

  private send(sized: Buffer, correlationId: number, api: ApiCodecs | null, version: number, expectResponse: boolean): Promise<RawExchange<unknown> | undefined> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.pending.has(correlationId)) return Promise.reject(new Error(`correlation id ${correlationId} is already waiting for a response`));
    if (!expectResponse) {
      return new Promise((resolve, reject) => this.socket.write(sized, (err) => (err ? reject(err) : resolve(undefined))));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new Error(`no response to correlation id ${correlationId} within ${this.timeoutMs} ms from ${this.host}:${this.port}`));
      }, this.timeoutMs);
      this.pending.set(correlationId, { api, version, resolve, reject, timer });
      this.socket.write(sized);
    });
  }

  private onData(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    for (const frame of frames) {
      let correlationId: number;
      try {
        correlationId = responseCorrelationId(frame);
      } catch (err) {
        this.fail(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const waiting = this.pending.get(correlationId);
      if (waiting === undefined) {
        this.fail(new Error(`response with unknown correlation id ${correlationId} from ${this.host}:${this.port}`));
        return;
      }
      this.pending.delete(correlationId);
      clearTimeout(waiting.timer);
      if (waiting.api === null) {
        waiting.resolve({ correlationId, body: frame.subarray(4), frame });
        continue;
      }
      try {
        const decoded = decodeResponse(frame, waiting.api, waiting.version);
        waiting.resolve({ correlationId, body: decoded.body, frame });
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        waiting.reject(new Error(`cannot decode ${waiting.api.name} v${waiting.version} response: ${reason}`));
      }
    }
  }

  private fail(error: Error): void {
    if (this.failure === null) this.failure = error;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      this.pending.delete(id);
      waiting.reject(error);
    }
    this.socket.destroy();
  }
}

/** Opens a connection, sends one request, reads its response and closes the connection. */
export async function rawRequest<N extends ApiName>(
  host: string,
  port: number,
  apiName: N,
  version: number,
  body: RequestBody<N>,
  options: RequestOptions & ConnectOptions = {},
): Promise<ResponseBody<N>> {
  const conn = await RawConnection.connect(host, port, options);
  try {
    return await conn.request(apiName, version, body, options);
  } finally {
    conn.close();
  }
}
