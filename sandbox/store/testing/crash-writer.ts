// Test helper for the store contract: writes records one by one into a store of the kind in argv[2], in the
// DATA_DIR argv[3] (for postgres: the schema standing for it, on the server SANDBOX_TEST_DATABASE_URL names),
// and prints the number of each write after it is acknowledged, until it is killed.
import { openStore, STORE_KINDS, type StoreKind } from '../open-store.js';
import { openTestStore, TEST_DATABASE_URL } from '../postgres/testing/test-schemas.js';
import type { Store } from '../store.js';
import { collections } from './store-contract.js';

const kind = process.argv[2] as StoreKind | 'postgres';
const dataDir = process.argv[3] ?? '';
let store: Store;
if (kind === 'postgres') store = await openTestStore(process.env[TEST_DATABASE_URL] ?? '', dataDir, collections);
else if (STORE_KINDS.includes(kind)) store = openStore({ kind, dataDir, collections });
else throw new Error(`crash-writer: unknown store kind ${String(kind)}`);
for (let n = 1; ; n++) {
  await store.insert(
    'things',
    { merchantId: 'm-a', mode: 'test' },
    { id: String(n), external_id: `ext-${n}`, state: 'open' },
  );
  process.stdout.write(`${n}\n`);
}
