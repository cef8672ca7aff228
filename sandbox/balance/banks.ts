// The bank catalogs, as data taken from the contract. Decision `disbursement-bank-catalog` makes the
// `listDisbursementBanks` example the authority on disbursement destinations, and the
// `listVirtualAccountBanks` examples name the banks fixed virtual accounts can be opened in.
import type { components } from '@payments-contract/server/types';
import { isObject } from '@payments-contract/contract/model';
import type { Json } from '@payments-contract/contract/model/types';
import { responseExamples } from '../contract.js';

export type DisbursementBank = components['schemas']['DisbursementBank'];
export type VirtualAccountBank = components['schemas']['VirtualAccountBank'];
export type VirtualAccountBankCode = VirtualAccountBank['code'];

/** Every entry of every example of the operation's 200 answer, the first entry of each code kept. */
function catalog<Entry extends { code: string }>(
  operationId: string,
  isEntry: (value: Json) => value is Json & Entry,
): readonly Entry[] {
  const byCode = new Map<string, Entry>();
  for (const example of responseExamples(operationId, 200)) {
    if (!Array.isArray(example)) throw new Error(`an example of ${operationId} is not an array`);
    for (const entry of example) {
      if (!isEntry(entry))
        throw new Error(`an example of ${operationId} has an entry that is not a bank: ${JSON.stringify(entry)}`);
      if (!byCode.has(entry.code)) byCode.set(entry.code, entry);
    }
  }
  return Object.freeze([...byCode.values()]);
}

const isDisbursementBank = (value: Json): value is Json & DisbursementBank =>
  isObject(value) &&
  typeof value.name === 'string' &&
  typeof value.code === 'string' &&
  typeof value.can_disburse === 'boolean' &&
  typeof value.can_name_validate === 'boolean';

// The generated type narrows `code` to the schema's enum, which the examples were linted against.
const isVirtualAccountBank = (value: Json): value is Json & VirtualAccountBank =>
  isObject(value) && typeof value.name === 'string' && typeof value.code === 'string';

/** Every disbursement destination (banks and e-wallets), in the contract's order. */
export const disbursementBankCatalog: readonly DisbursementBank[] = catalog(
  'listDisbursementBanks',
  isDisbursementBank,
);

/** The disbursement destination with this `bank_code`; undefined means `BANK_CODE_NOT_SUPPORTED_ERROR`. */
export function findDisbursementBank(code: string): DisbursementBank | undefined {
  return disbursementBankCatalog.find((bank) => bank.code === code);
}

/** Every bank fixed virtual accounts can be opened in, with its display name, in the contract's order. */
export const virtualAccountBankCatalog: readonly VirtualAccountBank[] = catalog(
  'listVirtualAccountBanks',
  isVirtualAccountBank,
);
