// The secrets a started sandbox is given (the test merchants' keys and callback tokens, in SANDBOX_MERCHANTS),
// and which of them its output shows: none may appear, in any form a log line could carry them (as given,
// or inside the Basic credentials a request sent). The default merchant's development keys are public and
// printed by design.
import { TEST_MERCHANTS } from '../testing/index.js';

const secrets: ReadonlyArray<readonly [string, string]> = Object.values(TEST_MERCHANTS).flatMap((merchant) => [
  [`${merchant.id} test key`, merchant.keys.test],
  [`${merchant.id} live key`, merchant.keys.live],
  [`${merchant.id} test callback token`, merchant.callbackTokens.test],
  [`${merchant.id} live callback token`, merchant.callbackTokens.live],
]);

/** The names of the secrets `output` shows, as given or base64-encoded as Basic credentials. */
export function printedSecrets(output: string, more: ReadonlyArray<readonly [string, string]> = []): string[] {
  return [...secrets, ...more]
    .filter(([, secret]) => output.includes(secret) || output.includes(Buffer.from(`${secret}:`).toString('base64')))
    .map(([name]) => name);
}
