/**
 * DescribeCluster: the one broker, which is also the controller. Endpoint type 1 asks for
 * brokers; type 2 (controllers, KIP-919) is answered as Kafka's brokers answer it:
 * UNSUPPORTED_ENDPOINT_TYPE.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeClusterRequestData, DescribeClusterResponseData } from '../../protocol/messages/describe-cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { CLUSTER_OPERATIONS, OPERATIONS_NOT_REQUESTED } from '../authorized-operations.js';

const BROKERS_ENDPOINT = 1;

export const describeClusterHandler = defineHandler<DescribeClusterRequestData, DescribeClusterResponseData>({
  api: Api.DescribeCluster,
  minVersion: 0,
  maxVersion: Api.DescribeCluster.request.highestVersion,
  handle(ctx, request) {
    const { broker } = ctx;
    const endpointType = request.endpointType ?? BROKERS_ENDPOINT;
    const base = {
      throttleTimeMs: 0,
      endpointType,
      clusterId: broker.storage.clusterId,
      controllerId: broker.config.nodeId,
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations ? CLUSTER_OPERATIONS : OPERATIONS_NOT_REQUESTED,
    };
    if (endpointType !== BROKERS_ENDPOINT) {
      return { ...base, errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, errorMessage: 'The request was sent to a broker; only brokers can be described', brokers: [] };
    }
    return {
      ...base,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      brokers: [{ brokerId: broker.config.nodeId, host: broker.advertisedHost, port: broker.advertisedPort, rack: null }],
    };
  },
});
