/**
 * The topics the consumer-group coordinator assigns from: Kafka's MetadataImage reduced to
 * names, ids and partition counts. The broker keeps it current (GroupCoordinator's
 * onMetadataChange, called when topics are created, deleted or grow); the coordinator
 * never reads storage itself.
 */

export interface TopicImage {
  readonly name: string;
  /** Kafka's topic id, base64url text of 16 bytes. */
  readonly topicId: string;
  readonly numPartitions: number;
}

export interface MetadataDelta {
  /** Names of topics created, deleted or whose partition count changed. */
  readonly changed: ReadonlySet<string>;
  readonly created: boolean;
}

export class MetadataImage {
  private byNameMap = new Map<string, TopicImage>();
  private byIdMap = new Map<string, TopicImage>();
  /**
   * Bumped by every change: Kafka's image offset (`provenance().lastContainedOffset()`),
   * which versions the resolution of regular expressions.
   */
  version = 0;
  /** The version of the last change that created a topic (regexes resolved before it are stale). */
  lastVersionWithNewTopics = 0;

  byName(name: string): TopicImage | undefined {
    return this.byNameMap.get(name);
  }

  byId(topicId: string): TopicImage | undefined {
    return this.byIdMap.get(topicId);
  }

  topics(): IterableIterator<TopicImage> {
    return this.byNameMap.values();
  }

  /**
   * Versions go on from at least `version` (one read from the log, written by an earlier
   * run): Brook's image counts changes from its start, where Kafka's is the metadata log's
   * offset, which never goes back.
   */
  notBefore(version: number): void {
    if (version > this.version) this.version = version;
  }

  /** Replaces the image with `topics`; returns what changed. */
  update(topics: readonly TopicImage[]): MetadataDelta {
    const next = new Map(topics.map((t) => [t.name, t]));
    const changed = new Set<string>();
    let created = false;
    for (const t of topics) {
      const before = this.byNameMap.get(t.name);
      if (before === undefined || before.topicId !== t.topicId) created = true;
      if (before === undefined || before.topicId !== t.topicId || before.numPartitions !== t.numPartitions) changed.add(t.name);
    }
    for (const name of this.byNameMap.keys()) if (!next.has(name)) changed.add(name);
    if (changed.size === 0) return { changed, created };
    this.byNameMap = next;
    this.byIdMap = new Map(topics.map((t) => [t.topicId, t]));
    this.version++;
    if (created) this.lastVersionWithNewTopics = this.version;
    return { changed, created };
  }
}
