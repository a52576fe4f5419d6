/**
 * The SCRAM key derivation against RFC 7677's SCRAM-SHA-256 example exchange (section 3)
 * and RFC 5802's saslname rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SCRAM_SHA_256, clientKey, credentialFromSaltedPassword, escapeSaslName, hmac, parseAttributes, saltedPassword,
  unescapeSaslName, xor,
} from '../../src/protocol/sasl/scram.js';
import { decodePlain, encodePlain } from '../../src/protocol/sasl/plain.js';

test('RFC 7677 example: client proof and server signature', () => {
  const clientFirstBare = 'n=user,r=rOprNGfwEbeRWgbNEkqO';
  const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
  const clientFinalWithoutProof = 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
  const attrs = parseAttributes(serverFirst)!;
  const salt = Buffer.from(attrs.get('s')!, 'base64');
  const iterations = Number(attrs.get('i'));
  const salted = saltedPassword(SCRAM_SHA_256, 'pencil', salt, iterations);
  const credential = credentialFromSaltedPassword(SCRAM_SHA_256, salted, salt, iterations);
  const authMessage = `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;
  const proof = xor(clientKey(SCRAM_SHA_256, salted), hmac(SCRAM_SHA_256, credential.storedKey, authMessage));
  assert.equal(proof.toString('base64'), 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
  assert.equal(hmac(SCRAM_SHA_256, credential.serverKey, authMessage).toString('base64'), '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
});

test('saslname escaping and attribute syntax', () => {
  assert.equal(escapeSaslName('a=b,c'), 'a=3Db=2Cc');
  assert.equal(unescapeSaslName('a=3Db=2Cc'), 'a=b,c');
  assert.equal(unescapeSaslName('a=4Fb'), null);
  assert.equal(parseAttributes('n=user,r=abc')?.get('r'), 'abc');
  assert.equal(parseAttributes('garbage'), null);
  assert.equal(parseAttributes('n=a,n=b'), null);
});

test('PLAIN messages', () => {
  assert.deepEqual(decodePlain(encodePlain('alice', 'secret')), { authorizationId: '', username: 'alice', password: 'secret' });
  assert.equal(decodePlain(Buffer.from('alice\u0000secret')), null);
  assert.equal(decodePlain(Buffer.from('\u0000\u0000secret')), null);
});
