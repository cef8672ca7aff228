// Test helper for the store contract: writes records one by one into a store of the kind in argv[2], in the
// DATA_DIR argv[3], and prints the number of each write after it is acknowledged, until it is killed.
import { openStore, STORE_KINDS, type StoreKind } from '../open-store.js';
import { collections } from './store-contract.js';

const kind = process.argv[2] as StoreKind;
if (!STORE_KINDS.includes(kind)) throw new Error(`crash-writer: unknown store kind ${String(kind)}`);
const store = openStore({ kind, dataDir: process.argv[3] ?? '', collections });
for (let n = 1; ; n++) {
  await store.insert('things', { merchantId: 'm-a', mode: 'test' }, { id: String(n), external_id: `ext-${n}`, state: 'open' });
  process.stdout.write(`${n}\n`);
}
