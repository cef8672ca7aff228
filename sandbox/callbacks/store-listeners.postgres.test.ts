// Listeners kept in PostgreSQL, two sandboxes' own connections to one database (the cases every store runs:
// testing/listener-cases.ts): what several sandboxes on one database do when a listener polls one of them.
import { afterEach } from 'vitest';
import type { Store } from '../store/store.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { openTestStore } from '../store/postgres/testing/test-schemas.js';
import { storeListenerCases, storeListenersCollections } from './testing/listener-cases.js';

const { server } = useThrowawayPostgres();
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
let run = 0;

storeListenerCases('PostgreSQL', async () => {
  const dataDir = `listeners_${++run}`;
  const first = await openTestStore(server().url, dataDir, storeListenersCollections);
  const second = await openTestStore(server().url, dataDir, storeListenersCollections);
  opened.push(first, second);
  return [first, second];
});
