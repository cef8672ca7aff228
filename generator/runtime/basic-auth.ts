// HTTP Basic credentials (RFC 7617), as the contract's `secretKey` scheme sends them: the secret API key as
// the user name and an empty password. Parsing only; deciding whether a key is valid is the router's
// pluggable `authenticate` hook, which compares keys in constant time (GUIDE, "Secrets").

export interface BasicCredentials {
  username: string;
  password: string;
}

/** `Basic`, case-insensitive (RFC 7235 §2.1), one or more spaces, then token68 (base64 with optional padding). */
const BASIC = /^basic +([A-Za-z0-9+/]+=*) *$/i;
// RFC 7617 §2: user-id and password must not contain control characters.
const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** A binary string of ASCII bytes only: its UTF-8 decoding is itself. */
const ASCII = /^[\u0000-\u007f]*$/;

/** The bytes of a binary string (what `atob` returns); a plain loop, since this runs on every request. */
function binaryBytes(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The credentials of an `Authorization` header, or null when the header is absent, uses another scheme or
 * is malformed: not base64, not UTF-8 (RFC 7617 §2.1: the charset is UTF-8), no colon, or control characters.
 * The user-id ends at the first colon; the password may contain colons.
 */
export function parseBasicAuthorization(header: string | null | undefined): BasicCredentials | null {
  if (!header) return null;
  let credentials = parsedHeaders.get(header);
  if (credentials === undefined) {
    credentials = parseHeader(header);
    if (parsedHeaders.size >= PARSED_HEADERS_KEPT) parsedHeaders.clear();
    parsedHeaders.set(header, credentials);
  }
  return credentials;
}

/**
 * Headers parsed lately, by their text, frozen: a client sends the same header with every request, and a
 * server reads it more than once per request (a fault hook, the router, a request log). Emptied when full,
 * so headers that never repeat hold at most this many entries.
 */
const parsedHeaders = new Map<string, Readonly<BasicCredentials> | null>();
const PARSED_HEADERS_KEPT = 256;

function parseHeader(header: string): Readonly<BasicCredentials> | null {
  const token = BASIC.exec(header)?.[1];
  if (!token) return null;
  let decoded: string;
  try {
    const binary = atob(token);
    // Keys are ASCII: decoding them as UTF-8 would copy them twice to give back the same text.
    decoded = ASCII.test(binary) ? binary : utf8.decode(binaryBytes(binary));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0 || CONTROL.test(decoded)) return null;
  return Object.freeze({ username: decoded.slice(0, colon), password: decoded.slice(colon + 1) });
}

/** The `Authorization` header value for credentials (used by clients and tests). */
export function basicAuthorization({ username, password }: BasicCredentials): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
