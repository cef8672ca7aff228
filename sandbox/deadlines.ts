// How long a connection may take over each part of a request, in one place: the listener applies them to
// plain HTTP and HTTPS alike, the configuration lets an operator (and a test) change them.

export interface Deadlines {
  /** TLS: the first byte, then the handshake from it (Node's own 120 s is far longer than a client needs). */
  handshakeMs: number;
  /** A request head, complete from the connection's start (or the end of the previous request). */
  headersMs: number;
  /** A whole request, body included. */
  requestMs: number;
}

/** Node's own header and request timeouts, and the 30 s the README gives the TLS handshake. */
export const DEFAULT_DEADLINES: Readonly<Deadlines> = { handshakeMs: 30_000, headersMs: 60_000, requestMs: 300_000 };

/**
 * How often Node looks for connections past their deadline: its default 30 s, or half the head deadline
 * when that is shorter, so a short deadline is kept to within half of itself instead of 30 s late.
 */
export function checkIntervalMs(deadlines: Deadlines): number {
  return Math.max(10, Math.min(30_000, Math.floor(deadlines.headersMs / 2)));
}
