// Check 2, auth: a valid request sent without a valid key (no key, an unknown key, malformed
// Authorization headers) gets the 401 the operation documents, with a code documented for it; nothing
// answers 2xx. Which operations need a key, under which scheme, and the 401's codes come from the contract.
import { randomBytes } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type { JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { buildRequest } from '../data/requests.js';
import { expectationFindings, finding } from '../expectations.js';
import { basicAuthorization, type AuthMode, type Exchange, type HttpClient } from '../http.js';
import type { Check, CheckContext, Finding, Profile } from '../types.js';
import { runPlans, type OperationPlan } from './plans.js';

/** The security schemes an operation accepts (operation `security`, else the document's); [] when none. */
export function securitySchemes(contract: Contract, operation: OperationModel): JsonObject[] {
  const raw = contract.deref({ $ref: operation.pointer }) as JsonObject;
  const requirements = Array.isArray(raw.security) ? raw.security : Array.isArray(contract.doc.security) ? contract.doc.security : [];
  // An empty requirement (`{}`) makes authentication optional: the operation is public.
  if (requirements.length === 0 || requirements.some((r) => isObject(r) && Object.keys(r).length === 0)) return [];
  const components = isObject(contract.doc.components) ? contract.doc.components : {};
  const defined = isObject(components.securitySchemes) ? components.securitySchemes : {};
  return requirements.flatMap((r) => (isObject(r) ? Object.keys(r) : [])).map((name) => contract.deref(defined[name])).filter(isObject);
}

const isBasic = (scheme: JsonObject): boolean => scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic';

interface AuthCase {
  what: string;
  auth: AuthMode;
}

/** The keyless requests to send; malformed Basic headers only where the contract's scheme is Basic. */
function authCases(basic: boolean, profile: Profile): { cases: AuthCase[]; notes: string[] } {
  const wrongKey = `sk_test_conformance_wrong_${randomBytes(8).toString('hex')}`;
  const cases: AuthCase[] = [{ what: 'no key', auth: 'none' }];
  const notes: string[] = [];
  // A stateless mock cannot know which keys exist, so an unknown well-formed key says nothing about it.
  if (profile === 'stateless') notes.push('a wrong well-formed key: not applicable in the stateless profile (a stateless mock cannot know which keys exist); required in stateful and full');
  else cases.push({ what: 'a wrong key', auth: { authorization: basicAuthorization(wrongKey) } });
  if (basic) {
    cases.push(
      { what: 'malformed Authorization (Bearer scheme)', auth: { authorization: 'Bearer x' } },
      { what: 'malformed Authorization (credentials not base64)', auth: { authorization: 'Basic !!!' } },
      { what: 'malformed Authorization (credentials without a colon)', auth: { authorization: `Basic ${Buffer.from('sk_test_conformance_nocolon').toString('base64')}` } },
    );
  } else {
    notes.push('malformed Basic headers: not applicable, the operation\'s security scheme is not HTTP Basic');
  }
  return { cases, notes };
}

function judge(http: HttpClient, exchange: Exchange, what: string, codes: string[]): Finding[] {
  if (exchange.status >= 200 && exchange.status < 300) return [finding(http, exchange, `2xx without a valid key (${what})`)];
  return expectationFindings(http, exchange, { status: 401, ...(codes.length > 0 ? { errorCode: codes } : {}) }, what);
}

function plan(context: CheckContext, operation: OperationModel): OperationPlan {
  const { contract, http } = context;
  const schemes = securitySchemes(contract, operation);
  if (schemes.length === 0) return { operation, cases: [], notes: [], skippedReason: 'the contract lets this operation be called without a key' };
  const unauthorized = contract.response(operation, 401);
  if (!unauthorized) return { operation, cases: [], notes: [], skippedReason: 'the operation documents no 401 answer' };
  const { cases, notes } = authCases(schemes.some(isBasic), context.options.profile);
  return {
    operation,
    notes,
    cases: cases.map(({ what, auth }) => ({
      what,
      spec: { ...buildRequest(contract, operation), auth },
      judge: (exchange) => judge(http, exchange, what, unauthorized.errorCodes),
    })),
  };
}

export const auth: Check = {
  name: 'auth',
  description: 'Requests without a valid key (none, an unknown key, malformed Authorization headers) get the documented 401 and its code; nothing answers 2xx.',
  run: async (context) => {
    const operations = context.contract.model.operations.filter((o) => context.selected('auth', o.operationId));
    return runPlans(context, 'auth', operations.map((operation) => plan(context, operation)));
  },
};
