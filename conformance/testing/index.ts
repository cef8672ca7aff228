// `@payments-contract/conformance/testing`: what the repository's other packages test with. The suite's
// parts that drive a target and judge its answers (requests built from the contract, the HTTP client,
// scenario steps, resources and their references, the callback receiver), the mock, the benchmarks' median
// and tools to tell that a process and everything it started have stopped. Repository tooling, not a
// published API: its export has only the `source` condition, so it is never built and a published package
// (which drops that condition) does not export it.
export { startReceiver, type CallbackReceiver } from '../callbacks/receiver.js';
export { loadContract, type Contract } from '../contract.js';
export { bodyExamples, buildRequest, isIdempotencyHeader, parameterValue } from '../data/requests.js';
export { responseFindings } from '../expectations.js';
export { createHttpClient, type Exchange, type RequestSpec } from '../http.js';
export { startPrism } from '../mock/prism.js';
export { startMock, type RunningMock } from '../mock/serve.js';
export { mapPool } from '../pool.js';
export type { CheckContext, CheckResult, Finding } from '../types.js';
export { getPath, identifierFields, setPath, UniqueValues } from '../workflows/data.js';
export { firstRequest } from '../workflows/idempotency-cases.js';
export {
  CannotProvide,
  planProvision,
  planReferences,
  withReferences,
  type Provided,
} from '../workflows/provision.js';
export {
  bodyReferences,
  creatorOf,
  identifierField,
  referencedKind,
  resourceKind,
  resourceKinds,
  resourceOperations,
  schemaProperties,
  successStatuses,
  triggersOf,
} from '../workflows/resources.js';
export { refusal, refusalWhat, runScenario, Scenario, ScenarioSkipped } from '../workflows/scenario.js';
export { DEFAULT_WORKFLOW_SETTINGS, freshBody, lookupRequest, type WorkflowEnv } from '../workflows/steps.js';
export { answers } from './answers.js';
export { median } from './median.js';
export { isRunning, killRunning, processTree, type ProcessInfo } from './processes.js';
