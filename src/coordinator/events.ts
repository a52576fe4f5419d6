/**
 * What happened to a group, as values: an operation adds them to its CoordinatorResult and
 * the broker's runtime logs them and counts rebalances once the result's records are
 * durable (a reverted result's events never happened). The coordinator has no logger: these
 * are what Kafka's GroupMetadataManager logs at info, as data.
 *
 * Replay at start-up emits nothing: it rebuilds state, nothing happens to the groups.
 */

/**
 * Classic groups (JoinGroup/SyncGroup), KIP-848 consumer groups (ConsumerGroupHeartbeat) and
 * KIP-932 share groups (ShareGroupHeartbeat).
 */
export type GroupType = 'classic' | 'consumer' | 'share' | 'streams';

/** Why a member is no longer in its group. */
export type MemberRemovalCause =
  /** LeaveGroup, or a ConsumerGroupHeartbeat or ShareGroupHeartbeat with member epoch -1. */
  | 'left'
  /** No heartbeat within the session timeout. */
  | 'session-timeout'
  /** Did not rejoin (classic) or revoke its partitions (consumer) within its rebalance timeout. */
  | 'rebalance-timeout'
  /** A classic member that did not send its SyncGroup within the rebalance timeout. */
  | 'sync-timeout'
  /** Turned away at a rejoin: group.max.size members were already in. */
  | 'group-max-size';

/** Partitions by topic name (streams groups: active tasks by subtopology id). */
export type PartitionsByName = ReadonlyMap<string, readonly number[]>;

export type GroupEvent =
  | {
      readonly type: 'member-joined';
      readonly groupType: GroupType;
      readonly groupId: string;
      readonly memberId: string;
      readonly groupInstanceId: string | null;
      readonly clientId: string;
      readonly clientHost: string;
      /** The member's own protocol: a classic member may live in a consumer group. */
      readonly protocol: GroupType;
    }
  | {
      readonly type: 'member-removed';
      readonly groupType: GroupType;
      readonly groupId: string;
      readonly memberId: string;
      readonly groupInstanceId: string | null;
      readonly cause: MemberRemovalCause;
      /** The client's own reason (LeaveGroup v5+), when it gave one. */
      readonly clientReason: string | null;
    }
  | {
      readonly type: 'rebalance-started';
      readonly groupType: GroupType;
      readonly groupId: string;
      /**
       * Classic: the generation being left (the next is chosen when the join phase completes).
       * Consumer and share: the new group epoch.
       */
      readonly generation: number;
      readonly members: number;
      readonly reason: string;
    }
  | {
      readonly type: 'rebalance-completed';
      readonly groupType: GroupType;
      readonly groupId: string;
      /** The generation (classic) or group epoch (consumer, share) every member now has. */
      readonly generation: number;
      readonly members: number;
      /** Stable with members; Empty when the last one left. */
      readonly state: 'Stable' | 'Empty';
      /**
       * Classic groups reaching Stable: the leader, the chosen protocol, and each member's
       * assignment as the leader's SyncGroup gave it (bytes of the group's protocol type).
       */
      readonly classic?: {
        readonly leader: string | null;
        readonly protocolType: string | null;
        readonly protocolName: string | null;
        readonly assignments: ReadonlyMap<string, Uint8Array>;
      };
    }
  | {
      /** A classic group's join phase completed: the new generation, its leader and protocol (CompletingRebalance begins). */
      readonly type: 'join-completed';
      readonly groupType: 'classic';
      readonly groupId: string;
      readonly generation: number;
      readonly members: number;
    }
  | {
      /** A static member came back under a new member id; the old id is fenced. */
      readonly type: 'member-replaced';
      readonly groupType: GroupType;
      readonly groupId: string;
      readonly groupInstanceId: string;
      readonly oldMemberId: string;
      readonly newMemberId: string;
    }
  | {
      /**
       * A consumer, share or streams member's current assignment was written: one step of its
       * reconciliation towards the target assignment of the group epoch.
       */
      readonly type: 'member-reconciled';
      readonly groupType: GroupType;
      readonly groupId: string;
      readonly memberId: string;
      readonly memberEpoch: number;
      /** Kafka's member state names: STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS, UNKNOWN. */
      readonly state: string;
      readonly assigned: PartitionsByName;
      readonly revoking: PartitionsByName;
    }
  | { readonly type: 'offsets-expired'; readonly groupType: GroupType; readonly groupId: string; readonly count: number }
  | { readonly type: 'group-deleted'; readonly groupType: GroupType; readonly groupId: string; readonly reason: string }
  | {
      readonly type: 'group-converted';
      readonly groupId: string;
      readonly from: GroupType;
      readonly to: GroupType;
      readonly members: number;
    };
