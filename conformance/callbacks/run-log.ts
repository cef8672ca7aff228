// Everything the run did to the target, as the whole-run callback judge needs it: every exchange any check
// made, in order, with whose key sent it (the run's own key, whose callbacks the receiver gets, or another
// merchant's or mode's). The HTTP client is wrapped, not changed: checks keep the client they had.
import type { Exchange, HttpClient } from '../http.js';

/** Who sent a request: the run's key, another key the run was given (named by its variable), or no known key. */
export type Sender = { own: true } | { own: false; key?: string };

export interface LoggedExchange {
  /** Order in the run, from 0. */
  seq: number;
  exchange: Exchange;
  sender: Sender;
}

export interface RunLog {
  exchanges: () => readonly LoggedExchange[];
}

/** Whether an Authorization header carries `key` (the client's own Basic form, or any Basic form holding it). */
function carriesKey(authorization: string | undefined, key: string, basic: string): boolean {
  if (authorization === undefined || key === '') return false;
  if (authorization === basic) return true;
  const [, token] = /^\S+ +([A-Za-z0-9+/]+=*) *$/.exec(authorization) ?? [];
  return token !== undefined && Buffer.from(token, 'base64').toString('utf8').split(':')[0] === key;
}

/** A client that logs every exchange it (and every `withKey` client made from it) makes, and the log. */
export function recordingClient(http: HttpClient, ownKey: string): { http: HttpClient; log: RunLog } {
  const logged: LoggedExchange[] = [];
  const ownBasic = http.basicAuthorization(ownKey);
  const wrap = (client: HttpClient, variable: string | undefined): HttpClient => ({
    ...client,
    send: async (spec) => {
      const exchange = await client.send(spec);
      const authorization = exchange.request.headers.authorization;
      const own = carriesKey(authorization, ownKey, ownBasic);
      logged.push({
        seq: logged.length,
        exchange,
        sender: own
          ? { own: true }
          : { own: false, ...(variable !== undefined && authorization !== undefined ? { key: variable } : {}) },
      });
      return exchange;
    },
    withKey: (key, keyVariable) => wrap(client.withKey(key, keyVariable), keyVariable),
  });
  return { http: wrap(http, undefined), log: { exchanges: () => logged } };
}
