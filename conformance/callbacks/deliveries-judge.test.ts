import { describe, expect, it } from 'vitest';
import type { JsonObject, WebhookModel } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import type { Exchange } from '../http.js';
import { operationLocator } from '../operation-at.js';
import { judgeDeliveries, type JudgeInput } from './deliveries-judge.js';
import type { Delivery } from './receiver.js';
import type { LoggedExchange, Sender } from './run-log.js';

const contract = loadContract();
const BASE = 'http://target.test';
const webhookNamed = (operationId: string): WebhookModel => contract.webhook(operationId);
const example = (webhook: WebhookModel, name: string): JsonObject => {
  const raw = contract.deref({ $ref: webhook.pointer }) as {
    requestBody: { content: { 'application/json': { examples: Record<string, { value: JsonObject }> } } };
  };
  return structuredClone(raw.requestBody.content['application/json'].examples[name]?.value) as JsonObject;
};

const changed = webhookNamed('fixedVirtualAccountChanged');
const paid = webhookNamed('fixedVirtualAccountPaid');
const finished = webhookNamed('disbursementFinished');
/** The account as createFixedVirtualAccount answered it: the creation callback carries the same fields. */
const account = example(changed, 'openAccountCreated');

function exchange(method: string, path: string, status: number, json: unknown): Exchange {
  return {
    request: { method, url: `${BASE}${path}`, headers: {}, auth: 'valid' },
    status,
    headers: {},
    bodyText: JSON.stringify(json),
    json,
    durationMs: 1,
  };
}
const logged = (entries: [Exchange, Sender?][]): LoggedExchange[] =>
  entries.map(([e, sender], seq) => ({ seq, exchange: e, sender: sender ?? { own: true } }));
const created = exchange('POST', '/callback_virtual_accounts', 200, account);

let seq = 0;
function delivery(
  webhook: WebhookModel,
  body: JsonObject,
  answered: number,
  overrides: Partial<Delivery> = {},
): Delivery {
  return {
    seq: seq++,
    receivedAt: 0,
    at: '',
    method: 'POST',
    path: `/callbacks/${webhook.operationId}/whole-run`,
    headers: {},
    token: { [webhook.tokenHeader]: 'match' },
    bodyText: JSON.stringify(body),
    json: body,
    tooLarge: false,
    identified: { webhook: webhook.operationId, by: 'path', key: 'whole-run' },
    answered,
    ...overrides,
  };
}

function judge(
  webhook: WebhookModel,
  deliveries: Delivery[],
  exchanges: LoggedExchange[],
  overrides: Partial<JudgeInput> = {},
) {
  const { results, missing } = judgeDeliveries({
    contract,
    http: { curl: () => 'curl …' },
    deliveries,
    exchanges,
    serviceOperation: operationLocator(contract.model.operations, BASE),
    simulation: () => undefined,
    receiverUrl: 'http://receiver.test',
    dashboardReaches: true,
    tokenGiven: true,
    failedOnPurpose: new Map(),
    retriesBrought: true,
    waitMs: 10,
    webhooks: [webhook],
    ...overrides,
  });
  const [result] = results;
  return { result, messages: (result?.findings ?? []).map((f) => f.message).join('\n'), missing };
}

describe('judgeDeliveries', () => {
  it('passes the callback of a creation the run made, whichever acknowledging status it was answered', () => {
    for (const status of [200, 201, 202, 204]) {
      const { result } = judge(changed, [delivery(changed, account, status)], logged([[created]]));
      expect(result?.outcome).toBe('passed');
      expect(result?.cases).toBeGreaterThan(0);
    }
  });

  it('fails a transition the run caused that sends a callback when none arrived', () => {
    const { messages, missing } = judge(changed, [], logged([[created]]));
    expect(missing).toBe(1);
    expect(messages).toMatch(
      /the run caused createFixedVirtualAccount .* says send\(s\) fixedVirtualAccountChanged; 0 of 1 arrived within 10 ms/,
    );
  });

  it('cannot tell a missing callback when the dashboard setting does not point at the receiver: unchecked, not passed', () => {
    const { result } = judge(changed, [], logged([[created]]), { dashboardReaches: false });
    expect(result?.findings).toEqual([]);
    expect(result?.unchecked?.join('\n')).toMatch(/does not point at the receiver/);
  });

  it('fails a callback sent again after the receiver acknowledged it', () => {
    const { messages } = judge(
      changed,
      [delivery(changed, account, 204), delivery(changed, account, 200)],
      logged([[created]]),
    );
    expect(messages).toMatch(/sent again 1 time\(s\) after the receiver acknowledged it with 204/);
  });

  it('accepts a retry after an answer that does not acknowledge, and fails one that never came once the retries were brought on', () => {
    const refused = delivery(changed, account, 503);
    expect(
      judge(changed, [refused, delivery(changed, account, 200)], logged([[created]]), {
        failedOnPurpose: new Map([[refused.seq, 503]]),
      }).result?.outcome,
    ).toBe('passed');
    const alone = delivery(changed, account, 409);
    const failedOnPurpose = new Map([[alone.seq, 409]]);
    expect(judge(changed, [alone], logged([[created]]), { failedOnPurpose }).messages).toMatch(
      /answered 409, which does not acknowledge, and it was never retried/,
    );
    const unbrought = judge(changed, [alone], logged([[created]]), { failedOnPurpose, retriesBrought: false }).result;
    expect(unbrought?.outcome).toBe('passed');
    expect(unbrought?.unchecked?.join('\n')).toMatch(/could not be brought on/);
  });

  it('fails a callback for an object the run never made', () => {
    const stranger = { ...account, id: '5f6ee8de3a733c1d2e1affff' };
    expect(judge(changed, [delivery(changed, stranger, 200)], logged([[created]])).messages).toMatch(
      /matches nothing the run did: no object the run created or read has id "5f6ee8de3a733c1d2e1affff"/,
    );
  });

  it("fails a callback for an object only another merchant's or mode's key made", () => {
    const { messages } = judge(
      changed,
      [delivery(changed, account, 200)],
      logged([[created, { own: false, key: 'OTHER_MERCHANT_KEY' }]]),
    );
    expect(messages).toMatch(/only with another key \(OTHER_MERCHANT_KEY\): another merchant's or mode's callback/);
  });

  it('fails a field that is not the one x-callback-source derives from the object', () => {
    const { messages } = judge(
      changed,
      [delivery(changed, { ...account, name: 'Someone Else' }, 200)],
      logged([[created]]),
    );
    expect(messages).toMatch(
      /name is "Someone Else"; derived from the object's name \(as createFixedVirtualAccount answered it\) it is "Budi Santoso"/,
    );
  });

  it("derives the payment callback's account number without the merchant_code prefix", () => {
    const payment = example(paid, 'bcaPayment');
    const fva = {
      ...account,
      id: payment.callback_virtual_account_id,
      external_id: payment.external_id,
      bank_code: payment.bank_code,
      merchant_code: payment.merchant_code,
      account_number: `${String(payment.merchant_code)}${String(payment.account_number)}`,
    } as JsonObject;
    const exchanges = logged([[exchange('POST', '/callback_virtual_accounts', 200, fva)]]);
    expect(judge(paid, [delivery(paid, payment, 200)], exchanges).result?.outcome).toBe('passed');
    const full = { ...payment, account_number: fva.account_number } as JsonObject;
    expect(judge(paid, [delivery(paid, full, 200)], exchanges).messages).toMatch(
      /account_number is .* without its merchant_code prefix .* \(decision fva-callback-account-number\)/,
    );
  });

  it('fails more callbacks for an object than the transitions the run caused (a refused update that sent one)', () => {
    const refused = exchange('PATCH', `/callback_virtual_accounts/${String(account.id)}`, 400, {
      error_code: 'INACTIVE_VIRTUAL_ACCOUNT_ERROR',
      message: 'inactive',
    });
    const again = { ...account, updated: '2026-11-21T09:31:00.000Z' };
    const { messages } = judge(
      changed,
      [delivery(changed, account, 200), delivery(changed, again, 200)],
      logged([[created], [refused]]),
    );
    expect(messages).toMatch(
      /2 distinct fixedVirtualAccountChanged callbacks for the object with id .*; what the run did explains at most 1/,
    );
  });

  it('fails a state no transition sending the callback leads to', () => {
    const done = example(finished, 'completed');
    const { is_instant: _onlyInTheCallback, ...answered } = done;
    const disbursement = { ...answered, status: 'PENDING' };
    const exchanges = logged([[exchange('POST', '/disbursements', 200, disbursement)]]);
    expect(judge(finished, [delivery(finished, done, 200)], exchanges).result?.outcome).toBe('passed');
    expect(judge(finished, [delivery(finished, { ...done, status: 'PENDING' }, 200)], exchanges).messages).toMatch(
      /status "PENDING", but x-state-machines disbursement lists no transition to it that sends disbursementFinished/,
    );
  });

  it("fails a token that is not the merchant's", () => {
    expect(
      judge(
        changed,
        [delivery(changed, account, 200, { token: { [changed.tokenHeader]: 'mismatch' } })],
        logged([[created]]),
      ).messages,
    ).toMatch(/is not this merchant's callback token/);
  });
});
