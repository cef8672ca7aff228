// The claim on due jobs (Store.claim) for a store only one process opens (the journal and SQLite stores hold
// their data directory's lock). Holds live in this process's memory, not in the records: a claim costs no
// write, and after a restart nothing is held, so the new process resumes every due job at once. A hold ends
// when it lapses or when its job changes (rescheduled: another `run_at_ms`) or goes (done: deleted).
import { JOBS_COLLECTION, type ClaimRequest, type JobRecord, type Scope, type Store } from './store.js';
import { scopedKey, scopeKey } from './scope-key.js';

type Reads = Pick<Store, 'get' | 'findBy' | 'findAcrossScopes'>;

interface Hold {
  holder: string;
  untilMs: number;
  /** The job's `run_at_ms` when it was taken: a job written since is a new piece of work. */
  runAtMs: number;
}

export function createLocalClaims(reads: Reads): Store['claim'] {
  const holds = new Map<string, Hold>();

  const heldElsewhere = (key: string, job: JobRecord, holder: string, nowMs: number): boolean => {
    const hold = holds.get(key);
    if (!hold) return false;
    if (hold.untilMs <= nowMs || hold.runAtMs !== job.run_at_ms) {
      holds.delete(key);
      return false;
    }
    return hold.holder !== holder;
  };

  return async ({ holder, nowMs, leaseMs, which }: ClaimRequest) => {
    // Held jobs are left out before any limit counts, as PostgreSQL's WHERE leaves them out. No helper made per
    // claim: under tsx every function bound to a name is named at run time (a defineProperty per claim).
    let found: { scope: Scope; job: JobRecord }[];
    if (which.due === 'named') {
      found = [];
      for (const { scope, id } of which.jobs) {
        const job = await reads.get<JobRecord>(JOBS_COLLECTION, scope, id);
        if (job && job.run_at_ms <= nowMs && !heldElsewhere(scopedKey(scope, job.id), job, holder, nowMs))
          found.push({ scope, job });
      }
    } else if (which.due === 'scope') {
      found = (await reads.findBy<JobRecord>(JOBS_COLLECTION, which.scope, 'state', 'pending', { order: 'oldest' }))
        .filter(
          (job) => job.due_ms <= which.dueByMs && !heldElsewhere(scopedKey(which.scope, job.id), job, holder, nowMs),
        )
        .sort((a, b) => a.due_ms - b.due_ms)
        .slice(0, which.limit)
        .map((job) => ({ scope: which.scope, job }));
    } else {
      const perScope = new Map<string, { scope: Scope; job: JobRecord }[]>();
      for (const entry of await reads.findAcrossScopes<JobRecord>(JOBS_COLLECTION, 'state', 'pending')) {
        if (
          entry.record.run_at_ms > nowMs ||
          heldElsewhere(scopedKey(entry.scope, entry.record.id), entry.record, holder, nowMs)
        )
          continue;
        const key = scopeKey(entry.scope);
        const list = perScope.get(key) ?? [];
        if (list.length === 0) {
          if (perScope.size >= which.scopes) continue;
          perScope.set(key, list);
        }
        list.push({ scope: entry.scope, job: entry.record });
      }
      found = [...perScope.values()].flatMap((list) =>
        list.sort((a, b) => a.job.run_at_ms - b.job.run_at_ms).slice(0, which.perScope),
      );
      // Holds of jobs no longer pending would otherwise stay until they lapse.
      for (const [key, hold] of holds) if (hold.untilMs <= nowMs) holds.delete(key);
    }
    const claimed: { scope: Scope; job: JobRecord }[] = [];
    for (const { scope, job } of found) {
      const key = scopedKey(scope, job.id);
      const started: JobRecord = {
        ...job,
        run_at_ms: Math.min(job.run_at_ms, nowMs),
        locked_by: holder,
        locked_until_ms: nowMs + leaseMs,
      };
      holds.set(key, { holder, untilMs: nowMs + leaseMs, runAtMs: job.run_at_ms });
      claimed.push({ scope, job: started });
    }
    return claimed;
  };
}
