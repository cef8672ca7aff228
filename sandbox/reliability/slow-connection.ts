// One slow connection over plain TCP or TLS (node:tls: raw-http.ts speaks plain TCP only), held until the
// server ends it: what it sent back and when. Timed from the moment the connection is up (TCP connected, or
// the TLS handshake done), where the server's head and request deadlines start; the time the handshake took
// is given apart. Nothing here judges the end.
import { connect as connectTcp } from 'node:net';
import { connect as connectTls, TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { parseAnswer } from './raw-http.js';

export type Opener = () => Duplex;

/** A TCP connection to 127.0.0.1:`port`. */
export const tcpTo =
  (port: number): Opener =>
  () =>
    connectTcp(port, '127.0.0.1');

/** A TLS connection to 127.0.0.1:`port`, trusting only `ca` (the test's self-signed certificate). */
export const tlsTo =
  (port: number, ca: Buffer): Opener =>
  () =>
    connectTls({ port, host: '127.0.0.1', ca });

/** What the client does on the connection once it is open; returns what stops it. */
export type Talk = (socket: Duplex) => () => void;

/** `ms`: from the connection being up (or, when it never was, from opening it); `upMs`: how long that took. */
type Ended =
  | { kind: 'answer'; status: number; body: Buffer; ms: number }
  | { kind: 'closed'; bytes: number; ms: number }
  | { kind: 'held'; ms: number };
export type SlowEnd = Ended & { upMs: number | undefined };

/** Opens, lets `talk` write once it is up, and waits until the server ends the connection or `giveUpMs` pass ('held'). */
export function holdUntilEnded(open: Opener, talk: Talk, giveUpMs: number): Promise<SlowEnd> {
  return new Promise((resolve) => {
    const opened = performance.now();
    let started = opened;
    let upMs: number | undefined;
    const chunks: Buffer[] = [];
    let stop = (): void => undefined;
    let settled = false;
    const finish = (end: Ended): void => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      stop();
      socket.destroy();
      resolve({ ...end, upMs });
    };
    const ms = (): number => performance.now() - started;
    const ended = (): void => {
      const received = Buffer.concat(chunks);
      const parsed = parseAnswer(received, false, true);
      finish(
        parsed.complete
          ? { kind: 'answer', status: parsed.status, body: parsed.body, ms: ms() }
          : { kind: 'closed', bytes: received.length, ms: ms() },
      );
    };
    const socket = open();
    const giveUp = setTimeout(() => finish({ kind: 'held', ms: ms() }), giveUpMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server's close (with or without an answer) is the end being measured; a reset is one too.
    socket.on('end', ended);
    socket.on('close', ended);
    socket.on('error', ended);
    socket.once(socket instanceof TLSSocket ? 'secureConnect' : 'connect', () => {
      started = performance.now();
      upMs = started - opened;
      if (!settled) stop = talk(socket);
    });
  });
}

/** Writes `first` at once, then one byte of `cycle` every `everyMs`, never finishing; returns what stops it. */
export const drip =
  (first: string, cycle: string, everyMs: number): Talk =>
  (socket) => {
    socket.write(first);
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.writable) socket.write(cycle[sent++ % cycle.length]!);
    }, everyMs);
    return () => clearInterval(timer);
  };

/** Writes `bytes` once and then nothing. */
export const writeOnce =
  (bytes: string | Buffer): Talk =>
  (socket) => {
    socket.write(bytes);
    return () => undefined;
  };

/** Says nothing at all. */
export const silent: Talk = () => () => undefined;
