// The conformance suite's machinery pointed at a started sandbox with one of the test keys: its derived
// provisioning (what a request refers to is created first), its fresh request bodies and its lookups. The
// reliability tests build on them instead of listing operations or request bodies of their own.
import {
  type CheckContext,
  type Contract,
  createHttpClient,
  DEFAULT_WORKFLOW_SETTINGS,
  type Finding,
  loadContract,
  responseFindings,
  Scenario,
  UniqueValues,
  type WorkflowEnv,
} from '@payments-contract/conformance/testing';
import { DOCS } from '../server.js';
import { TEST_KEYS, type TestKeyName } from '../testing/index.js';

/** The service's contract and the control API's, read once. */
export const serviceContract: Contract = loadContract();
export const controlContract: Contract = loadContract(DOCS.control.spec);

export interface LiveOptions {
  baseUrl: string;
  key: TestKeyName;
  contract?: Contract;
  /** Where request bodies send their callbacks (a local receiver): no callback leaves the machine. */
  callbackUrl?: string;
  timeoutMs?: number;
}

/** A conformance check context on the live sandbox: every response it sees is judged by check 1 into `findings`. */
export function liveContext(options: LiveOptions): CheckContext & { findings: Finding[] } {
  const contract = options.contract ?? serviceContract;
  const http = createHttpClient({
    baseUrl: options.baseUrl,
    apiKey: TEST_KEYS[options.key],
    timeoutMs: options.timeoutMs ?? 15_000,
  });
  const findings: Finding[] = [];
  return {
    contract,
    http,
    findings,
    options: {
      baseUrl: options.baseUrl,
      apiKey: TEST_KEYS[options.key],
      profile: 'stateful',
      timeoutMs: options.timeoutMs ?? 15_000,
      concurrency: 1,
      strict: false,
      ...(options.callbackUrl
        ? { callbacks: { listen: { host: '127.0.0.1', port: 0 }, publicUrl: options.callbackUrl } }
        : {}),
    },
    observe: (operationId, exchange) => {
      const found = responseFindings(contract, http, contract.operation(operationId), exchange, false);
      findings.push(...found);
      return found;
    },
    selected: () => true,
  };
}

/** A scenario on a live context (the unit the conformance workflows run in) and its environment. */
export function liveScenario(
  context: CheckContext,
  subject: string,
  unique = new UniqueValues(context.contract),
): { scenario: Scenario; env: WorkflowEnv } {
  return { scenario: new Scenario(context, subject, []), env: { unique, settings: DEFAULT_WORKFLOW_SETTINGS } };
}

/** The findings of a scenario as lines for a failing test's message. */
export const findingLines = (findings: readonly Finding[]): string[] =>
  findings.map((finding) => `${finding.message}${finding.curl ? `\n    ${finding.curl}` : ''}`);
