// Every check the suite has, in the order they run.
import type { Check } from '../types.js';
import { auth } from './auth.js';
import { balanceRulesCheck } from './balance-rules.js';
import { boundaries } from './boundaries.js';
import { callbackDeliveries } from './callback-deliveries.js';
import { callbacks } from './callbacks.js';
import { forbiddenTransitions } from './forbidden-transitions.js';
import { idempotency } from './idempotency.js';
import { idempotencyScope } from './idempotency-scope.js';
import { isolation } from './isolation.js';
import { lookups } from './lookups.js';
import { money } from './money.js';
import { negativeData } from './negative-data.js';
import { positiveData } from './positive-data.js';
import { rateLimit } from './rate-limit.js';
import { statefulWorkflows } from './stateful-workflows.js';
import { timestamps } from './timestamps.js';
import { transitions } from './transitions.js';
import { uniqueness } from './uniqueness.js';

/**
 * Check 1 (response_conformance) has no entry: it judges every response the others receive. callback_deliveries
 * comes last: it judges every callback of the whole run.
 */
export const ALL_CHECKS: Check[] = [
  positiveData,
  auth,
  negativeData,
  statefulWorkflows,
  transitions,
  forbiddenTransitions,
  uniqueness,
  boundaries,
  money,
  balanceRulesCheck,
  isolation,
  idempotency,
  idempotencyScope,
  timestamps,
  lookups,
  callbacks,
  rateLimit,
  callbackDeliveries,
];
