// Test helper for sqlite-store.test.ts: writes records one by one into the store in DATA_DIR (argv[2])
// and prints the number of each write after it is acknowledged, until it is killed.
import { openSqliteStore } from '../sqlite-store.js';

const store = openSqliteStore({ dataDir: process.argv[2] ?? '', collections: [{ name: 'things', unique: ['external_id'], indexed: ['state'] }] });
for (let n = 1; ; n++) {
  await store.insert('things', { merchantId: 'm-a', mode: 'test' }, { id: String(n), external_id: `ext-${n}`, state: 'open' });
  process.stdout.write(`${n}\n`);
}
