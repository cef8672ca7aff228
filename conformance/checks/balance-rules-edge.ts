// Check `balance_rules`, part two: the edge of every balance rule (`insufficient_balance` triggers, decision
// balance-cover-rule) and concurrent distinct writes against one balance. The balance is brought to known
// values with the operation itself (the whole balance sent at once: the equality edge) and the control API's
// top-up (`x-balance-top-up`); without a top-up the cases are not run. Then:
// - one unit more than the balance covers is refused with the rule's code, changes no balance and creates
//   nothing the lookup finds; exactly what it covers is accepted, recorded, and leaves what the rule says;
// - N writes with distinct identifiers and idempotency keys, sent at once against a balance that covers K
//   of them, are K accepted and N-K refused with the code, and the balance falls by exactly the K amounts.
// The balance read first is restored at the end.
import { randomUUID } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject } from '@payments-contract/contract/model/types';
import type { ControlApi } from '../callbacks/sandbox.js';
import { accountLabel, type Account } from '../data/balance-effects.js';
import { amountUnit, otherAmounts, type BalanceRule, type BalanceTopUp } from '../data/balance-rules.js';
import { buildRequest } from '../data/requests.js';
import type { Exchange } from '../http.js';
import { planReferences, withReferences, type Provided } from '../workflows/provision.js';
import { propertySchema, resourceOperations, statusesOf, successStatuses, triggersOf } from '../workflows/resources.js';
import type { Scenario } from '../workflows/scenario.js';
import { freshBody, lookupRequest, type WorkflowEnv } from '../workflows/steps.js';

/** How many writes race against one balance, and how many of them it covers. */
export const CONCURRENT_WRITES = 10;
export const COVERED_WRITES = 3;

/** Amounts are compared to the cent. */
const same = (a: number, b: number): boolean => Math.abs(a - b) < 0.005;
const cents = (value: number): number => Math.round(value * 100) / 100;

export interface EdgeEnv {
  s: Scenario;
  rule: BalanceRule;
  control: ControlApi;
  topUp: BalanceTopUp;
  env: WorkflowEnv;
}

/** The balance the rule names, as the service reports it, with the answer that told it. */
export async function readBalance(
  s: Scenario,
  account: Account,
  step: string,
): Promise<{ balance: number; exchange: Exchange }> {
  const operation = s.contract.operation(account.operation);
  const answer = await s.succeed(step, operation, buildRequest(s.contract, operation, { parameters: account.query }));
  const value = isObject(answer.value) ? answer.value[account.field] : undefined;
  if (typeof value !== 'number')
    s.fail(step, answer.exchange, `${step}: ${accountLabel(account)} answered no number in ${account.field}`);
  return { balance: value, exchange: answer.exchange };
}

/** Adds money through the control API, in steps its schema allows; not run when it cannot. */
async function addMoney(e: EdgeEnv, step: string, amount: number): Promise<void> {
  const operation = e.control.contract.operation(e.topUp.operation);
  const schema = propertySchema(e.control.contract, operation.body?.schema, e.topUp.field);
  const largest = isObject(schema) && typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
  const accountName = e.rule.account.query[e.topUp.account];
  for (let left = cents(amount); left > 0; left = cents(left - largest)) {
    const body: JsonObject = {
      [e.topUp.field]: Math.min(left, largest),
      ...(accountName === undefined ? {} : { [e.topUp.account]: accountName }),
    };
    e.s.cases++;
    const added = await e.control.call(e.topUp.operation, { body });
    if (!added.ok) e.s.skip(`${step}: the balance cannot be brought to a known value: ${added.reason}`);
  }
}

/** A fresh valid body of the rule's operation with this amount; undefined when the schema does not allow it. */
function bodyWith(e: EdgeEnv, base: Json, amount: number): JsonObject | undefined {
  if (!isObject(base)) return undefined;
  const body = { ...base, [e.rule.amountField]: amount };
  return e.s.contract.validate(e.rule.operation.body?.schema ?? {}, body).length === 0 ? body : undefined;
}

/** A request with a fresh key in each idempotency header the operation documents. */
function write(e: EdgeEnv, body: JsonObject) {
  const headers = [
    ...new Set(
      [
        ...triggersOf(e.rule.operation, 'idempotency_replay'),
        ...triggersOf(e.rule.operation, 'idempotency_mismatch'),
      ].map(([, trigger]) => String(trigger.header)),
    ),
  ];
  return buildRequest(e.s.contract, e.rule.operation, {
    body,
    parameters: Object.fromEntries(headers.map((header) => [header, randomUUID()])),
  });
}

const accepted = (e: EdgeEnv, exchange: Exchange): boolean =>
  successStatuses(e.rule.operation).includes(exchange.status);
const refusedAsDocumented = (e: EdgeEnv, exchange: Exchange): boolean =>
  statusesOf(e.rule.operation, e.rule.code).includes(exchange.status) &&
  (exchange.json as { error_code?: unknown } | undefined)?.error_code === e.rule.code;
const answered = (exchange: Exchange): string =>
  `${exchange.status} ${String((exchange.json as { error_code?: unknown } | undefined)?.error_code ?? '')}`.trim();

/** Sends a write the balance covers: a refusal is this check's failure, never a reason not to run. */
async function mustAccept(e: EdgeEnv, step: string, body: JsonObject, balance: number): Promise<JsonObject> {
  const exchange = await e.s.send(step, e.rule.operation, write(e, body));
  if (!accepted(e, exchange))
    e.s.fail(
      step,
      exchange,
      `${step}: ${e.rule.operation.operationId} of ${String(body[e.rule.amountField])} against a balance of ${balance} was answered ${answered(exchange)}; the rule (${e.rule.code}, an equal amount ${e.rule.equalAmount}) says it is covered`,
    );
  const created = isObject(exchange.json as Json) ? (exchange.json as JsonObject) : {};
  const recorded = created[e.rule.amountField];
  if (recorded !== undefined)
    e.s.flag(
      recorded === body[e.rule.amountField],
      step,
      exchange,
      `${e.rule.amountField} was sent as ${String(body[e.rule.amountField])}, the object records ${JSON.stringify(recorded)}`,
    );
  return created;
}

/** What the lookup finds for a body's identifiers: none, or the objects; undefined when the contract has no lookup. */
async function lookUp(e: EdgeEnv, step: string, body: JsonObject): Promise<Json[] | undefined> {
  const { lookup } = resourceOperations(e.s.contract, e.rule.operation);
  if (!lookup) return undefined;
  const exchange = await e.s.send(step, lookup, lookupRequest(e.s, lookup, body).request);
  const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
  if (
    triggersOf(lookup, 'not_found').some(
      ([documented]) => documented === code && statusesOf(lookup, documented).includes(exchange.status),
    )
  )
    return [];
  e.s.judge(step, lookup, exchange, { status: successStatuses(lookup) });
  return Array.isArray(exchange.json) ? (exchange.json as Json[]) : [exchange.json as Json];
}

/** The largest amount the rule says a balance covers. */
const covered = (rule: BalanceRule, balance: number, unit: number): number =>
  rule.equalAmount === 'accepted' ? balance : cents(balance - unit);

/** Fresh bodies, the amount's unit and a known amount (valid, and valid one unit more) for the rule's operation. */
interface Ground {
  fresh: () => Promise<Json>;
  unit: number;
  known: number;
}

async function groundOf(e: EdgeEnv): Promise<Ground> {
  const { s, rule } = e;
  const fresh = async (): Promise<Json> => {
    const provided: Provided = new Map();
    for (const action of planReferences(s.contract, rule.operation)) await action.run(s, e.env, provided);
    return withReferences(s.contract, rule.operation, freshBody(s, e.env, rule.operation), provided);
  };
  const fieldSchema = propertySchema(s.contract, rule.operation.body?.schema, rule.amountField);
  const unit = isObject(fieldSchema) ? amountUnit(fieldSchema) : 1;
  const example = await fresh();
  const amounts = isObject(example)
    ? otherAmounts(s.contract, rule.operation.body?.schema, example, rule.amountField, rule.operation)
    : [];
  // The largest such amount: far from the schema's minimum, odd, and one unit more still valid.
  const known = amounts
    .filter((amount) => bodyWith(e, example, cents(amount + unit)) !== undefined)
    .sort((a, b) => b - a)[0];
  if (known === undefined)
    return s.notApplicable(
      `${rule.operation.operationId} allows no amount other than its example's with one unit more: the edge of ${rule.code} cannot be tried`,
    );
  return { fresh, unit, known };
}

/** Sends the whole balance at once (the equality edge on the balance as found), then tops it up to `target`. */
async function bringTo(e: EdgeEnv, g: Ground, start: number, target: number): Promise<void> {
  const { s, rule } = e;
  // A balance between two units (cents paid in, amounts sent in whole units) is first topped up to a whole one.
  const whole = cents(Math.ceil(cents(start / g.unit)) * g.unit);
  if (whole > start) await addMoney(e, 'top-up', cents(whole - start));
  const all = covered(rule, whole, g.unit);
  if (all > 0) {
    const drain =
      bodyWith(e, await g.fresh(), all) ??
      s.skip(
        `a balance of ${whole} cannot be sent in one ${rule.operation.operationId} (its schema does not allow ${all}), so it cannot be brought to a known value`,
      );
    await mustAccept(e, 'the whole balance', drain, whole);
  }
  const left = await readBalance(s, rule.account, 'balance after the whole balance');
  s.require(
    same(left.balance, cents(whole - all)),
    'balance after the whole balance',
    left.exchange,
    `${accountLabel(rule.account)} is ${left.balance} after sending ${all} of ${whole}; the rule leaves ${cents(whole - all)}`,
  );
  if (target > left.balance) await addMoney(e, 'top-up', cents(target - left.balance));
  const now = await readBalance(s, rule.account, 'balance after the top-up');
  if (!same(now.balance, target))
    s.skip(`the balance is ${now.balance} after topping it up to ${target}: it cannot be brought to a known value`);
}

/** The equality edge: one unit more than a known balance covers is refused and changes nothing; exactly what it covers is accepted. */
export async function runEdge(e: EdgeEnv): Promise<void> {
  const { s, rule } = e;
  const g = await groundOf(e);
  const start = (await readBalance(s, rule.account, 'balance before')).balance;
  try {
    await bringTo(e, g, start, g.known);
    const exact = covered(rule, g.known, g.unit);
    const over =
      bodyWith(e, await g.fresh(), cents(exact + g.unit)) ??
      s.skip(`${rule.operation.operationId} does not allow ${cents(exact + g.unit)}`);
    const refusal = await s.send('one unit more', rule.operation, write(e, over));
    s.flag(
      refusedAsDocumented(e, refusal),
      'one unit more',
      refusal,
      `${String(over[rule.amountField])} against a balance of ${g.known} was answered ${answered(refusal)}; the rule says ${statusesOf(rule.operation, rule.code).join('/')} ${rule.code}`,
    );
    const unchanged = await readBalance(s, rule.account, 'balance after the refusal');
    s.flag(
      same(unchanged.balance, g.known),
      'balance after the refusal',
      refusal,
      `${accountLabel(rule.account)} went from ${g.known} to ${unchanged.balance} on a request refused for the balance`,
    );
    const found = await lookUp(e, 'nothing created', over);
    if (found)
      s.flag(
        found.length === 0,
        'nothing created',
        refusal,
        `the request refused for the balance created ${found.length} object(s) the lookup finds`,
      );
    await mustAccept(
      e,
      'exactly what it covers',
      bodyWith(e, await g.fresh(), exact) ?? s.skip(`${rule.operation.operationId} does not allow ${exact}`),
      g.known,
    );
    const after = await readBalance(s, rule.account, 'balance after exactly what it covers');
    s.flag(
      same(after.balance, cents(g.known - exact)),
      'balance after exactly what it covers',
      after.exchange,
      `${accountLabel(rule.account)} is ${after.balance} after sending ${exact} of ${g.known}; the rule leaves ${cents(g.known - exact)}`,
    );
  } finally {
    await restoreBalance(e, start);
  }
}

/** Writes with distinct identifiers and keys, all at once, against a balance covering COVERED_WRITES of them. */
export async function runConcurrent(e: EdgeEnv): Promise<void> {
  const { s, rule } = e;
  const g = await groundOf(e);
  const start = (await readBalance(s, rule.account, 'balance before')).balance;
  try {
    const each = g.known;
    // Short of one more write by one unit, whatever the rule says of an equal amount.
    const balance = cents(each * COVERED_WRITES + covered(rule, each, g.unit) - g.unit);
    await bringTo(e, g, start, balance);
    const bodies: JsonObject[] = [];
    for (let i = 0; i < CONCURRENT_WRITES; i++)
      bodies.push(bodyWith(e, await g.fresh(), each) ?? s.skip(`${rule.operation.operationId} does not allow ${each}`));
    const answers = await Promise.all(bodies.map((body) => s.send('writes at once', rule.operation, write(e, body))));
    const taken = answers.filter((exchange) => accepted(e, exchange));
    const refused = answers.filter((exchange) => !accepted(e, exchange));
    const last = answers[answers.length - 1] as Exchange;
    s.flag(
      taken.length === COVERED_WRITES,
      'writes at once',
      taken[0] ?? last,
      `${CONCURRENT_WRITES} writes of ${each} sent at once against a balance of ${balance}: ${taken.length} accepted, the balance covers exactly ${COVERED_WRITES}`,
    );
    for (const exchange of refused) {
      if (!refusedAsDocumented(e, exchange))
        s.flag(
          false,
          'writes at once',
          exchange,
          `a write the balance could not cover was answered ${answered(exchange)}; the rule says ${statusesOf(rule.operation, rule.code).join('/')} ${rule.code}`,
        );
    }
    const after = await readBalance(s, rule.account, 'balance after the writes');
    const expected = cents(balance - taken.length * each);
    s.flag(
      same(after.balance, expected),
      'balance after the writes',
      after.exchange,
      `${accountLabel(rule.account)} fell by ${cents(balance - after.balance)} (from ${balance} to ${after.balance}), while the ${taken.length} accepted writes of ${each} sum to ${cents(taken.length * each)}`,
    );
    s.flag(
      after.balance >= 0,
      'balance after the writes',
      after.exchange,
      `${accountLabel(rule.account)} went below 0 (${after.balance})`,
    );
  } finally {
    await restoreBalance(e, start);
  }
}

/** Puts the balance back to what it was (the target's own objects may need it), by a top-up of what is missing. */
async function restoreBalance(e: EdgeEnv, start: number): Promise<void> {
  const now = await readBalance(e.s, e.rule.account, 'balance restored');
  if (now.balance < start) await addMoney(e, 'balance restored', cents(start - now.balance));
}
