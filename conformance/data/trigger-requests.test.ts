// The request-data triggers of the bundled contract (x-error-triggers kinds past_timestamp, forbidden_terms,
// not_in_catalog) each get requests that break only that rule: the body stays valid against its schema, the
// trigger's field carries the breaking value, and the answer expected is the trigger's code at the status the
// operation documents for it.
import { describe, expect, it } from 'vitest';
import type { Json } from '@payments-contract/contract/model/types';
import { readFileSync } from 'node:fs';
import { defaultSpecPath, loadContract } from '../contract.js';
import { getPath } from '../workflows/data.js';
import { isRequestDataTrigger, REQUEST_DATA_TRIGGERS, triggerRequests } from './trigger-requests.js';

const contract = loadContract();
const triggered = contract.model.operations.flatMap((operation) =>
  Object.entries(operation.errorTriggers).flatMap(([code, trigger]) =>
    isRequestDataTrigger(trigger) ? [{ operation, code, trigger }] : [],
  ),
);

describe('requests breaking the request-data triggers of the bundled contract', () => {
  it('the contract declares triggers of every kind judged here', () => {
    expect(new Set(triggered.map((t) => t.trigger.when))).toEqual(new Set(REQUEST_DATA_TRIGGERS));
  });

  it.each(triggered.map((t) => [`${t.operation.operationId} ${t.code}`, t] as const))(
    '%s: valid bodies that break only the trigger, expecting its code',
    (_name, { operation, code, trigger }) => {
      const plan = triggerRequests(contract, operation);
      const requests = plan.requests.filter((r) => r.expected.errorCode === code);
      expect(plan.notes).toEqual([]);
      expect(requests.length).toBeGreaterThan(0);
      const field = trigger.field;
      for (const request of requests) {
        const body = JSON.parse(request.spec.body?.text ?? 'null') as Json;
        expect(contract.validate(operation.body?.schema ?? {}, body), request.what).toEqual([]);
        expect(operation.responses.find((r) => r.status === request.expected.status)?.errorCodes).toContain(code);
        const value = getPath(body, field);
        if (trigger.when === 'past_timestamp') expect(Date.parse(String(value))).toBeLessThan(Date.now());
        if (trigger.when === 'not_in_catalog') expect(request.what).toContain(trigger.catalog);
        if (trigger.when === 'forbidden_terms')
          expect(
            trigger.terms.some((term) => new RegExp(`(^|[^A-Za-z])${term}($|[^A-Za-z])`, 'i').test(String(value))),
          ).toBe(true);
      }
      // Each forbidden term is sent as written and in lower case: the rule holds in any letter case.
      if (trigger.when === 'forbidden_terms') {
        const sent = requests.map((r) => String(getPath(JSON.parse(r.spec.body?.text ?? 'null') as Json, field)));
        for (const term of trigger.terms) {
          expect(
            sent.some((value) => value.split(/\s+/).join(' ').endsWith(term)),
            term,
          ).toBe(true);
          expect(
            sent.some((value) => value.endsWith(term.toLowerCase())),
            term.toLowerCase(),
          ).toBe(true);
        }
      }
    },
  );

  it('a value outside the catalog is none of the codes the whole contract shows', () => {
    const { operation, trigger } = triggered.find((t) => t.trigger.when === 'not_in_catalog') ?? {};
    if (!operation || !trigger) throw new Error('no not_in_catalog trigger');
    // Every example of the document, the catalog's included, read as text: the value appears in none as a code.
    const document = readFileSync(defaultSpecPath, 'utf8');
    const values = triggerRequests(contract, operation).requests.map((request) =>
      String(getPath(JSON.parse(request.spec.body?.text ?? 'null') as Json, trigger.field)),
    );
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(document).not.toMatch(new RegExp(`"code":\\s*"${value}"`));
    expect(document).toMatch(/"code":\s*"[A-Z]/);
  });
});
