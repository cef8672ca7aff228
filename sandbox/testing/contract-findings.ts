// What the conformance suite finds wrong with one answer of the sandbox, judged as an answer of `operationId`:
// its status documented, its body valid for that status, its error code documented, the headers the
// contract declares (required ones present, numeric ones numbers). For answers the router's own response
// validation never sees: those given in front of the operations (a rate limit's 429, a simulated fault).
import {
  createHttpClient,
  type Exchange,
  loadContract,
  responseFindings,
} from '@payments-contract/conformance/testing';
import type { RawAnswer } from './index.js';

const contract = loadContract();
const reporter = createHttpClient({ baseUrl: 'http://sandbox.test', apiKey: 'unused', timeoutMs: 1000 });

export function contractFindings(operationId: string, answer: RawAnswer): string[] {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  const operation = contract.operation(operationId);
  const exchange: Exchange = {
    request: {
      method: operation.method.toUpperCase(),
      url: `http://sandbox.test${operation.path}`,
      headers: {},
      auth: 'valid',
    },
    status: answer.status,
    headers,
    bodyText: JSON.stringify(answer.body),
    json: answer.body,
    durationMs: 0,
  };
  return responseFindings(contract, reporter, operation, exchange, false).map((finding) => finding.message);
}
