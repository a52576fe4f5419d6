/**
 * A throwaway PKI for TLS tests, made by the `openssl` command (an oracle independent of
 * Brook and Node): a CA, a server certificate for 127.0.0.1 and localhost, and client
 * certificates, each as PEM files in a temp dir. The subjects' RFC 2253 forms are read back
 * from openssl too, so tests compare the broker's principal with what openssl says.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './brook.js';

export interface TestPki {
  readonly dir: string;
  /** The CA's certificate (a truststore). */
  readonly caPem: string;
  readonly ca: string;
  /** The server's certificate chain then its key, in one file (Kafka's PEM keystore). */
  readonly serverKeystore: string;
  /**
   * The server's keystore with the key encrypted by `serverKeyPassword`, as PKCS#8 PBES1
   * (PBE-SHA1-3DES): Kafka 4.4 on JDK 17 cannot load OpenSSL 3's default PBES2 (AES) ones.
   */
  readonly serverEncryptedKeystore: string;
  readonly serverKeyPassword: string;
  readonly client: ClientCert;
  /** A client certificate signed by a CA the broker does not trust. */
  readonly untrustedClient: ClientCert;
  /** A CA the broker does not trust (to check a client refuses the broker's certificate). */
  readonly otherCa: string;
  remove(): void;
}

export interface ClientCert {
  readonly cert: string;
  readonly key: string;
  /** Certificate then key in one file (a client's PEM keystore). */
  readonly keystore: string;
  /** The subject as RFC 2253 writes it, from `openssl x509 -nameopt RFC2253`. */
  readonly subjectRfc2253: string;
}

/** Why TLS tests cannot run here, or null when openssl is available. */
export function opensslMissing(): string | null {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'needs the openssl command to make test certificates';
  }
}

function openssl(args: string[], cwd: string): string {
  return execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function newCa(dir: string, name: string): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`,
    '-keyout', `${name}.key`, '-out', `${name}.pem`], dir);
}

/** A key and a certificate signed by `ca`, with these extensions. */
function issue(dir: string, ca: string, name: string, subject: string, extensions: string): void {
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`], dir);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`], dir);
}

function clientCert(dir: string, ca: string, name: string, subject: string): ClientCert {
  issue(dir, ca, name, subject, 'extendedKeyUsage=clientAuth\n');
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  const keystore = join(dir, `${name}-keystore.pem`);
  writeFileSync(keystore, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'));
  const subjectRfc2253 = openssl(['x509', '-in', cert, '-noout', '-subject', '-nameopt', 'RFC2253'], dir).trim().replace(/^subject=\s*/, '');
  return { cert, key, keystore, subjectRfc2253 };
}

export function makeTestPki(): TestPki {
  const tmp = tempDir('brook-pki-');
  const dir = tmp.path;
  newCa(dir, 'ca');
  newCa(dir, 'other-ca');
  issue(dir, 'ca', 'server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  const serverKeystore = join(dir, 'server-keystore.pem');
  writeFileSync(serverKeystore, readFileSync(join(dir, 'server.pem'), 'utf8') + readFileSync(join(dir, 'server.key'), 'utf8'));
  const serverKeyPassword = 'keystore-secret';
  const encryptedKey = openssl(['pkcs8', '-topk8', '-in', 'server.key', '-passout', `pass:${serverKeyPassword}`, '-v1', 'PBE-SHA1-3DES'], dir);
  const serverEncryptedKeystore = join(dir, 'server-encrypted-keystore.pem');
  writeFileSync(serverEncryptedKeystore, readFileSync(join(dir, 'server.pem'), 'utf8') + encryptedKey);
  const client = clientCert(dir, 'ca', 'client', '/O=Brook/OU=eng/CN=client');
  const untrustedClient = clientCert(dir, 'other-ca', 'stranger', '/CN=stranger');
  const ca = join(dir, 'ca.pem');
  return {
    dir, ca, caPem: readFileSync(ca, 'utf8'), serverKeystore, serverEncryptedKeystore, serverKeyPassword,
    client, untrustedClient, otherCa: join(dir, 'other-ca.pem'), remove: () => tmp.remove(),
  };
}
