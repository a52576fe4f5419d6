/**
 * The consumer protocol's payloads as they travel inside JoinGroup metadata and SyncGroup
 * assignments: an int16 version, then the body. A newer version than we know is read as
 * the newest we know (later versions only append fields), as Kafka's consumers do, so
 * mixed-version groups keep working.
 */
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';
import { ConsumerProtocolSubscription } from './messages/consumer-protocol-subscription.js';
import { ConsumerProtocolAssignment } from './messages/consumer-protocol-assignment.js';
import type { MessageCodec } from './messages/runtime.js';

/** JoinGroup's protocol type for consumer groups. */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

function encodeVersioned<T>(codec: MessageCodec<T>, value: T, version: number): Buffer {
  const w = new Writer(128);
  w.writeInt16(version);
  codec.write(w, version, value);
  return w.toBuffer();
}

function decodeVersioned<T>(codec: MessageCodec<T>, buf: Buffer): { version: number; value: T } {
  const r = new Reader(buf);
  const version = r.readInt16();
  if (version < codec.lowestVersion) r.fail(`${codec.name} version ${version} is not supported`);
  return { version, value: codec.read(r, Math.min(version, codec.highestVersion)) };
}

export function encodeSubscription(
  subscription: ConsumerProtocolSubscription,
  version: number = ConsumerProtocolSubscription.highestVersion,
): Buffer {
  return encodeVersioned(ConsumerProtocolSubscription, subscription, version);
}

export function decodeSubscription(buf: Buffer): { version: number; subscription: ConsumerProtocolSubscription } {
  const { version, value } = decodeVersioned(ConsumerProtocolSubscription, buf);
  return { version, subscription: value };
}

/**
 * Version 0's fields under any version number: what KafkaJS's AssignerProtocol writes (the
 * version its assigner names, then topics and user data only).
 */
function decodeAsVersion0<T>(codec: MessageCodec<T>, buf: Buffer): { version: number; value: T } | null {
  try {
    const r = new Reader(buf);
    const version = r.readInt16();
    const value = codec.read(r, 0);
    return r.remaining === 0 ? { version, value } : null;
  } catch {
    return null;
  }
}

/**
 * As decodeSubscription; bytes that end where version 0's fields end are read as version 0
 * whatever version they claim (KafkaJS's custom assigners write such metadata).
 */
export function decodeSubscriptionLenient(buf: Buffer): { version: number; subscription: ConsumerProtocolSubscription } {
  try {
    return decodeSubscription(buf);
  } catch (err) {
    const v0 = decodeAsVersion0(ConsumerProtocolSubscription, buf);
    if (!v0) throw err;
    return { version: v0.version, subscription: v0.value };
  }
}

export function encodeAssignment(
  assignment: ConsumerProtocolAssignment,
  version: number = ConsumerProtocolAssignment.highestVersion,
): Buffer {
  return encodeVersioned(ConsumerProtocolAssignment, assignment, version);
}

export function decodeAssignment(buf: Buffer): { version: number; assignment: ConsumerProtocolAssignment } {
  const { version, value } = decodeVersioned(ConsumerProtocolAssignment, buf);
  return { version, assignment: value };
}

/** As decodeAssignment, with decodeSubscriptionLenient's leniency. */
export function decodeAssignmentLenient(buf: Buffer): { version: number; assignment: ConsumerProtocolAssignment } {
  try {
    return decodeAssignment(buf);
  } catch (err) {
    const v0 = decodeAsVersion0(ConsumerProtocolAssignment, buf);
    if (!v0) throw err;
    return { version: v0.version, assignment: v0.value };
  }
}
