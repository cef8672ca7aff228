// The PostgreSQL store in vitest: one throwaway server per test file, started before its tests and stopped
// after them (see test-schemas.ts for how tests keep their data apart on it).
import { afterAll, beforeAll } from 'vitest';
import { TEST_DATABASE_URL } from './test-schemas.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway.js';

/** Starts a throwaway server before the file's tests and stops it after them; `server()` is it meanwhile. */
export function useThrowawayPostgres(): { server: () => ThrowawayPostgres } {
  let started: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    started = await startThrowawayPostgres();
    process.env[TEST_DATABASE_URL] = started.url;
  }, 60_000);
  afterAll(async () => {
    delete process.env[TEST_DATABASE_URL];
    await started?.stop();
  }, 60_000);
  return {
    server: () => {
      if (!started) throw new Error('the throwaway PostgreSQL server is not started (use it inside a test)');
      return started;
    },
  };
}
