// A client team's program, as generator/packed.test.ts installs it beside the packed client (with the
// README's example, readme-client-example.ts, copied next to it) and type-checks it under moduleResolution
// node16 and bundler, then runs it against the mock whose URL is its argument.
import type { CreateDisbursementResult } from '@payments-contract/client';
import { payOut } from './readme-client-example.js';

/** The README's narrowing, checked from outside: if the installed types lost it, `error_code` would be a string and this would compile. */
export function refusalOf(result: CreateDisbursementResult): string | undefined {
  if (result.ok || result.status !== 400) return undefined;
  switch (result.error.error_code) {
    case 'DUPLICATE_TRANSACTION_ERROR':
      return 'already sent';
    // @ts-expect-error: createDisbursement documents no such code for 400, so the installed types refuse it.
    case 'INVALID_API_KEY':
      return 'never';
    default:
      return result.error.error_code;
  }
}

const [baseUrl = ''] = process.argv.slice(2);
const config = { baseUrl, secretKey: 'sk_test_packed_consumer' };
console.log(await payOut(config, 'order-1'));
// `Prefer: code=400` makes the mock answer with the contract's first 400 example, a validation error: the
// README's switch has no case for it and throws.
const preferRefusal = (request: Request): Promise<Response> => {
  request.headers.set('prefer', 'code=400');
  return fetch(request);
};
console.log(
  await payOut({ ...config, fetch: preferRefusal }, 'order-2').catch((error: unknown) =>
    error instanceof Error ? error.message : String(error),
  ),
);
