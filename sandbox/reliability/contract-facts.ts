// What the contract's decisions say about requests no operation lists: the answers given before an
// operation is reached (decision `router-level-errors`) and the limits of a JSON body (decision
// `json-body-limits`). Read from the decisions' text, so the suite restates neither.
import { isObject } from '@payments-contract/contract/model';
import { type Contract } from '@payments-contract/conformance/testing';

function decisionText(contract: Contract, id: string): string | undefined {
  const decisions = contract.doc['x-decisions'];
  const decision = Array.isArray(decisions) ? decisions.find((d) => isObject(d) && d.id === id) : undefined;
  return isObject(decision) && typeof decision.decision === 'string' ? decision.decision : undefined;
}

/** Status → code of every answer the decision `router-level-errors` of any of `contracts` names ("404 `NOT_FOUND`"). */
export function routerLevelAnswers(contracts: readonly Contract[]): Map<number, string> {
  const answers = new Map<number, string>();
  for (const contract of contracts) {
    for (const match of (decisionText(contract, 'router-level-errors') ?? '').matchAll(/(\d{3}) `([A-Z_]+)`/g))
      answers.set(Number(match[1]), match[2]!);
  }
  if (answers.size === 0)
    throw new Error('no contract has a decision router-level-errors naming its statuses and codes');
  return answers;
}

/** The deepest nesting a JSON body may have, the body itself being level 1 (decision `json-body-limits` of any of `contracts`). */
export function maxJsonDepth(contracts: readonly Contract[]): number {
  const depth = contracts
    .map((contract) => /at most (\d+) levels deep/.exec(decisionText(contract, 'json-body-limits') ?? '')?.[1])
    .find((found) => found !== undefined);
  if (depth === undefined) throw new Error('no contract has a decision json-body-limits naming the deepest nesting');
  return Number(depth);
}

/**
 * The answers to a request naming a host the sandbox does not answer to, and to an HTTP/1.1 request naming
 * none (decision `sandbox-host-names` of any of `contracts`).
 */
export function hostRefusals(contracts: readonly Contract[]): {
  foreign: { status: number; code: string };
  missing: { status: number; code: string };
} {
  const text =
    contracts.map((contract) => decisionText(contract, 'sandbox-host-names')).find((found) => found !== undefined) ??
    '';
  const foreign = /another host is answered (\d{3}) `([A-Z_]+)`/.exec(text);
  const missing = /without\s+`Host`, (\d{3}) `([A-Z_]+)`/.exec(text);
  if (!foreign || !missing)
    throw new Error(
      'no contract has a decision sandbox-host-names naming the status and code of a foreign and a missing Host',
    );
  return {
    foreign: { status: Number(foreign[1]), code: foreign[2]! },
    missing: { status: Number(missing[1]), code: missing[2]! },
  };
}
