/**
 * DescribeCluster: the one broker, which is also the controller. Endpoint type 1 asks for
 * brokers; type 2 (controllers, KIP-919) is answered as Kafka's brokers answer it
 * (AuthHelper.computeDescribeClusterResponse): MISMATCHED_ENDPOINT_TYPE, any other type
 * UNSUPPORTED_ENDPOINT_TYPE (INVALID_REQUEST in v0), with every other field at its default.
 * v2's IncludeFencedBrokers (KIP-1073) adds nobody: the one broker is never fenced.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeClusterRequestData, DescribeClusterResponseData } from '../../protocol/messages/describe-cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, CLUSTER_NAME, ResourceType, OPERATIONS_NOT_REQUESTED, authorizeCluster, authorizedOperations, authorizes } from '../authorization.js';

const BROKERS_ENDPOINT = 1;
const CONTROLLERS_ENDPOINT = 2;

function failed(errorCode: number, errorMessage: string): DescribeClusterResponseData {
  return {
    throttleTimeMs: 0, errorCode, errorMessage, endpointType: BROKERS_ENDPOINT, clusterId: '', controllerId: -1, brokers: [],
    clusterAuthorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}

export const describeClusterHandler = defineHandler<DescribeClusterRequestData, DescribeClusterResponseData>({
  api: Api.DescribeCluster,
  authorization: authorizes({ CLUSTER: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.DescribeCluster.request.highestVersion,
  handle(ctx, request) {
    const { broker } = ctx;
    const endpointType = request.endpointType ?? BROKERS_ENDPOINT;
    if (endpointType === CONTROLLERS_ENDPOINT) {
      return failed(ctx.apiVersion === 0 ? ErrorCode.INVALID_REQUEST : ErrorCode.MISMATCHED_ENDPOINT_TYPE,
        'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER');
    }
    if (endpointType !== BROKERS_ENDPOINT) {
      return failed(ctx.apiVersion === 0 ? ErrorCode.INVALID_REQUEST : ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, `Unsupported endpoint type ${endpointType}`);
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType,
      clusterId: broker.storage.clusterId,
      controllerId: broker.config.nodeId,
      brokers: [{ brokerId: broker.config.nodeId, host: broker.advertisedHost, port: broker.advertisedPort, rack: null, isFenced: false }],
      // Kafka: 0 without DESCRIBE on the cluster (the request itself needs no permission).
      clusterAuthorizedOperations: !request.includeClusterAuthorizedOperations ? OPERATIONS_NOT_REQUESTED
        : authorizeCluster(ctx, AclOperation.DESCRIBE) ? authorizedOperations(ctx, ResourceType.CLUSTER, CLUSTER_NAME) : 0,
    };
  },
});
