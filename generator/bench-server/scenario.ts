// What every server of `npm run bench:server` does, in one place, so the targets differ only in the
// framework around it: the same Basic authentication (parsed by the runtime, compared by digest), the same
// trivial in-memory handlers, the same schemas (the contract's own, dereferenced, compiled by ajv with the
// generator's options: peer-schemas.ts), and the same `{ error_code, message, errors }` answer built by the
// runtime.
import { parseBasicAuthorization, type BasicCredentials } from '@payments-contract/server/runtime/basic-auth';
import { digestsEqual, secretDigest } from '@payments-contract/server/runtime/constant-time';
import {
  toIssues,
  validationAnswer,
  validationErrorBody,
  type IssueLocation,
} from '@payments-contract/server/runtime/validation-errors';
import type { ValidatorError } from '@payments-contract/server/runtime/validator';
import { operationTable } from '@payments-contract/server';

export const SECRET_KEY = 'xnd_development_bench_server_secret_key';
const SECRET_DIGEST = secretDigest(SECRET_KEY);
export const AUTHORIZATION = `Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`;

/** Who is calling: the one merchant whose key the servers know. */
export interface Principal {
  merchant: string;
}
const MERCHANT: Principal = { merchant: 'bench' };

/** The principal for Basic credentials, or null (401): the generated router's `authenticate`. */
export function principalFor(credentials: BasicCredentials | null): Principal | null {
  if (!credentials || credentials.password !== '') return null;
  return digestsEqual(secretDigest(credentials.username), SECRET_DIGEST) ? MERCHANT : null;
}

/** The same for an `Authorization` header, parsed by the runtime as the generated router parses it. */
export function authenticate(header: string | null | undefined): Principal | null {
  return principalFor(parseBasicAuthorization(header));
}

export const UNAUTHORIZED_HEADERS = { 'www-authenticate': 'Basic realm="payments"' } as const;
export const UNAUTHORIZED_BODY = {
  error_code: 'INVALID_API_KEY',
  message: 'Send your secret API key as the user name of HTTP Basic authentication, with an empty password.',
} as const;
export const MALFORMED_BODY = {
  error_code: 'INVALID_JSON_FORMAT',
  message: 'The request body could not be parsed in its declared content type.',
} as const;

export const FVA_ID = '5f6ee8de3a733c1d2e1a1b2c';
const STORED_FVA = {
  id: FVA_ID,
  owner_id: '5ed75086a883856178afc12e',
  external_id: 'va-toko-sinar-jaya-0001',
  bank_code: 'BNI',
  merchant_code: '88608',
  name: 'Toko Sinar Jaya',
  account_number: '8860810000123',
  is_closed: false,
  is_single_use: false,
  status: 'ACTIVE',
  expiration_date: '2057-11-21T09:30:00.000Z',
  created: '2026-11-21T09:30:00.000Z',
  updated: '2026-11-21T09:30:00.000Z',
} as const;
const fixedVirtualAccounts = new Map<string, typeof STORED_FVA>([[FVA_ID, STORED_FVA]]);

/** The trivial in-memory handlers: each framework's route calls these and sends what they return. */
export const handlers = {
  getBalance(query: { account_type?: string }) {
    return { status: 200 as const, body: { balance: query.account_type === 'HOLDING' ? 2350000.5 : 15750000 } };
  },
  getFixedVirtualAccount(id: string) {
    const found = fixedVirtualAccounts.get(id);
    if (found) return { status: 200 as const, body: found };
    return {
      status: 404 as const,
      body: {
        error_code: 'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR' as const,
        message: `No fixed virtual account has the id ${id}.`,
      },
    };
  },
  createDisbursement(body: CreateDisbursement) {
    return {
      status: 200 as const,
      body: {
        id: '5f6ee8de3a733c1d2e1a1b2c',
        user_id: MERCHANT_USER_ID,
        external_id: body.external_id,
        amount: body.amount,
        bank_code: body.bank_code,
        account_holder_name: body.account_holder_name,
        disbursement_description: body.description ?? 'Default description',
        status: 'PENDING' as const,
        created: '2026-11-21T09:30:00.000Z',
        updated: '2026-11-21T09:30:00.000Z',
      },
    };
  },
};
const MERCHANT_USER_ID = '5f6ee8de3a733c1d00000001';

export interface CreateDisbursement {
  external_id: string;
  bank_code: string;
  account_holder_name: string;
  account_number: string;
  amount: number;
  description?: string;
}

/** The contract's answer to broken rules, as the generated router builds it (status, code, `errors`). */
export function validationFailure(
  operationId: 'getBalance' | 'getFixedVirtualAccount' | 'createDisbursement',
  location: IssueLocation,
  errors: readonly ValidatorError[] | null | undefined,
) {
  const issues = toIssues(location, errors);
  const answer = validationAnswer(issues, operationTable[operationId]);
  return { status: answer.status, body: validationErrorBody(answer, issues) };
}
