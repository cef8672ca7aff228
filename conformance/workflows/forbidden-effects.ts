// What a refused action must leave as it was: the object as its read answers it, every balance the state
// machines' balance effects name, and the callbacks sent about the object (the sandbox control API's
// delivery records, `x-callback-deliveries`). A snapshot is taken before and after the action; the balances,
// which any case's steps move, inside a window no other case of the check writes in (see SharedExclusive),
// so any difference is the action's.
import type { Json } from '@payments-contract/contract/model/types';
import type { ControlApi } from '../callbacks/sandbox.js';
import { buildRequest } from '../data/requests.js';
import { accountKey, accountLabel, type Account } from '../data/balance-effects.js';
import type { Exchange } from '../http.js';
import { getPath, type UniqueValues } from './data.js';
import type { Scenario } from './scenario.js';

/**
 * Many holders at once or one alone: the cases' own steps (creations, payments) share it, a case's
 * before/after window takes it alone, so no other case's step moves a balance or sends a callback inside it.
 */
export class SharedExclusive {
  private shared = 0;
  private exclusive = false;
  /** Windows waiting: new steps wait behind them, so a window is not put off while steps keep coming. */
  private queued = 0;
  private waiting: (() => void)[] = [];

  private wait(): Promise<void> {
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  async withShared<T>(work: () => Promise<T>): Promise<T> {
    // Checked and taken in one synchronous step: an await between them would let another holder in.
    while (this.exclusive || this.queued > 0) await this.wait();
    this.shared++;
    try {
      return await work();
    } finally {
      this.shared--;
      this.wake();
    }
  }

  async withExclusive<T>(work: () => Promise<T>): Promise<T> {
    this.queued++;
    while (this.exclusive || this.shared > 0) await this.wait();
    this.queued--;
    this.exclusive = true;
    try {
      return await work();
    } finally {
      this.exclusive = false;
      this.wake();
    }
  }
}

export interface Snapshot {
  /** The object as read back; undefined when the contract gives it no read or lookup. */
  object: Json | undefined;
  balances: Map<string, Json | undefined>;
  /** Delivery records whose body names the object; undefined when the target lists none. */
  deliveries: number | undefined;
  /** Why the deliveries could not be counted. */
  deliveriesUnread?: string;
}

export interface SnapshotSources {
  readObject: () => Promise<Json | undefined>;
  accounts: readonly Account[];
  control: ControlApi | undefined;
  /** Strings that name the object in a callback body (its id, the identifiers it was created with). */
  markers: readonly string[];
  /** The webhooks (operationIds) whose deliveries could be about the object: the only ones listed, where the target can filter. */
  webhooks: readonly string[];
}

const names = (payload: unknown, markers: readonly string[]): boolean => {
  const text = JSON.stringify(payload ?? null);
  return markers.some((marker) => text.includes(JSON.stringify(marker)));
};

/** The object as read back and the callbacks about it: nothing another case does changes them, so they are read outside the window. */
export async function objectSnapshot(sources: SnapshotSources): Promise<Omit<Snapshot, 'balances'>> {
  const object = await sources.readObject();
  const deliveries = sources.control?.deliveries;
  if (!deliveries)
    return {
      object,
      deliveries: undefined,
      deliveriesUnread: 'the target lists no callback deliveries (x-callback-deliveries in a sandbox control contract)',
    };
  // Only the webhooks that could be about the object, when the target filters: the full list grows with the run.
  let count = 0;
  for (const webhook of deliveries.filters ? sources.webhooks : [undefined]) {
    const listed = await deliveries.list(webhook);
    if ('reason' in listed) return { object, deliveries: undefined, deliveriesUnread: listed.reason };
    count += listed.records.filter((record) => names(record.payload, sources.markers)).length;
  }
  return { object, deliveries: count };
}

/** The balances, which every case's steps may move: read inside the window. */
export async function balanceSnapshot(
  s: Scenario,
  accounts: readonly Account[],
  step: string,
): Promise<Snapshot['balances']> {
  const balances = new Map<string, Json | undefined>();
  for (const account of accounts) {
    const operation = s.contract.operation(account.operation);
    const answer = await s.succeed(
      `${step}: ${accountLabel(account)}`,
      operation,
      buildRequest(s.contract, operation, { parameters: account.query }),
    );
    balances.set(accountKey(account), getPath(answer.value, account.field));
  }
  return balances;
}

/** Records, without stopping the scenario, every way `after` differs from `before`. */
export function compareSnapshots(
  s: Scenario,
  step: string,
  exchange: Exchange,
  before: Snapshot,
  after: Snapshot,
  accounts: readonly Account[],
): void {
  const same = JSON.stringify(before.object) === JSON.stringify(after.object);
  s.flag(
    same,
    step,
    exchange,
    `the refused action changed the object: ${JSON.stringify(before.object)} before, ${JSON.stringify(after.object)} after`,
  );
  for (const account of accounts) {
    const key = accountKey(account);
    const [was, is] = [before.balances.get(key), after.balances.get(key)];
    s.flag(
      JSON.stringify(was) === JSON.stringify(is),
      step,
      exchange,
      `the refused action moved ${accountLabel(account)} ${account.field} from ${JSON.stringify(was)} to ${JSON.stringify(is)}`,
    );
  }
  if (before.deliveries === undefined || after.deliveries === undefined) {
    s.notes.push(
      `callbacks not observed: ${after.deliveriesUnread ?? before.deliveriesUnread ?? 'no delivery records'}`,
    );
    return;
  }
  s.flag(
    after.deliveries === before.deliveries,
    step,
    exchange,
    `the refused action sent ${after.deliveries - before.deliveries} callback(s) about the object`,
  );
}

/**
 * The strings that tell a callback about the object from one about another: its id and the identifiers this run
 * made unique. An identifier it could not make unique (an outlet name, an example's digit-only code) is in other
 * objects' callbacks too, and another case's callback carrying it would count as this action's.
 */
export function objectMarkers(
  id: string | undefined,
  identifiers: readonly (Json | undefined)[],
  unique: Pick<UniqueValues, 'made'>,
): string[] {
  return [...(id !== undefined && id.length >= 6 ? [id] : []), ...identifiers.filter((value) => unique.made(value))];
}
