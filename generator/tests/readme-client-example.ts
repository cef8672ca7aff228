// The client team's first ten lines, as the README shows them (compiled by tsc, run by
// generator/emit/client.test.ts): create a client with its defaults changed, send money with an idempotency
// key and a deadline of its own, and handle the contract's refusals with a switch the compiler checks
// against the codes the contract documents.
import { createPaymentsClient, type AttemptReport, type PaymentsClientOptions } from '@payments-contract/client';

export const attempts: AttemptReport[] = []; // every attempt, for logs and metrics

export async function payOut(config: PaymentsClientOptions, orderId: string): Promise<string> {
  // Defaults: 5 attempts with backoff (429 and 503 after Retry-After), 30 s per attempt, 120 s per call, a key
  // made per call when none is given, a lost answer recovered by external_id. `retries: false` sends once.
  const payments = createPaymentsClient({ retries: { maxAttempts: 3 }, attemptTimeoutMs: 10_000, ...config });
  const result = await payments.createDisbursement(
    {
      idempotencyKey: orderId, // sent on every attempt: a retry cannot pay twice
      body: {
        external_id: orderId,
        bank_code: 'BCA',
        account_holder_name: 'Budi Santoso',
        account_number: '1234567890',
        description: 'Refund',
        amount: 90000,
      },
    },
    { timeoutMs: 60_000, onAttempt: (attempt) => void attempts.push(attempt) },
  );
  if (result.ok) return `${result.recovered ? 'recovered' : 'sent'} ${result.data.id}`;
  if (result.status === 400) {
    switch (result.error.error_code) {
      case 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR':
        return 'top up the balance first';
      case 'DUPLICATE_TRANSACTION_ERROR':
        return 'already sent';
      default:
        throw new Error(`refused: ${result.error.error_code}`);
    }
  }
  if (result.status === 429) return `slow down: send it again in ${result.headers['Retry-After']} s`;
  throw new Error(`payments answered ${result.status}`);
}
