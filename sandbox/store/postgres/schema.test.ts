// PostgreSQL's schema pinned: the tables, indexes and function the store makes for every collection the
// sandbox has (the platform's and every product module's), dumped by pg_dump --schema-only from a throwaway
// server and compared, normalised, with schema.expected.sql. A change to the schema (a collection, an indexed
// field, a migration) shows here as a diff to review; once it is meant, rewrite the file with
//   UPDATE_SCHEMA_DUMP=1 npx vitest run --config .ci/vitest.config.ts sandbox/store/postgres/schema.test.ts
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { composeModules } from '../../module.js';
import { PRODUCTS } from '../../modules.js';
import { collections as platformCollections } from '../../platform/index.js';
import { useThrowawayPostgres } from './testing/test-database.js';
import { openTestStore, schemaFor } from './testing/test-schemas.js';

const PG_DUMP = '/usr/lib/postgresql/15/bin/pg_dump';
const EXPECTED = new URL('./schema.expected.sql', import.meta.url);
/** The schema's name in the expected file: each test run makes its own. */
const SCHEMA = 'sandbox';

const { server } = useThrowawayPostgres();

/**
 * The dump without what says nothing of the schema: comments, blank lines, session settings, pg_dump's
 * \restrict guard lines, the name of the test's schema.
 */
export function normaliseDump(dump: string, schema: string): string {
  return `${dump
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('--') && !line.startsWith('SET '))
    .filter((line) => !line.startsWith('SELECT pg_catalog.set_config') && !/^\\(un)?restrict\b/.test(line))
    .join('\n')
    .replaceAll(`"${schema}"`, SCHEMA)
    .replaceAll(schema, SCHEMA)}\n`;
}

describe("PostgreSQL's schema", () => {
  it('is what schema.expected.sql says, for every collection of the sandbox', async () => {
    const dataDir = 'schema-dump';
    const collections = [...platformCollections, ...composeModules(PRODUCTS).collections];
    const store = await openTestStore(server().url, dataDir, collections);
    await store.close();
    const { stdout } = await promisify(execFile)(PG_DUMP, [
      '--schema-only',
      '--no-owner',
      '--no-privileges',
      `--schema=${schemaFor(dataDir)}`,
      `--dbname=${server().url}`,
    ]);
    const dump = normaliseDump(stdout, schemaFor(dataDir));
    if (process.env.UPDATE_SCHEMA_DUMP === '1') writeFileSync(EXPECTED, dump);
    expect(dump).toBe(readFileSync(EXPECTED, 'utf8'));
  }, 60_000);

  it('normalises away what differs between runs and versions, and nothing else', () => {
    const dump = [
      '--',
      '-- PostgreSQL database dump',
      '\\restrict abc123',
      'SET statement_timeout = 0;',
      "SELECT pg_catalog.set_config('search_path', '', false);",
      '',
      'CREATE TABLE t_x.records_a (id text NOT NULL);',
      '\\unrestrict abc123',
    ].join('\n');
    expect(normaliseDump(dump, 't_x')).toBe('CREATE TABLE sandbox.records_a (id text NOT NULL);\n');
  });
});
