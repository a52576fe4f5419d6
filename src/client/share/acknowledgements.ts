/**
 * Acknowledgements of acquired records (Kafka's Acknowledgements): per partition, an
 * acknowledge type per offset, sent as batches of consecutive offsets. A batch whose
 * offsets share one type carries it once; otherwise one type per offset, as KIP-932's
 * AcknowledgementBatch allows. GAP (0) acknowledges an acquired offset without a record
 * (a control record, a compacted gap).
 */
import type { ShareFetchRequestAcknowledgementBatch } from '../../protocol/messages/share-fetch.js';

/** Kafka's AcknowledgeType (RENEW: KIP-1222, extends the acquisition lock). */
export type AcknowledgeType = 'ACCEPT' | 'RELEASE' | 'REJECT' | 'RENEW';

/** Wire values; GAP is sent by the client itself, never by the application. */
export const AcknowledgeTypeCode = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

export function acknowledgeTypeCode(type: AcknowledgeType): number {
  const code = (AcknowledgeTypeCode as Record<string, number | undefined>)[type];
  if (code === undefined || type === 'GAP' as string) throw new TypeError(`acknowledge type must be ACCEPT, RELEASE, REJECT or RENEW, not ${String(type)}`);
  return code;
}

/** The outcome of one partition's acknowledgements, as Kafka's AcknowledgementCommitCallback is told it. */
export interface AcknowledgementCommit {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  /** The offsets acknowledged (GAP offsets included, as Kafka). */
  readonly offsets: readonly bigint[];
  /** Null when the broker applied them; else why not (a KafkaProtocolError such as INVALID_RECORD_STATE, or the failure of the request). */
  readonly error: Error | null;
}

/** Kafka's AcknowledgementCommitCallback.onComplete, called once per partition from poll(), commitSync(), commitAsync()'s next poll and close(). */
export type AcknowledgementCommitCallback = (commit: AcknowledgementCommit) => void;

/** One partition's acknowledgements waiting to be sent: offset (as a number: share offsets stay below 2^53 here) to type code. */
export class PartitionAcknowledgements {
  private readonly types = new Map<number, number>();

  constructor(
    readonly topic: string,
    readonly topicId: string,
    readonly partition: number,
    /** The leader whose share session acquired the records: only it can take their acknowledgements. */
    readonly nodeId: number,
  ) {}

  get size(): number {
    return this.types.size;
  }

  /** The last acknowledgement of an offset wins, as Kafka's Acknowledgements.add. */
  add(offset: number, code: number): void {
    this.types.set(offset, code);
  }

  /** RENEW needs a request with IsRenewAck (ShareAcknowledge v2), which the broker does not fetch for. */
  get hasRenew(): boolean {
    for (const t of this.types.values()) if (t === AcknowledgeTypeCode.RENEW) return true;
    return false;
  }

  offsets(): bigint[] {
    return [...this.types.keys()].sort((a, b) => a - b).map((o) => BigInt(o));
  }

  batches(): ShareFetchRequestAcknowledgementBatch[] {
    const sorted = [...this.types.entries()].sort((a, b) => a[0] - b[0]);
    const out: ShareFetchRequestAcknowledgementBatch[] = [];
    let first = -1;
    let types: number[] = [];
    const flush = (): void => {
      if (types.length === 0) return;
      const same = types.every((t) => t === types[0]);
      out.push({ firstOffset: BigInt(first), lastOffset: BigInt(first + types.length - 1), acknowledgeTypes: same ? [types[0]!] : types });
    };
    for (const [offset, type] of sorted) {
      if (types.length > 0 && offset === first + types.length) {
        types.push(type);
        continue;
      }
      flush();
      first = offset;
      types = [type];
    }
    flush();
    return out;
  }
}
