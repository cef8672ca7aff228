// Check 2, auth: a valid request sent without a valid key (no key, an unknown key, malformed
// Authorization headers, the valid key in a wrong form: with a password, a space, a character more or
// less, another letter case) gets the 401 the operation documents, with a code documented for it; nothing
// answers 2xx. The valid key under the scheme name in another letter case, and the other mode's key, are
// keys: never answered 401. Which operations need a key, under which scheme, and the 401's codes come from
// the contract.
import { randomBytes } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type { JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { buildRequest } from '../data/requests.js';
import { expectationFindings, finding } from '../expectations.js';
import { SECRET_VARIABLES } from '../command.js';
import { basicAuthorization, type AuthMode, type Exchange, type HttpClient, type RequestSpec } from '../http.js';
import type { Check, CheckContext, Finding } from '../types.js';
import { runPlans, type OperationPlan } from './plans.js';

/** The security schemes an operation accepts (operation `security`, else the document's); [] when none. */
export function securitySchemes(contract: Contract, operation: OperationModel): JsonObject[] {
  const raw = contract.deref({ $ref: operation.pointer }) as JsonObject;
  const requirements = Array.isArray(raw.security)
    ? raw.security
    : Array.isArray(contract.doc.security)
      ? contract.doc.security
      : [];
  // An empty requirement (`{}`) makes authentication optional: the operation is public.
  if (requirements.length === 0 || requirements.some((r) => isObject(r) && Object.keys(r).length === 0)) return [];
  const components = isObject(contract.doc.components) ? contract.doc.components : {};
  const defined = isObject(components.securitySchemes) ? components.securitySchemes : {};
  return requirements
    .flatMap((r) => (isObject(r) ? Object.keys(r) : []))
    .map((name) => contract.deref(defined[name]))
    .filter(isObject);
}

const isBasic = (scheme: JsonObject): boolean =>
  scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic';

interface AuthCase {
  what: string;
  auth: AuthMode;
  /** `refused`: the documented 401; `accepted`: authenticated, so anything but the 401 (check 1 judges the rest). */
  expect: 'refused' | 'accepted';
  /** The client that sends it (another key's, for the other mode's key); the run's own by default. */
  client?: HttpClient;
  /** Sent with a body that breaks the schema, so a key that is accepted can cause nothing (a live key moves real money). */
  inert?: boolean;
}

const basicOf = (credentials: string, scheme = 'Basic'): AuthMode => ({
  authorization: `${scheme} ${Buffer.from(credentials).toString('base64')}`,
});

/** A letter-case swap of the key (keys are compared exactly), when the key has letters. */
const swappedCase = (key: string): string =>
  [...key].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

/**
 * The valid key sent in every form the Basic scheme lets a client get wrong: each is a malformed or unknown
 * credential, so the contract's 401. The scheme's description fixes the form (the key as user name, an
 * empty password, the colon kept); a key is compared exactly, so a space or a case change makes another key.
 */
function wrongFormsOf(key: string): AuthCase[] {
  const cases: AuthCase[] = [
    { what: 'the valid key with a non-empty password', auth: basicOf(`${key}:conformance`), expect: 'refused' },
    { what: 'the valid key with a trailing space', auth: basicOf(`${key} :`), expect: 'refused' },
    { what: 'the valid key with a leading space', auth: basicOf(` ${key}:`), expect: 'refused' },
    { what: 'the valid key without its last character', auth: basicOf(`${key.slice(0, -1)}:`), expect: 'refused' },
    { what: 'the valid key with a character appended', auth: basicOf(`${key}0:`), expect: 'refused' },
  ];
  const swapped = swappedCase(key);
  if (swapped !== key)
    cases.push({ what: 'the valid key in another letter case', auth: basicOf(`${swapped}:`), expect: 'refused' });
  return cases;
}

/**
 * The valid key under the scheme name in other letter cases: RFC 7617 and RFC 9110 §11.1 make the scheme
 * name case-insensitive, and the contract follows them (Decision `basic-scheme-case-insensitive`).
 */
const schemeCases = (key: string): AuthCase[] =>
  ['basic', 'BASIC'].map((scheme) => ({
    what: `the valid key under the scheme name "${scheme}"`,
    auth: basicOf(`${key}:`, scheme),
    expect: 'accepted',
    inert: true,
  }));

/** The requests to send; malformed Basic headers and the key's wrong forms only where the contract's scheme is Basic. */
function authCases(context: CheckContext, basic: boolean): { cases: AuthCase[]; notes: string[] } {
  const { profile, apiKey, isolation } = context.options;
  const wrongKey = `sk_test_conformance_wrong_${randomBytes(8).toString('hex')}`;
  const cases: AuthCase[] = [{ what: 'no key', auth: 'none', expect: 'refused' }];
  const notes: string[] = [];
  // A stateless mock cannot know which keys exist, so an unknown well-formed key says nothing about it.
  const judgesKeys = profile !== 'stateless';
  if (!judgesKeys) {
    notes.push(
      "a wrong well-formed key, the valid key's wrong forms, the scheme name's letter case and the other mode's key: not applicable in the stateless profile (a stateless mock cannot know which keys exist); required in stateful and full",
    );
  } else {
    cases.push({ what: 'a wrong key', auth: { authorization: basicAuthorization(wrongKey) }, expect: 'refused' });
  }
  if (basic) {
    cases.push(
      { what: 'malformed Authorization (Bearer scheme)', auth: { authorization: 'Bearer x' }, expect: 'refused' },
      {
        what: 'malformed Authorization (credentials not base64)',
        auth: { authorization: 'Basic !!!' },
        expect: 'refused',
      },
      {
        what: 'malformed Authorization (credentials without a colon)',
        auth: { authorization: `Basic ${Buffer.from('sk_test_conformance_nocolon').toString('base64')}` },
        expect: 'refused',
      },
    );
    if (judgesKeys) cases.push(...wrongFormsOf(apiKey), ...schemeCases(apiKey));
  } else {
    notes.push(
      "malformed Basic headers and the valid key's wrong forms: not applicable, the operation's security scheme is not HTTP Basic",
    );
  }
  if (judgesKeys && isolation?.otherModeKey) {
    // Valid, so authenticated; that it reaches none of this mode's objects is the isolation check's to prove.
    const client = context.http.withKey(isolation.otherModeKey, SECRET_VARIABLES['other-mode-api-key']);
    cases.push({
      what: "the same merchant's key of the other mode",
      auth: 'valid',
      expect: 'accepted',
      client,
      inert: true,
    });
  } else if (judgesKeys) {
    notes.push(
      `the other mode's key: not sent, give it with --other-mode-api-key (${SECRET_VARIABLES['other-mode-api-key']})`,
    );
  }
  return { cases, notes };
}

function judge(http: HttpClient, exchange: Exchange, authCase: AuthCase, codes: string[]): Finding[] {
  const { what } = authCase;
  if (authCase.expect === 'accepted') {
    return exchange.status === 401
      ? [finding(http, exchange, `${what}: refused with 401, but it is a valid key in a form the contract accepts`)]
      : [];
  }
  if (exchange.status >= 200 && exchange.status < 300)
    return [finding(http, exchange, `2xx without a valid key (${what})`)];
  return expectationFindings(http, exchange, { status: 401, ...(codes.length > 0 ? { errorCode: codes } : {}) }, what);
}

/** The operation's request with a body no schema accepts (a JSON array): the answer is decided before anything is done. */
function inertRequest(request: RequestSpec): RequestSpec {
  return request.body ? { ...request, body: { contentType: 'application/json', text: '[]' } } : request;
}

function plan(context: CheckContext, operation: OperationModel): OperationPlan {
  const { contract, http } = context;
  const schemes = securitySchemes(contract, operation);
  if (schemes.length === 0)
    return {
      operation,
      cases: [],
      notes: [],
      skippedReason: 'the contract lets this operation be called without a key',
      notApplicable: true,
    };
  const unauthorized = contract.response(operation, 401);
  if (!unauthorized)
    return {
      operation,
      cases: [],
      notes: [],
      skippedReason: 'the operation documents no 401 answer',
      notApplicable: true,
    };
  const { cases, notes } = authCases(context, schemes.some(isBasic));
  return {
    operation,
    notes,
    cases: cases.map((authCase) => {
      const request = buildRequest(contract, operation);
      const client = authCase.client ?? http;
      return {
        what: authCase.what,
        spec: { ...(authCase.inert ? inertRequest(request) : request), auth: authCase.auth },
        ...(authCase.client ? { client } : {}),
        judge: (exchange: Exchange) => judge(client, exchange, authCase, unauthorized.errorCodes),
      };
    }),
  };
}

export const auth: Check = {
  name: 'auth',
  description:
    "Requests without a valid key (none, an unknown key, malformed Authorization headers, the valid key with a password, a space, a character more or less, another letter case) get the documented 401 and its code; the valid key under a lower- or upper-case scheme name and the other mode's key are accepted.",
  run: async (context) => {
    const operations = context.contract.model.operations.filter((o) => context.selected('auth', o.operationId));
    return runPlans(
      context,
      'auth',
      operations.map((operation) => plan(context, operation)),
    );
  },
};
