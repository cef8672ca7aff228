// The contract change check: every rule family over two bundled contracts, findings worst first.
import type { JsonObject } from '@payments-contract/model/types';
import { isObject } from './json.js';
import { compareDecisions, compareRootExtensions } from './rules/decisions.js';
import { compareErrorAnswers } from './rules/error-answers.js';
import { compareOperations } from './rules/operations.js';
import { compareParameters } from './rules/parameters.js';
import { compareRequestBodies } from './rules/request-bodies.js';
import { compareResponses } from './rules/responses.js';
import { compareSecurity } from './rules/security.js';
import { compareStateMachines } from './rules/state-machines.js';
import { compareTestModes } from './rules/test-mode.js';
import { compareWebhooks } from './rules/webhooks.js';
import { PARTIES, SEVERITIES, type DiffResult, type Finding } from './types.js';

/** Every rule family, in the order reports group them. */
export const RULE_FAMILIES: readonly ((old: JsonObject, neu: JsonObject) => Finding[])[] = [
  compareOperations,
  compareParameters,
  compareRequestBodies,
  compareResponses,
  compareSecurity,
  compareWebhooks,
  compareErrorAnswers,
  compareStateMachines,
  compareTestModes,
  compareDecisions,
  compareRootExtensions,
];

const titleOf = (doc: JsonObject): { title: string; version: string } => {
  const info = isObject(doc.info) ? doc.info : {};
  return { title: String(info.title ?? ''), version: String(info.version ?? '') };
};

/** Compares two bundled contracts; the same inputs give the same findings in the same order. */
export function diffContracts(old: JsonObject, neu: JsonObject): DiffResult {
  const found = RULE_FAMILIES.flatMap((rule) => rule(old, neu));
  const seen = new Set<string>();
  const unique = found.filter((finding) => {
    const key = `${finding.rule}|${finding.party}|${finding.old}|${finding.new}|${finding.change}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // Stable sort: worst first, then by party, keeping each family's own order within.
  unique.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      PARTIES.indexOf(a.party) - PARTIES.indexOf(b.party),
  );
  return { old: titleOf(old), new: titleOf(neu), findings: unique };
}
