// The docs page's code samples are written from the contract's examples and hold as written: every operation
// has a curl and a TypeScript sample, the TypeScript compiles (strict) against the generated client, and each
// curl command, run as it stands against the sandbox (only the server's address swapped for the sandbox's),
// is answered with a status and error code the operation documents: success, or the operation's not-found
// code where the example names an object (an id, a customer, a payment method) a fresh sandbox does not have.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModel } from '@payments-contract/model';
import type { JsonObject, OperationModel } from '@payments-contract/model/types';
import { openapiPath } from '@payments-contract/contract';
import { DEFAULT_TEST_SECRET_KEY, startSandboxProcess } from '@payments-contract/sandbox/testing';
import { codeSamples, KEY_VARIABLE, sampleBaseUrl, tsLiteral, withCodeSamples, type CodeSample } from './samples.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const doc = JSON.parse(readFileSync(openapiPath, 'utf8')) as JsonObject;
const model = readModel(doc);
const samples = codeSamples(doc);
const sampleOf = (operationId: string, lang: CodeSample['lang']): string =>
  samples.get(operationId)?.find((sample) => sample.lang === lang)?.source ?? '';

describe('code samples', () => {
  it('every operation has a curl and a TypeScript client sample, in the page as x-codeSamples', () => {
    expect(model.operations).toHaveLength(27);
    for (const operation of model.operations)
      expect(samples.get(operation.operationId)?.map((sample) => sample.label)).toEqual(['curl', 'TypeScript client']);
    const shown = withCodeSamples(doc) as { paths: Record<string, Record<string, { 'x-codeSamples'?: unknown }>> };
    const carried = Object.values(shown.paths).flatMap((item) =>
      Object.values(item).filter((operation) => Array.isArray(operation['x-codeSamples'])),
    );
    expect(carried).toHaveLength(27);
  });

  it("quotes every shell word, so no shell expands or globs a URL's ? or a body's quote", () => {
    const curl = sampleOf('getEwalletPaymentStatus', 'Shell');
    expect(curl).toContain(`curl '${sampleBaseUrl(doc)}/ewallets?external_id=`);
    expect(curl).toContain(`-u "$${KEY_VARIABLE}:"`);
    expect(tsLiteral({ 'a-b': "it's", n: [1, null], c: {} })).toBe(
      `{\n  'a-b': 'it\\'s',\n  n: [\n    1,\n    null,\n  ],\n  c: {},\n}`,
    );
  });

  it("shows the operation's first request example and its idempotency key", () => {
    const typescript = sampleOf('createDisbursement', 'TypeScript');
    expect(typescript).toMatch(/payments\.createDisbursement\(\{\n {2}idempotencyKey: '[^']+',\n {2}body: \{/);
    expect(typescript).toContain("external_id: 'payout-");
    expect(sampleOf('createDisbursement', 'Shell')).toMatch(/-H 'X-IDEMPOTENCY-KEY: [^']+'/);
  });

  it('send no value a rule refuses once its time has passed, so the run below holds at any date', () => {
    const timeBound = model.operations.flatMap((operation) =>
      operation.timeBound
        .filter((field) => field.pastRefused)
        .map((field) => ({ operation, name: field.field.split('.').at(-1) ?? '' })),
    );
    expect(timeBound.length).toBeGreaterThan(0);
    for (const { operation, name } of timeBound)
      expect(sampleOf(operation.operationId, 'Shell')).not.toContain(`"${name}":`);
  });
});

describe('the TypeScript samples', () => {
  // Inside the repository (build/ is ignored), so the client resolves as the workspace's package, its
  // TypeScript sources through the `source` condition: the generated client as it is now.
  const dir = join(repoRoot, 'build', `code-samples-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compile, strict, against the generated client; a sample off the contract does not', async () => {
    mkdirSync(dir, { recursive: true });
    for (const operation of model.operations)
      writeFileSync(join(dir, `${operation.operationId}.ts`), sampleOf(operation.operationId, 'TypeScript'));
    // The control: the disbursement sample with its amount as a string.
    writeFileSync(
      join(dir, 'off-contract.ts'),
      sampleOf('createDisbursement', 'TypeScript').replace(/amount: (\d+)/, "amount: '$1'"),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.json',
        compilerOptions: { noEmit: true, skipLibCheck: true },
        include: ['*.ts'],
        exclude: [],
      }),
    );
    const tsc = join(require.resolve('typescript/package.json'), '../bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', dir], { maxBuffer: 16 * 1024 * 1024 }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    const files = new Set([...result.matchAll(/^(?:.*\/)?([\w-]+)\.ts\(\d+,\d+\): error/gm)].map((match) => match[1]));
    expect([...files]).toEqual(['off-contract']);
  }, 180_000);
});

describe('the curl samples, run against the sandbox', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>>;
  const home = mkdtempSync(join(tmpdir(), 'curl-samples-'));

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    // curl reads its defaults from $CURL_HOME/.curlrc: the status after the body, and no progress meter.
    writeFileSync(join(home, '.curlrc'), 'silent\nwrite-out = "\\n%{http_code}"\n');
  }, 120_000);
  afterAll(async () => {
    await sandbox?.remove();
    rmSync(home, { recursive: true, force: true });
  });

  const answers: { operation: OperationModel; status: number; body: string }[] = [];

  it('are each answered with a documented status and error code', async () => {
    const baseUrl = sampleBaseUrl(doc);
    for (const operation of model.operations) {
      const curl = sampleOf(operation.operationId, 'Shell').replace(
        `'${baseUrl}`,
        `'${sandbox.url.replace(/\/$/, '')}`,
      );
      const { stdout } = await run('bash', ['-c', curl], {
        env: { PATH: process.env.PATH, CURL_HOME: home, [KEY_VARIABLE]: DEFAULT_TEST_SECRET_KEY },
      });
      const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
      answers.push({ operation, status, body: stdout.slice(0, stdout.lastIndexOf('\n')) });
    }
    const undocumented = answers.flatMap(({ operation, status, body }) => {
      const response = operation.responses.find((candidate) => candidate.status === status);
      const code = status >= 400 ? (JSON.parse(body) as { error_code?: string }).error_code : undefined;
      if (!response) return [`${operation.operationId}: ${status} is not documented (${body.slice(0, 200)})`];
      if (code !== undefined && !response.errorCodes.includes(code))
        return [`${operation.operationId}: ${status} ${code} is not documented`];
      return [];
    });
    expect(undocumented).toEqual([]);
  }, 120_000);

  it('pass validation and succeed, unless their example names an object a fresh sandbox does not have', () => {
    const refused = answers
      .filter(({ status, body }) => status >= 300 && !/"error_code":"[A-Z_]*NOT_FOUND[A-Z_]*"/.test(body))
      .map(({ operation, status, body }) => `${operation.operationId}: ${status} ${body.slice(0, 200)}`);
    expect(refused).toEqual([]);
    // For the record of a run: how many answered with success as they stand.
    const succeeded = answers.filter(({ status }) => status >= 200 && status < 300).length;
    console.info(`curl samples: ${answers.length} run, ${succeeded} answered 2xx, the rest a documented NOT_FOUND`);
    expect(succeeded).toBeGreaterThanOrEqual(10);
  });
});
