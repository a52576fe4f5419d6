/**
 * Who a connection is, as Kafka's DefaultKafkaPrincipalBuilder says it: on an SSL listener
 * with a verified client certificate, `User:` and the certificate's subject as an RFC 2253
 * distinguished name (X500Principal.getName(), e.g. `User:CN=client,OU=eng,O=Brook`);
 * otherwise `User:ANONYMOUS`. (Kafka's ssl.principal.mapping.rules default, DEFAULT, keeps
 * the DN as it is.)
 */
import type { TLSSocket } from 'node:tls';

export const ANONYMOUS = 'User:ANONYMOUS';

/**
 * The subject of a certificate as RFC 2253 writes it, from Node's X509Certificate.subject:
 * one `TYPE=value` per line in the certificate's order, values already escaped as RFC 2253
 * asks (OpenSSL's ASN1_STRFLGS_ESC_2253). RFC 2253 lists the RDNs last first, joined by
 * commas; the attributes of a multi-valued RDN are joined by `+`.
 */
export function rfc2253(subject: string): string {
  return subject.split('\n').filter((line) => line !== '').reverse().map((rdn) => rdn.split(' + ').join('+')).join(',');
}

/** The principal of a connection on an SSL listener whose handshake completed. */
export function sslPrincipal(socket: TLSSocket): string {
  if (!socket.authorized) return ANONYMOUS;
  const cert = socket.getPeerX509Certificate();
  return cert === undefined ? ANONYMOUS : `User:${rfc2253(cert.subject)}`;
}
