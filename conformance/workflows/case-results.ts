// Checks that run many independent cases per operation (transitions, uniqueness) report one result per
// operation: each case runs as its own scenario (a failed or skipped case does not stop the others), and the
// results are folded per subject, every finding and note naming the case it came from.
import type { Phase } from '../callbacks/events.js';
import { mapPool } from '../pool.js';
import type { CheckContext, CheckName, CheckResult } from '../types.js';
import { runScenario, type Scenario } from './scenario.js';

export interface SubjectCase {
  /** The operationId whose behaviour the case judges. */
  subject: string;
  /** What the case does, in a few words; prefixes its findings. */
  label: string;
  steps: readonly string[];
  script: (scenario: Scenario) => Promise<void>;
  /** A change of the target's settings the case needs (holding what test mode would resolve by itself). */
  phase?: Phase;
  /** The case changes what every case of the merchant shares (it moves the clock): it runs last, by itself. */
  alone?: boolean;
}

/** A case the suite cannot run here, and why (reported as a note, or as the skip reason of a subject without others). */
export interface UnavailableCase {
  subject: string;
  label: string;
  reason: string;
}

/** Runs every selected case and folds the results per subject. */
export async function runCases(
  context: CheckContext,
  check: CheckName,
  cases: SubjectCase[],
  unavailable: UnavailableCase[],
): Promise<CheckResult[]> {
  const selected = cases.filter((c) => context.selected(check, c.subject));
  type Ran = { label: string; result: CheckResult };
  /** Runs cases `width` at a time, inside the phase when there is one (entered and left around them), or skipped when it cannot be entered. */
  const runInside = async (phase: Phase | undefined, list: SubjectCase[], width: number): Promise<Ran[]> => {
    const entered = phase ? await phase.enter() : ({ ok: true } as const);
    if (!entered.ok) {
      const reason = `${phase?.label ?? ''}: ${entered.reason}`;
      return list.map((c) => ({
        label: c.label,
        result: { check, subject: c.subject, outcome: 'skipped', cases: 0, findings: [], skippedReason: reason },
      }));
    }
    try {
      return await mapPool(list, width, async (c) => ({
        label: c.label,
        result: await runScenario(context, check, c.subject, c.steps, c.script),
      }));
    } finally {
      await phase?.leave();
    }
  };
  const width = context.options.concurrency;
  const ran = await runInside(
    undefined,
    selected.filter((c) => c.phase === undefined && !c.alone),
    width,
  );
  // A phase changes settings of the whole merchant: its cases run together inside it, after the others.
  for (const phase of new Set(selected.flatMap((c) => (c.phase ? [c.phase] : []))))
    ran.push(
      ...(await runInside(
        phase,
        selected.filter((c) => c.phase === phase && !c.alone),
        width,
      )),
    );
  for (const c of selected.filter((item) => item.alone)) ran.push(...(await runInside(c.phase, [c], 1)));
  const subjects = [
    ...new Set([
      ...selected.map((c) => c.subject),
      ...unavailable.filter((u) => context.selected(check, u.subject)).map((u) => u.subject),
    ]),
  ];
  return subjects.map((subject) => {
    const mine = ran.filter((r) => r.result.subject === subject);
    const notRun = unavailable.filter((u) => u.subject === subject);
    const findings = mine.flatMap(({ label, result }) =>
      result.findings.map((f) => ({ ...f, message: `${label}: ${f.message}` })),
    );
    const notes = [
      ...mine.flatMap(({ label, result }) => [
        ...(result.notes ?? []).map((n) => `${label}: ${n}`),
        ...(result.outcome === 'skipped' ? [`${label}: not run: ${result.skippedReason ?? 'skipped'}`] : []),
      ]),
      ...notRun.map((u) => `${u.label}: not run: ${u.reason}`),
    ];
    const outcome = mine.some((r) => r.result.outcome === 'failed')
      ? 'failed'
      : mine.some((r) => r.result.outcome === 'passed')
        ? 'passed'
        : 'skipped';
    // A subject none of whose cases ran does not apply only if no case of it was left out for want of something.
    const notApplicable =
      outcome === 'skipped' && notRun.length === 0 && mine.every((r) => r.result.notApplicable === true);
    return {
      check,
      subject,
      outcome,
      cases: mine.reduce((sum, r) => sum + r.result.cases, 0),
      findings,
      ...(notes.length > 0 ? { notes } : {}),
      ...(outcome === 'skipped' ? { skippedReason: notes.join('; ') || 'no case could run' } : {}),
      ...(notApplicable ? { notApplicable: true as const } : {}),
    };
  });
}
