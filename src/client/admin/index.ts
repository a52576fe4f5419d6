/** The admin client: `Admin` and its types and errors. */
export { Admin } from './admin.js';
export type { OngoingPartitionReassignment, PartitionReassignment, PartitionReassignmentResult } from './reassignments.js';
export * from './types.js';
export * from './errors.js';
export { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from './offsets.js';
export {
  DEFAULT_SCRAM_ITERATIONS, type ScramCredentialInfo, type ScramMechanismName, type UserScramCredentialAlteration, type UserScramCredentialsDescription,
} from './scram-credentials.js';
export type { DeletedShareGroupOffsets, ShareGroupDescription, ShareGroupOffset, ShareMemberDescription } from './share-groups.js';
export type {
  StreamsGroupDescription, StreamsMemberDescription, StreamsSubtopologyDescription, StreamsTaskIds, StreamsTaskOffset, StreamsTasks, StreamsTopicInfo,
} from './streams-groups.js';
