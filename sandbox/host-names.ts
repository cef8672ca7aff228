// Which names the sandbox answers to (the Host header). A page whose name an attacker rebinds to 127.0.0.1
// reaches the sandbox with its own name in Host: answering only the names the sandbox is known by keeps such
// a page from driving it with the default keys, which are public.
import type { ProtocolError } from '@payments-contract/server/runtime/node-listener';

/** The loopback names, answered on the listening port (or with no port, as a client may leave it out). */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
/** Addresses that mean "every interface": no client names the sandbox by them. */
const WILDCARDS = new Set(['0.0.0.0', '[::]']);

export const HOST_REFUSALS = {
  missing: {
    status: 400,
    error_code: 'INVALID_HTTP_REQUEST',
    message: 'An HTTP/1.1 request must name the host it is for in a Host header.',
  },
  foreign: {
    status: 421,
    error_code: 'MISDIRECTED_REQUEST',
    message:
      'This sandbox does not answer to that host name: use 127.0.0.1 or localhost, or start it with PUBLIC_HOST naming the host.',
  },
} as const satisfies Record<string, ProtocolError>;

/** A host as Host writes it, split into its name (lower case, an IPv6 address in brackets) and its port. */
export function splitHost(raw: string): { name: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(raw.trim().toLowerCase());
  return match ? { name: match[1]!, port: match[2] } : undefined;
}

/** The listening address as a Host names it (an IPv6 address in brackets). */
const asHostName = (address: string): string =>
  (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address).toLowerCase();

export interface HostNames {
  /** The address the sandbox listens on (HOST): named as it is, unless it is a wildcard. */
  listenHost: string;
  /** PUBLIC_HOST: further names, each with the port clients use (`name:port`) or on any port (`name`). */
  publicHosts: readonly string[];
}

/**
 * The refusal for a request's Host header given the port it came in on, or undefined when the sandbox
 * answers to it. HTTP/1.0 may leave Host out; HTTP/1.1 must not (RFC 9112 §3.2).
 */
export function hostChecker(
  names: HostNames,
): (host: string | undefined, port: number, httpVersion: string) => ProtocolError | undefined {
  const own = new Set([...LOOPBACK_NAMES, asHostName(names.listenHost)].filter((name) => !WILDCARDS.has(name)));
  const published = names.publicHosts.map(splitHost).filter((entry) => entry !== undefined);
  const check = (host: string, port: number): ProtocolError | undefined => {
    const given = splitHost(host);
    if (!given) return HOST_REFUSALS.foreign;
    if (own.has(given.name) && (given.port === undefined || Number(given.port) === port)) return undefined;
    const known = published.some(
      (entry) => entry.name === given.name && (entry.port === undefined || entry.port === (given.port ?? entry.port)),
    );
    return known ? undefined : HOST_REFUSALS.foreign;
  };
  // The Host last answered to, on the port it came in on: a client names the sandbox the same way in every
  // request, so most requests cost two comparisons instead of a pattern's match (the verdict depends on
  // nothing else once a Host is given).
  let answeredHost: string | undefined;
  let answeredPort = -1;
  return (host, port, httpVersion) => {
    if (host === undefined || host === '') return httpVersion === '1.0' ? undefined : HOST_REFUSALS.missing;
    if (host === answeredHost && port === answeredPort) return undefined;
    const refusal = check(host, port);
    if (refusal === undefined) {
      answeredHost = host;
      answeredPort = port;
    }
    return refusal;
  };
}
