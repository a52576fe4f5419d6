/**
 * Kafka's StandardAuthorizer (org.apache.kafka.metadata.authorizer), its decisions exactly:
 *
 * - A super user (`super.users`, compared as `Type:name`) may do everything.
 * - The ACLs that apply to a resource are the LITERAL ones of its name, the LITERAL `*` ones
 *   of its type, and the PREFIXED ones whose name starts the resource's name. Of those, the
 *   ones that match the request are those whose principal is the client's or `User:*`, whose
 *   host is the client's address or `*`, and whose operation is the one asked, ALL, or, for
 *   ALLOW ACLs only, one that implies it (READ, WRITE, DELETE and ALTER imply DESCRIBE;
 *   ALTER_CONFIGS implies DESCRIBE_CONFIGS).
 * - A matching DENY wins; otherwise a matching ALLOW allows; otherwise the answer is
 *   `allow.everyone.if.no.acl.found` when no ACL at all applies to the resource (whoever and
 *   whatever it is for), and DENIED when some do.
 *
 * Kafka finds the ACLs in one sorted set (by type, then name descending); here each resource
 * type has a map of literal names and one of prefixes, and a lookup tries only the prefix
 * lengths some PREFIXED ACL has. Pure: no I/O (acl-store.ts persists).
 */
import { AclOperation as Op, AclPermissionType, PatternType, WILDCARD, WILDCARD_PRINCIPAL, aclKey, filterMatches, type AclBinding, type AclBindingFilter } from './acl.js';

interface TypeIndex {
  readonly literal: Map<string, AclBinding[]>;
  readonly prefixed: Map<string, AclBinding[]>;
  /** How many PREFIXED ACL names have each length. */
  readonly prefixLengths: Map<number, number>;
}

export interface AuthorizerSettings {
  /** `super.users`: principals (`User:name`) allowed everything. */
  readonly superUsers: ReadonlySet<string>;
  /** `allow.everyone.if.no.acl.found`. */
  readonly allowEveryoneIfNoAclFound: boolean;
}

const enum Verdict { NONE, ALLOW, DENY }

export class StandardAuthorizer {
  private readonly byType = new Map<number, TypeIndex>();
  private readonly byKey = new Map<string, AclBinding>();

  constructor(readonly settings: AuthorizerSettings) {}

  get aclCount(): number {
    return this.byKey.size;
  }

  /** Adds the ACL; false when an equal one is there already (Kafka keeps one). */
  add(acl: AclBinding): boolean {
    const key = aclKey(acl);
    if (this.byKey.has(key)) return false;
    this.byKey.set(key, acl);
    const index = this.index(acl.resourceType);
    const map = acl.patternType === PatternType.PREFIXED ? index.prefixed : index.literal;
    const list = map.get(acl.resourceName);
    if (list === undefined) map.set(acl.resourceName, [acl]);
    else list.push(acl);
    if (acl.patternType === PatternType.PREFIXED) {
      const n = acl.resourceName.length;
      index.prefixLengths.set(n, (index.prefixLengths.get(n) ?? 0) + 1);
    }
    return true;
  }

  /** Removes the ACL equal to this one; false when there is none. */
  remove(acl: AclBinding): boolean {
    const key = aclKey(acl);
    const stored = this.byKey.get(key);
    if (stored === undefined) return false;
    this.byKey.delete(key);
    const index = this.index(acl.resourceType);
    const map = acl.patternType === PatternType.PREFIXED ? index.prefixed : index.literal;
    const list = map.get(acl.resourceName)!;
    list.splice(list.indexOf(stored), 1);
    if (list.length === 0) map.delete(acl.resourceName);
    if (acl.patternType === PatternType.PREFIXED) {
      const n = acl.resourceName.length;
      const left = index.prefixLengths.get(n)! - 1;
      if (left === 0) index.prefixLengths.delete(n);
      else index.prefixLengths.set(n, left);
    }
    return true;
  }

  /** Every ACL the filter matches, in the order they were added. */
  acls(filter: AclBindingFilter): AclBinding[] {
    const out: AclBinding[] = [];
    for (const acl of this.byKey.values()) if (filterMatches(filter, acl)) out.push(acl);
    return out;
  }

  /**
   * Kafka's authorize() for one action on a LITERAL resource. `host` is the client's
   * address as Java's InetAddress.getHostAddress() writes it (clientAddress below).
   */
  authorize(principal: string, host: string, operation: number, resourceType: number, resourceName: string): boolean {
    if (this.settings.superUsers.has(principal)) return true;
    const index = this.byType.get(resourceType);
    if (index === undefined) return this.settings.allowEveryoneIfNoAclFound;
    // Whether some ACL applies to the resource, and whether one of them allows.
    const seen = { found: false, allowed: false };
    const check = (list: AclBinding[] | undefined): boolean => {
      if (list === undefined) return false;
      seen.found = true;
      for (const acl of list) {
        const v = matchAcl(acl, principal, host, operation);
        if (v === Verdict.DENY) return true;
        if (v === Verdict.ALLOW) seen.allowed = true;
      }
      return false;
    };
    if (check(index.literal.get(resourceName))) return false;
    if (resourceName !== WILDCARD && check(index.literal.get(WILDCARD))) return false;
    for (const length of index.prefixLengths.keys()) {
      if (length > resourceName.length) continue;
      if (check(index.prefixed.get(length === resourceName.length ? resourceName : resourceName.slice(0, length)))) return false;
    }
    if (seen.allowed) return true;
    return seen.found ? false : this.settings.allowEveryoneIfNoAclFound;
  }

  /**
   * Kafka's Authorizer.authorizeByResourceType: may the principal do `operation` on at least
   * one resource of the type? (InitProducerId asks it for WRITE on any topic.)
   */
  authorizeByResourceType(principal: string, host: string, operation: number, resourceType: number): boolean {
    // A hard-coded name first, so that super users (and the no-ACL default) are allowed regardless of DENY ACLs.
    if (this.authorize(principal, host, operation, resourceType, 'hardcode')) return true;
    const index = this.byType.get(resourceType);
    if (index === undefined) return false;
    const denyLiteral = new Set<string>();
    const denyPrefixed = new Set<string>();
    const allowLiteral: string[] = [];
    const allowPrefixed: string[] = [];
    let wildcardAllow = false;
    for (const [patternType, map] of [[PatternType.LITERAL, index.literal], [PatternType.PREFIXED, index.prefixed]] as const) {
      for (const list of map.values()) {
        for (const acl of list) {
          if (acl.host !== host && acl.host !== WILDCARD) continue;
          if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) continue;
          if (acl.operation !== operation && acl.operation !== Op.ALL) continue;
          if (acl.permissionType === AclPermissionType.DENY) {
            if (patternType === PatternType.LITERAL) {
              if (acl.resourceName === WILDCARD) return false;
              denyLiteral.add(acl.resourceName);
            } else {
              denyPrefixed.add(acl.resourceName);
            }
          } else if (patternType === PatternType.LITERAL) {
            if (acl.resourceName === WILDCARD) wildcardAllow = true;
            else allowLiteral.push(acl.resourceName);
          } else {
            allowPrefixed.push(acl.resourceName);
          }
        }
      }
    }
    if (wildcardAllow) return true;
    const dominatedByPrefixDeny = (name: string): boolean => {
      for (let i = 1; i <= name.length; i++) if (denyPrefixed.has(name.slice(0, i))) return true;
      return false;
    };
    for (const name of allowLiteral) if (!denyLiteral.has(name) && !dominatedByPrefixDeny(name)) return true;
    for (const name of allowPrefixed) if (!dominatedByPrefixDeny(name)) return true;
    return false;
  }

  private index(resourceType: number): TypeIndex {
    let index = this.byType.get(resourceType);
    if (index === undefined) {
      index = { literal: new Map(), prefixed: new Map(), prefixLengths: new Map() };
      this.byType.set(resourceType, index);
    }
    return index;
  }
}

/** StandardAuthorizerData.findResult for one ACL that applies to the resource. */
function matchAcl(acl: AclBinding, principal: string, host: string, operation: number): Verdict {
  if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) return Verdict.NONE;
  if (acl.host !== WILDCARD && acl.host !== host) return Verdict.NONE;
  const allow = acl.permissionType === AclPermissionType.ALLOW;
  if (acl.operation !== Op.ALL && acl.operation !== operation) {
    // Implication only widens ALLOW ACLs: a DENY of READ does not deny DESCRIBE.
    if (!allow) return Verdict.NONE;
    if (operation === Op.DESCRIBE) {
      const o = acl.operation;
      if (o !== Op.READ && o !== Op.WRITE && o !== Op.DELETE && o !== Op.ALTER) return Verdict.NONE;
    } else if (operation === Op.DESCRIBE_CONFIGS) {
      if (acl.operation !== Op.ALTER_CONFIGS) return Verdict.NONE;
    } else {
      return Verdict.NONE;
    }
  }
  return allow ? Verdict.ALLOW : Verdict.DENY;
}

/**
 * The client's address as Kafka's ACLs name it (InetAddress.getHostAddress()): IPv4 dotted,
 * an IPv4-mapped IPv6 address as its IPv4 address (Java reads it as one), other IPv6
 * addresses in Java's full form without `::` compression (`0:0:0:0:0:0:0:1`).
 * `remote` is Node's socket.remoteAddress, optionally with Brook's leading `/`.
 */
export function clientAddress(remote: string): string {
  const address = remote.startsWith('/') ? remote.slice(1) : remote;
  if (!address.includes(':')) return address;
  const lower = address.toLowerCase();
  const zone = lower.indexOf('%');
  const bare = zone < 0 ? lower : lower.slice(0, zone);
  const mapped = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped !== null) return mapped[1]!;
  let head = bare;
  let tail = '';
  const gap = bare.indexOf('::');
  if (gap >= 0) {
    head = bare.slice(0, gap);
    tail = bare.slice(gap + 2);
  }
  const toGroups = (s: string): string[] => (s === '' ? [] : s.split(':').map((g) => (g.includes('.') ? ipv4Groups(g) : [g])).flat());
  const h = toGroups(head);
  const t = toGroups(tail);
  const groups = [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':') + (zone < 0 ? '' : address.slice(zone));
}

function ipv4Groups(dotted: string): string[] {
  const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

