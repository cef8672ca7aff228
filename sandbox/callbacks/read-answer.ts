// Reads a receiver's answer only as far as a bound, then lets the connection go. Its content does not matter
// (any 2xx acknowledges), but an unread body would hold the connection; read whole, an endless answer grew
// the sandbox by hundreds of MiB in one attempt. Cancelling the body closes the connection instead of
// draining it.
import { isObject } from '@payments-contract/contract/model';
import { controlComponentSchema } from '../contract.js';

/** How much of an answer's body is read: the control contract's bound on an attempt's `answer_bytes`. */
export const ANSWER_READ_LIMIT: number = (() => {
  const properties = controlComponentSchema('CallbackDeliveryAttempt').properties;
  const answerBytes = isObject(properties) ? properties.answer_bytes : undefined;
  const maximum = isObject(answerBytes) ? answerBytes.maximum : undefined;
  if (typeof maximum !== 'number')
    throw new Error('the control contract gives CallbackDeliveryAttempt.answer_bytes no maximum');
  return maximum;
})();

export interface AnswerRead {
  /** Bytes of the body read: at most the bound. */
  bytes: number;
  /** The body went on past the bound, and the connection was closed there. */
  cut: boolean;
}

/**
 * Reads at most `limit` bytes of `response`'s body. A body that fails midway (the attempt's timeout, a
 * dropped connection) ends the read with what came; the status has arrived and stands.
 */
export async function readAnswer(response: Response, limit: number): Promise<AnswerRead> {
  if (!response.body) return { bytes: 0, cut: false };
  const reader = response.body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes, cut: false };
      bytes += value.byteLength;
      if (bytes > limit) {
        await reader.cancel().catch(() => undefined);
        return { bytes: limit, cut: true };
      }
    }
  } catch {
    return { bytes, cut: false };
  } finally {
    reader.releaseLock();
  }
}
