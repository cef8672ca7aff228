// Every check the suite has, in the order they run.
import type { Check } from '../types.js';
import { auth } from './auth.js';
import { boundaries } from './boundaries.js';
import { callbacks } from './callbacks.js';
import { idempotency } from './idempotency.js';
import { isolation } from './isolation.js';
import { money } from './money.js';
import { negativeData } from './negative-data.js';
import { positiveData } from './positive-data.js';
import { rateLimit } from './rate-limit.js';
import { statefulWorkflows } from './stateful-workflows.js';
import { transitions } from './transitions.js';
import { uniqueness } from './uniqueness.js';

/** Check 1 (response_conformance) has no entry: it judges every response the others receive. */
export const ALL_CHECKS: Check[] = [positiveData, auth, negativeData, statefulWorkflows, transitions, uniqueness, boundaries, money, isolation, idempotency, callbacks, rateLimit];
