// The full profile against the sandbox started with SANDBOX_AUTO_PROGRESS=false: nothing finishes by itself
// unless the suite turns a merchant's setting on to watch it happen (x-test-modes), and the simulations
// decide everything else.
import { describeFullProfile } from './full-profile.js';

describeFullProfile('the full conformance profile against the sandbox with automatic progression off', {
  autoProgress: false,
});
