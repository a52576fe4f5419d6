/** PEM files as Kafka's PEM key stores hold them: certificates and one private key, in any order. */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * The certificates (in file order, the chain) and the one private key of a PEM keystore
 * (Kafka's `ssl.keystore.type=PEM`: the certificate chain, then the key). `where` names the
 * file in the error thrown when either is missing.
 */
export function splitPemKeystore(pem: string, where: string): { cert: string; key: string } {
  const certs: string[] = [];
  const keys: string[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    if (m[1] === 'CERTIFICATE') certs.push(m[0]);
    else if (m[1]!.endsWith('PRIVATE KEY')) keys.push(m[0]);
  }
  if (certs.length === 0) throw new Error(`${where}: no certificate (-----BEGIN CERTIFICATE-----) found`);
  if (keys.length !== 1) throw new Error(`${where}: expected one private key, found ${keys.length}`);
  return { cert: certs.join('\n'), key: keys[0]! };
}
