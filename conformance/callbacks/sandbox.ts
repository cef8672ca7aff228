// Whether the target offers the sandbox control API, which simulates what the contract cannot cause
// through its own operations (a payer's transfer, the bank's answer). Its own contract (spec/sandbox.yaml)
// is the next issue; until the suite reads it, a target that offers the API is recognised but its
// simulations are not driven, and the callbacks only they can cause are reported as skipped.
import type { HttpClient } from '../http.js';

export const SANDBOX_PROBE_PATH = '/sandbox';

export interface SandboxStatus {
  offered: boolean;
  /** Why simulations cannot be used (when they cannot). */
  reason?: string;
}

export async function probeSandbox(http: HttpClient): Promise<SandboxStatus> {
  const exchange = await http.send({ method: 'GET', path: SANDBOX_PROBE_PATH });
  const answer = exchange.failure && exchange.failure.kind !== 'not_json' ? exchange.failure.message : `answered ${exchange.status}`;
  if (exchange.status < 200 || exchange.status >= 300 || exchange.json === undefined) {
    return { offered: false, reason: `target offers no sandbox control API (GET ${SANDBOX_PROBE_PATH} ${answer})` };
  }
  return { offered: true, reason: 'the target offers a sandbox control API, but this version of the suite does not drive its simulations yet' };
}
