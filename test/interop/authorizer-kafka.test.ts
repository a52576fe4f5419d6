/**
 * Brook's StandardAuthorizer (src/broker/authorizer/) against Apache Kafka 4.4's own
 * (org.apache.kafka.metadata.authorizer.StandardAuthorizer, through
 * test/support/kafka/AuthorizerOracle.java): the same ACLs loaded into both, then the same
 * authorize() and authorizeByResourceType() questions, every answer compared. The scenarios
 * are random but fixed (a seeded generator), drawn from small alphabets so that names
 * prefix one another, wildcards and DENY ACLs meet, and principals, hosts (IPv4, IPv6,
 * IPv4-mapped) and operations (the implied ones included) overlap.
 *
 * Needs Java 17 and Kafka's classpath (test/support/kafka/build.sh).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runProcess } from '../support/clients/run.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { projectRoot } from '../support/brook.js';
import { StandardAuthorizer, clientAddress } from '../../src/broker/authorizer/standard-authorizer.js';
import { parseSuperUsers } from '../../src/broker/authorization.js';
import type { AclBinding } from '../../src/broker/authorizer/acl.js';

const ORACLE = join(projectRoot, 'test', 'support', 'kafka', 'AuthorizerOracle.java');

type Query = [principal: string, address: string, operation: number, resourceType: number, name: string];
type TypeQuery = [principal: string, address: string, operation: number, resourceType: number];
interface Scenario {
  superUsers: string;
  allowEveryoneIfNoAclFound: boolean;
  acls: [number, string, number, string, string, number, number][];
  authorize: Query[];
  byResourceType: TypeQuery[];
}

/** mulberry32: a small seeded generator, so every run asks the same questions. */
function generator(seed: number): <T>(items: readonly T[]) => T {
  let a = seed;
  const next = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (items) => items[Math.floor(next() * items.length)]!;
}

const NAMES = ['a', 'ab', 'abc', 'abd', 'b', 'ba', '*', 'a*', 'kafka-cluster', 'x'];
const PRINCIPALS = ['User:alice', 'User:bob', 'User:*', 'Group:alice', 'User:CN=carol,O=Brook'];
const ACL_HOSTS = ['*', '*', '127.0.0.1', '10.0.0.2', '0:0:0:0:0:0:0:1', '::1'];
const ADDRESSES = ['127.0.0.1', '10.0.0.2', '::1', '::ffff:10.0.0.2'];
const RESOURCE_TYPES = [2, 2, 3, 4, 5, 6, 7];
const ACL_OPERATIONS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const QUERY_OPERATIONS = [3, 4, 5, 6, 7, 8, 8, 9, 10, 10, 11, 12, 13, 14, 15];

function scenarios(count: number): Scenario[] {
  const pick = generator(20240611);
  const out: Scenario[] = [];
  for (let s = 0; s < count; s++) {
    const aclCount = pick([0, 1, 2, 3, 5, 8, 13, 20]);
    const acls: Scenario['acls'] = [];
    for (let i = 0; i < aclCount; i++) {
      acls.push([pick(RESOURCE_TYPES.slice(0, 4)), pick(NAMES), pick([3, 3, 4]), pick(PRINCIPALS), pick(ACL_HOSTS), pick(ACL_OPERATIONS), pick([2, 3, 3])]);
    }
    const queryPrincipals = ['User:alice', 'User:bob', 'User:CN=carol,O=Brook', 'User:admin', 'Group:alice'];
    const authorize: Query[] = [];
    for (let i = 0; i < 150; i++) authorize.push([pick(queryPrincipals), pick(ADDRESSES), pick(QUERY_OPERATIONS), pick(RESOURCE_TYPES.slice(0, 4)), pick([...NAMES, 'abcd', 'bb', 'hardcode'])]);
    const byResourceType: TypeQuery[] = [];
    for (let i = 0; i < 20; i++) byResourceType.push([pick(queryPrincipals), pick(ADDRESSES), pick(QUERY_OPERATIONS), pick(RESOURCE_TYPES.slice(0, 4))]);
    out.push({ superUsers: pick(['', 'User:admin', ' User:admin ; User:bob ']), allowEveryoneIfNoAclFound: pick([false, true]), acls, authorize, byResourceType });
  }
  return out;
}

test('StandardAuthorizer answers as Kafka 4.4\'s over random ACLs and questions', { timeout: 180_000 }, async () => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cases = scenarios(120);
  const result = await runProcess('java', ['-cp', kafkaClasspath(), ORACLE], { input: JSON.stringify(cases), timeoutMs: 150_000 });
  assert.equal(result.code, 0, result.stderr.slice(-3000));
  const kafka = JSON.parse(result.stdout) as { authorize: boolean[]; byResourceType: boolean[] }[];
  let compared = 0;
  let allowed = 0;
  cases.forEach((c, i) => {
    const brook = new StandardAuthorizer({ superUsers: parseSuperUsers(c.superUsers), allowEveryoneIfNoAclFound: c.allowEveryoneIfNoAclFound });
    for (const [resourceType, resourceName, patternType, principal, host, operation, permissionType] of c.acls) {
      const acl: AclBinding = { resourceType, resourceName, patternType, principal, host, operation, permissionType };
      brook.add(acl);
    }
    c.authorize.forEach(([principal, address, op, type, name], j) => {
      const answer = brook.authorize(principal, clientAddress(address), op, type, name);
      assert.equal(answer, kafka[i]!.authorize[j], `scenario ${i} ${JSON.stringify(c.acls)} super ${c.superUsers} default ${c.allowEveryoneIfNoAclFound}: ${principal} from ${address} op ${op} on ${type}:${name}`);
      compared++;
      if (answer) allowed++;
    });
    c.byResourceType.forEach(([principal, address, op, type], j) => {
      assert.equal(brook.authorizeByResourceType(principal, clientAddress(address), op, type), kafka[i]!.byResourceType[j],
        `scenario ${i} ${JSON.stringify(c.acls)} super ${c.superUsers} default ${c.allowEveryoneIfNoAclFound}: byResourceType ${principal} from ${address} op ${op} on ${type}`);
      compared++;
    });
  });
  // The questions are not lopsided: both answers are common.
  assert.ok(allowed > compared / 10 && allowed < (compared * 9) / 10, `${allowed} of ${compared} allowed`);
});
