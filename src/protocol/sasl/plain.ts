/**
 * SASL PLAIN (RFC 4616): one message, `[authzid] NUL authcid NUL passwd`, UTF-8.
 */

export interface PlainCredentials {
  readonly authorizationId: string;
  readonly username: string;
  readonly password: string;
}

export function encodePlain(username: string, password: string, authorizationId = ''): Buffer {
  return Buffer.from(`${authorizationId}\u0000${username}\u0000${password}`, 'utf8');
}

/** The three parts of a PLAIN message, or null when it is not one (Kafka refuses those too). */
export function decodePlain(message: Buffer): PlainCredentials | null {
  const parts = message.toString('utf8').split('\u0000');
  if (parts.length !== 3) return null;
  const [authorizationId, username, password] = parts as [string, string, string];
  if (username === '' || password === '') return null;
  return { authorizationId, username, password };
}
