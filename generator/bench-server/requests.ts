// The requests of `npm run bench:server`: the loads it measures and the cases its equivalence check sends.
import { AUTHORIZATION, FVA_ID } from './scenario.js';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const JSON_HEADERS = { authorization: AUTHORIZATION, 'content-type': 'application/json' };

const VALID_DISBURSEMENT = JSON.stringify({
  external_id: 'payout-2026-11-21-0001',
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: 'Komisi penjualan November 2026',
  amount: 17500000,
});

/** Breaks two rules of CreateDisbursementRequest (an empty external_id; a BCA account number that is not 10 digits). */
const INVALID_DISBURSEMENT = JSON.stringify({
  external_id: '',
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '12345',
  amount: 17500000,
});

/** One measured load: a name for the table, the request, and the status every answer must have. */
export interface Load {
  name: string;
  request: BenchRequest;
  status: number;
  /** A read: the goal of at least 85% of the bare node:http ceiling applies. */
  read: boolean;
}

export const LOADS: readonly Load[] = [
  {
    name: 'GET /balance',
    request: { method: 'GET', path: '/balance?account_type=HOLDING', headers: { authorization: AUTHORIZATION } },
    status: 200,
    read: true,
  },
  {
    name: 'GET /callback_virtual_accounts/{id}',
    request: { method: 'GET', path: `/callback_virtual_accounts/${FVA_ID}`, headers: { authorization: AUTHORIZATION } },
    status: 200,
    read: true,
  },
  {
    name: 'POST /disbursements',
    request: {
      method: 'POST',
      path: '/disbursements',
      headers: { ...JSON_HEADERS, 'x-idempotency-key': 'bench-key-0001' },
      body: VALID_DISBURSEMENT,
    },
    status: 200,
    read: false,
  },
  {
    name: 'POST /disbursements, 400',
    request: { method: 'POST', path: '/disbursements', headers: JSON_HEADERS, body: INVALID_DISBURSEMENT },
    status: 400,
    read: false,
  },
  { name: 'GET /balance, 401', request: { method: 'GET', path: '/balance', headers: {} }, status: 401, read: false },
];

/** What the equivalence check sends to every target: valid, invalid and unauthenticated requests of each operation. */
export const EQUIVALENCE_CASES: readonly { name: string; request: BenchRequest }[] = [
  ...LOADS.map(({ name, request }) => ({ name, request })),
  {
    name: 'GET /balance, no query',
    request: { method: 'GET', path: '/balance', headers: { authorization: AUTHORIZATION } },
  },
  {
    name: 'GET /balance, unknown account type',
    request: { method: 'GET', path: '/balance?account_type=ESCROW', headers: { authorization: AUTHORIZATION } },
  },
  {
    name: 'GET /callback_virtual_accounts/{id}, unknown id',
    request: { method: 'GET', path: '/callback_virtual_accounts/nope', headers: { authorization: AUTHORIZATION } },
  },
  {
    name: 'GET /callback_virtual_accounts/{id}, 401',
    request: {
      method: 'GET',
      path: `/callback_virtual_accounts/${FVA_ID}`,
      headers: { authorization: 'Basic bm9wZTo=' },
    },
  },
  {
    name: 'POST /disbursements, no idempotency key',
    request: { method: 'POST', path: '/disbursements', headers: JSON_HEADERS, body: VALID_DISBURSEMENT },
  },
  {
    name: 'POST /disbursements, amount too large for another bank',
    request: {
      method: 'POST',
      path: '/disbursements',
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...JSON.parse(VALID_DISBURSEMENT), bank_code: 'DANAMON', amount: 100000001 }),
    },
  },
  {
    name: 'POST /disbursements, missing fields',
    request: { method: 'POST', path: '/disbursements', headers: JSON_HEADERS, body: '{"amount":"12"}' },
  },
  {
    name: 'POST /disbursements, malformed JSON',
    request: { method: 'POST', path: '/disbursements', headers: JSON_HEADERS, body: '{"amount":' },
  },
  {
    name: 'POST /disbursements, 401',
    request: {
      method: 'POST',
      path: '/disbursements',
      headers: { 'content-type': 'application/json' },
      body: VALID_DISBURSEMENT,
    },
  },
];
