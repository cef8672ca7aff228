// Reading and decoding request bodies and parameters for the router. The body is read with a byte limit
// (an unbounded stream is never buffered), then parsed in its media type. Form and query values stay text:
// the coercing validators convert them to the schema's types (decision `form-encoding-coercion`).

export type BodyMediaType = 'application/json' | 'application/x-www-form-urlencoded';

/** A decoded parameter or form field: one value, or several when the name repeats. */
export type TextValues = Record<string, string | string[]>;

export type BodyText =
  | { kind: 'text'; text: string }
  | { kind: 'too-large' }
  /** The bytes are not UTF-8, so the body cannot be parsed in any media type the contract uses. */
  | { kind: 'not-utf8' };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What a body is read from: a Request, or a Response for code reading answers with the same limit. */
export interface BodySource {
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Reads the body as UTF-8 text, giving up as soon as it exceeds `maxBytes`: a declared `Content-Length`
 * above the limit is refused before reading, and a stream is cancelled once it passes the limit.
 */
export async function readBodyText(message: BodySource, maxBytes: number): Promise<BodyText> {
  const declared = Number(message.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) return { kind: 'too-large' };
  if (!message.body) return { kind: 'text', text: '' };
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { kind: 'too-large' };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return { kind: 'text', text: utf8.decode(bytes) };
  } catch {
    return { kind: 'not-utf8' };
  }
}

/**
 * The media type of a `Content-Type` header without its parameters, lower case. A missing header is taken
 * as JSON: every body of the contract is JSON unless it says otherwise, and some clients omit the header.
 */
export function mediaTypeOf(contentType: string | null): string {
  const essence = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === '' ? 'application/json' : essence;
}

/** Gathers name/value pairs, keeping only `names` when given; a repeated name collects its values in order. */
export function collectValues(
  entries: Iterable<[string, string]>,
  names?: readonly string[] | ReadonlySet<string>,
): TextValues {
  const wanted = names === undefined || names instanceof Set ? names : new Set(names);
  const values: TextValues = {};
  for (const [name, value] of entries) {
    if (wanted && !wanted.has(name)) continue;
    addValue(values, name, value);
  }
  return values;
}

function addValue(values: TextValues, name: string, value: string): void {
  const previous = values[name];
  values[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
}

/** A query with nothing to decode: no percent-escape and no `+` (a space). */
const PLAIN_QUERY = /^[^%+]*$/;

/**
 * The values of `names` in a URL's query (without its `?`), as `collectValues(new URLSearchParams(search),
 * names)` gives them. A query with nothing to decode, the common case, is split directly: it runs on every
 * request, and URLSearchParams with its iterator cost more than the rest of reading a query.
 */
export function queryValues(search: string, names: ReadonlySet<string>): TextValues {
  if (!PLAIN_QUERY.test(search)) return collectValues(new URLSearchParams(search), names);
  const values: TextValues = {};
  if (search === '') return values;
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (names.has(name)) addValue(values, name, equals < 0 ? '' : pair.slice(equals + 1));
  }
  return values;
}

/**
 * Decodes `application/x-www-form-urlencoded` strictly: a broken percent-escape or one that is not UTF-8
 * makes the whole body unparsable (decision `ewallet-malformed-body`: "also for broken form encoding"),
 * where URLSearchParams would silently keep or replace it.
 */
export function parseForm(text: string): TextValues | undefined {
  const decode = (part: string): string => decodeURIComponent(part.replaceAll('+', ' '));
  const pairs: [string, string][] = [];
  try {
    for (const pair of text.split('&')) {
      if (pair === '') continue;
      const equals = pair.indexOf('=');
      pairs.push(equals < 0 ? [decode(pair), ''] : [decode(pair.slice(0, equals)), decode(pair.slice(equals + 1))]);
    }
  } catch {
    return undefined;
  }
  return collectValues(pairs);
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false };

/** JSON.parse as a result instead of an exception. */
export function parseJson(text: string): ParsedBody {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Parses body text in one of the contract's media types. */
export function parseBody(text: string, mediaType: BodyMediaType): ParsedBody {
  if (mediaType === 'application/json') return parseJson(text);
  const form = parseForm(text);
  return form ? { ok: true, value: form } : { ok: false };
}
