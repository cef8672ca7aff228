// The sandbox's record of recent service requests, per merchant and mode, for the control API's
// listRequests (spec/sandbox/paths/sandbox_requests.yaml) and the dashboard built on it. Kept in memory,
// not in the store: it is a development aid, a restart may lose it, and writing it to the journal would put
// a write on every request, reads included. Bounded twice: the newest `capacity` requests of each scope,
// each body cut at `bodyLimit` characters; scopes come only from valid keys, so their number is bounded by
// the configured merchants. Secrets are masked when the record is read, off the request's path.
import type { components } from '@payments-contract/server/sandbox/types';
import type { Scope } from '../context.js';
import type { MaskSecrets } from './mask-secrets.js';

/** One request as listRequests shows it: the control contract's SandboxRequest. */
export type RequestRecord = components['schemas']['SandboxRequest'];

/**
 * A request as it is added: its arrival `at` in milliseconds of the scope's sandbox time, made text only
 * when it is listed (an ISO text costs 1-2.5 us on this project's VM, on every request).
 */
export type AddedRequest = Omit<RequestRecord, 'at'> & { at: number };

export interface RequestLog {
  add(scope: Scope, record: AddedRequest): void;
  /** The scope's newest `limit` requests, newest first, secrets masked. */
  list(scope: Scope, limit: number): RequestRecord[];
}

export const REQUEST_LOG_CAPACITY = 200;
export const REQUEST_LOG_BODY_LIMIT = 8 * 1024;

export interface RequestLogOptions {
  mask: MaskSecrets;
  capacity?: number;
  bodyLimit?: number;
}

/**
 * A record as added. Bodies within the limit (nearly all) are kept as sent and made printable and cut when
 * the record is listed, so a request nobody lists costs no scan of its bodies; a longer one is cut at once,
 * so a ring never holds more than the limit of either body.
 */
interface Kept {
  record: AddedRequest;
  /** True when both bodies are as sent, each at most the limit long; false when they were already made printable and cut. */
  asSent: boolean;
}

/** A fixed-size ring of one scope's records: adding the next overwrites the oldest, with no copying. */
interface Ring {
  records: Kept[];
  /** Where the next record goes. */
  next: number;
}

export function createRequestLog(options: RequestLogOptions): RequestLog {
  const capacity = options.capacity ?? REQUEST_LOG_CAPACITY;
  const bodyLimit = options.bodyLimit ?? REQUEST_LOG_BODY_LIMIT;
  const rings = new Map<string, Ring>();
  const keyOf = (scope: Scope): string => `${scope.mode}:${scope.merchantId}`;
  /** A long body cut, copied so the kept part does not hold the whole original string in memory. */
  const bounded = (body: string | null): string | null => {
    if (body === null || body.length <= bodyLimit) return body;
    return (
      Buffer.from(body.slice(0, bodyLimit), 'utf8').toString('utf8') +
      `… (${body.length - bodyLimit} more characters not kept)`
    );
  };
  const masked = (body: string | null): string | null => (body === null ? null : options.mask(body));
  // Decision sandbox-record-bounds: a body is shown as text, so control characters other than tab and line
  // breaks (a body that is not text, or a hostile one) are written as `\uXXXX`.
  const printable = (body: string | null): string | null =>
    body === null
      ? null
      : body.replace(
          /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g,
          (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
  /** A body as the record shows it. */
  const shown = (body: string | null): string | null => bounded(printable(body));
  const withinLimit = (body: string | null): boolean => body === null || body.length <= bodyLimit;
  return {
    add(scope, record) {
      const key = keyOf(scope);
      let ring = rings.get(key);
      if (!ring) rings.set(key, (ring = { records: [], next: 0 }));
      const asSent = withinLimit(record.request_body) && withinLimit(record.response_body);
      const kept: Kept = asSent
        ? { record, asSent }
        : {
            record: { ...record, request_body: shown(record.request_body), response_body: shown(record.response_body) },
            asSent,
          };
      if (ring.records.length < capacity) ring.records.push(kept);
      else ring.records[ring.next] = kept;
      ring.next = (ring.next + 1) % capacity;
    },
    list(scope, limit) {
      const ring = rings.get(keyOf(scope));
      if (!ring) return [];
      const { records } = ring;
      const newestFirst: RequestRecord[] = [];
      for (let i = 1; i <= Math.min(limit, records.length); i++) {
        const { record, asSent } = records[(ring.next - i + records.length) % records.length]!;
        newestFirst.push({
          ...record,
          at: new Date(record.at).toISOString(),
          path: options.mask(record.path),
          idempotency_key: masked(record.idempotency_key),
          request_body: masked(asSent ? shown(record.request_body) : record.request_body),
          response_body: masked(asSent ? shown(record.response_body) : record.response_body),
        });
      }
      return newestFirst;
    },
  };
}
