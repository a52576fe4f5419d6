/**
 * `--command-config FILE`, as Kafka's tools take it: a Java .properties file of client
 * settings under Kafka's names, turned into the clients' `securityProtocol`, `ssl` and
 * `sasl` options. PEM stores only (`ssl.truststore.type=PEM`, `ssl.keystore.type=PEM`); a JKS
 * or PKCS12 store needs a JVM. The SASL login comes from `sasl.jaas.config` (Kafka's
 * PlainLoginModule or ScramLoginModule with username and password) or from librdkafka's
 * `sasl.username` and `sasl.password`. Settings Brook's clients do not read are reported on
 * stderr and otherwise ignored, as Kafka's clients log "supplied but are not used".
 */
import { readFileSync } from 'node:fs';
import { SECURITY_PROTOCOLS, type SecurityProtocol, type SslOptions } from '../client/ssl.js';
import { SASL_MECHANISMS, type SaslMechanism, type SaslOptions } from '../client/sasl.js';
import { splitPemKeystore } from '../util/pem.js';
import { passwordLoginEntry } from '../protocol/sasl/jaas-config.js';
import { javaTrim, parseProperties } from '../util/java-properties.js';
import { UsageError } from './options.js';

export interface ClientSecurity {
  readonly securityProtocol?: SecurityProtocol;
  readonly ssl?: SslOptions;
  readonly sasl?: SaslOptions;
}

const READ = new Set([
  'security.protocol', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.certificates',
  'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.certificate.chain', 'ssl.keystore.key',
  'ssl.key.password', 'ssl.endpoint.identification.algorithm',
  'sasl.mechanism', 'sasl.jaas.config', 'sasl.username', 'sasl.password',
]);

/** The `sasl` option from sasl.mechanism and the login (sasl.jaas.config, else sasl.username and sasl.password). */
function saslFrom(props: Map<string, string>, protocol: string): SaslOptions {
  // Kafka's (and librdkafka's) default mechanism is GSSAPI.
  const mechanism = props.get('sasl.mechanism') ?? 'GSSAPI';
  if (!SASL_MECHANISMS.includes(mechanism as SaslMechanism)) {
    const unset = props.has('sasl.mechanism') ? '' : ' (Kafka\'s default when sasl.mechanism is not set)';
    throw new UsageError(`sasl.mechanism=${mechanism}${unset} is not supported: Brook's clients speak ${SASL_MECHANISMS.join(', ')}`);
  }
  const jaas = props.get('sasl.jaas.config');
  let username = props.get('sasl.username');
  let password = props.get('sasl.password');
  if (jaas !== undefined) {
    let entry;
    try {
      entry = passwordLoginEntry(jaas);
    } catch (err) {
      throw new UsageError(`sasl.jaas.config: ${(err as Error).message}`);
    }
    const fromJaas = { username: entry.options.get('username'), password: entry.options.get('password') };
    if ((username !== undefined && username !== fromJaas.username) || (password !== undefined && password !== fromJaas.password)) {
      throw new UsageError('sasl.username/sasl.password and sasl.jaas.config name different logins: give one of them');
    }
    ({ username, password } = fromJaas);
  }
  if (username === undefined || password === undefined) {
    throw new UsageError(`security.protocol=${protocol} needs a login: sasl.jaas.config with username and password, or sasl.username and sasl.password`);
  }
  return { mechanism: mechanism as SaslMechanism, username, password };
}

function readFile(path: string, property: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${property}: cannot read ${path}: ${(err as Error).message}`);
  }
}

function pemOnly(props: Map<string, string>, property: string): void {
  const type = props.get(property);
  if (type !== undefined && type.toUpperCase() !== 'PEM') throw new UsageError(`${property}=${type} is not supported: Brook reads PEM stores only (${property}=PEM)`);
}

/** The security settings of a client properties file's contents. */
export function clientSecurityFromProperties(raw: Map<string, string>, warn: (message: string) => void = () => undefined): ClientSecurity {
  // Kafka's ConfigDef trims every value.
  const props = new Map([...raw].map(([k, v]) => [k, javaTrim(v)]));
  const unused = [...props.keys()].filter((k) => !READ.has(k));
  if (unused.length > 0) warn(`these client properties are not used by brook: ${unused.join(', ')}`);
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (!SECURITY_PROTOCOLS.includes(protocol as SecurityProtocol)) throw new UsageError(`security.protocol=${protocol} is not supported (${SECURITY_PROTOCOLS.join(', ')})`);
  const sasl = protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL' ? { sasl: saslFrom(props, protocol) } : {};
  if (protocol === 'PLAINTEXT' || protocol === 'SASL_PLAINTEXT') return protocol === 'PLAINTEXT' ? {} : { securityProtocol: protocol, ...sasl };
  pemOnly(props, 'ssl.truststore.type');
  pemOnly(props, 'ssl.keystore.type');
  const location = props.get('ssl.truststore.location');
  const ca = location !== undefined ? readFile(location, 'ssl.truststore.location') : props.get('ssl.truststore.certificates');
  let identity: { cert: string; key: string } | undefined;
  const keystore = props.get('ssl.keystore.location');
  if (keystore !== undefined) {
    try {
      identity = splitPemKeystore(readFile(keystore, 'ssl.keystore.location'), `ssl.keystore.location ${keystore}`);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  } else {
    const cert = props.get('ssl.keystore.certificate.chain');
    const key = props.get('ssl.keystore.key');
    if ((cert === undefined) !== (key === undefined)) throw new UsageError('ssl.keystore.certificate.chain and ssl.keystore.key go together');
    if (cert !== undefined && key !== undefined) identity = { cert, key };
  }
  const eia = props.get('ssl.endpoint.identification.algorithm') ?? 'https';
  if (eia !== '' && eia.toLowerCase() !== 'https') throw new UsageError(`ssl.endpoint.identification.algorithm=${eia} is not supported (https, or empty to turn the host name check off)`);
  const password = props.get('ssl.key.password');
  return {
    securityProtocol: protocol as 'SSL' | 'SASL_SSL',
    ...sasl,
    ssl: {
      ...(ca !== undefined ? { ca } : {}),
      ...(identity ?? {}),
      ...(password !== undefined ? { passphrase: password } : {}),
      endpointIdentificationAlgorithm: eia === '' ? '' : 'https',
    },
  };
}

/** The security settings of `--command-config FILE` (none without one). */
export function clientSecurityFromFile(path: string | undefined): ClientSecurity {
  if (path === undefined) return {};
  const text = readFile(path, '--command-config');
  return clientSecurityFromProperties(parseProperties(text), (m) => process.stderr.write(`brook: ${path}: ${m}\n`));
}
