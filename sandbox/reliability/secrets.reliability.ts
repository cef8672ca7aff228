// Secrets stay secret, and a callback URL with a user name or password is refused where it is given (decision
// `callback-url-without-credentials`), not accepted and then never delivered to: by the configuration, which
// must say why without printing the password, and by every request body that names a callback URL (read
// from both contracts' examples). A sandbox started with the operator's own keys and token prints none of
// them, at start-up or while it answers requests that carry them.
import { describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { Json } from '@payments-contract/contract/model/types';
import { bodyExamples, buildRequest, type Contract, createHttpClient } from '@payments-contract/conformance/testing';
import { controlContract, serviceContract } from './live-conformance.js';
import { summaryLine } from './scale.js';
import { StartFailed, startSandboxProcess } from './sandbox-process.js';
import { printedSecrets } from './secrets.js';

const PASSWORD = 'pw-reliability-8c1f';
const OPERATOR = {
  SANDBOX_SECRET_KEY: 'sk_test_operator_reliability_4b7d1e',
  SANDBOX_LIVE_SECRET_KEY: 'sk_live_operator_reliability_9a2c6f',
  SANDBOX_CALLBACK_TOKEN: 'cbt_operator_reliability_51e0',
};
const operatorSecrets = Object.entries(OPERATOR).map(([name, value]) => [name, value] as const);

/** Every callback URL in an example body (a string URL under a name with `callback` in its path), as [path, url]. */
function callbackUrls(value: Json, path: string[] = []): [string[], string][] {
  if (typeof value === 'string')
    return /^https?:\/\//.test(value) && path.some((name) => /callback/i.test(name)) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => callbackUrls(item, [...path, String(index)]));
  return isObject(value) ? Object.entries(value).flatMap(([name, child]) => callbackUrls(child, [...path, name])) : [];
}

function setAt(value: Json, path: string[], replacement: Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value))
    return value.map((item, index) => (String(index) === head ? setAt(item, rest, replacement) : item));
  return isObject(value) ? { ...value, [head]: setAt(value[head] ?? null, rest, replacement) } : value;
}

const withCredentials = (url: string): string => url.replace(/^(https?:\/\/)/, `$1merchant:${PASSWORD}@`);

describe('secrets and callback URLs with credentials', () => {
  it('refuses a configured callback URL with a password, without printing it', async () => {
    const refused = await startSandboxProcess({
      dataDir: ':memory:',
      env: { SANDBOX_CALLBACK_URL: withCredentials('http://127.0.0.1:9/callbacks') },
    }).then(
      async (sandbox) => {
        await sandbox.remove();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused, 'the sandbox started with a callback URL carrying a password').toBeInstanceOf(StartFailed);
    const { exitCode, output } = refused as StartFailed;
    console.log(
      summaryLine('configured callback URL with a password', {
        'exit code': String(exitCode),
        'password printed': output.includes(PASSWORD) ? 'yes' : 'no',
      }),
    );
    expect(exitCode).toBe(2);
    expect(output).toMatch(/SANDBOX_CALLBACK_URL|--callback-url/);
    expect(output).not.toContain(PASSWORD);
  });

  it('refuses every callback URL with a password in a request body with the validation error, and prints no secret', async () => {
    const sandbox = await startSandboxProcess({
      env: { ...OPERATOR, SANDBOX_CALLBACK_URL: 'http://127.0.0.1:9/callbacks' },
    });
    try {
      const banner = sandbox.output();
      const wrong: string[] = [];
      let sent = 0;
      const contracts: Contract[] = [serviceContract, controlContract];
      for (const contract of contracts) {
        const http = createHttpClient({ baseUrl: sandbox.url, apiKey: OPERATOR.SANDBOX_SECRET_KEY, timeoutMs: 15_000 });
        for (const operation of contract.model.operations) {
          for (const example of bodyExamples(contract, operation)) {
            for (const [path, url] of callbackUrls(example.value)) {
              const exchange = await http.send(
                buildRequest(contract, operation, { body: setAt(example.value, path, withCredentials(url)) }),
              );
              sent++;
              const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
              const expected = operation.validationError;
              if (!expected || exchange.status !== expected.status || code !== expected.error_code)
                wrong.push(
                  `${operation.operationId} ${example.name} ${path.join('.')}: ${exchange.status} ${exchange.bodyText.slice(0, 160)}`,
                );
            }
          }
        }
      }
      await sandbox.stop();
      const printed = printedSecrets(sandbox.output(), [...operatorSecrets, ['callback URL password', PASSWORD]]);
      console.log(
        summaryLine('callback URLs with a password in request bodies', {
          sent,
          'not refused as documented': wrong.length,
          'secrets printed': printed.length,
          'secrets in the banner': printedSecrets(banner, operatorSecrets).length,
        }),
      );
      for (const line of wrong) console.log(`  ${line}`);
      expect(sent, 'request bodies naming a callback URL').toBeGreaterThan(0);
      expect(wrong).toEqual([]);
      expect(printed).toEqual([]);
    } finally {
      await sandbox.remove();
    }
  });
});
