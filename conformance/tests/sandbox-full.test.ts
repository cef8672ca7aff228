// The full profile against the sandbox as `npm start` runs it: disbursements and direct debits finish by
// themselves (the default), and the suite holds what a case needs to wait for a simulation (x-resolves).
import { describeFullProfile } from './full-profile.js';

describeFullProfile('the full conformance profile against the sandbox', { autoProgress: true });
