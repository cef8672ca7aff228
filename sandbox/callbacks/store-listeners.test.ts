// Listeners kept in the store, two sandboxes over one embedded store in this process (the cases every store
// runs: testing/listener-cases.ts).
import { afterEach } from 'vitest';
import { storeListenerCases, storeListenersCollections } from './testing/listener-cases.js';
import { testStores } from './testing.js';

const stores = testStores(storeListenersCollections);
afterEach(() => stores.closeAll());

storeListenerCases('journal', async () => {
  const store = stores.open();
  return [store, store];
});
