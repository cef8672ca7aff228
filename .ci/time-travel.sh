#!/usr/bin/env bash
# Runs the suites whose verdict could depend on the date under Debian's faketime, 400 days and 3 years ahead,
# so that an example, fixture or test that holds a date a rule will one day refuse fails CI the day it is
# written rather than the day its date passes. The list is the one place that names them: every test that
# reads the clock or sends the contract's time-bound examples (`npm run test:time-travel`; .ci/run runs it
# after `npm test`).
set -euo pipefail
cd "$(dirname "$0")/.."

suites=(
  # The contract's own time rules and the examples' re-dating.
  generator/model/example-time.test.ts
  spec/tests/example-times.test.ts
  conformance/data/requests.test.ts
  conformance/data/trigger-requests.test.ts
  conformance/target-clock.test.ts
  # The full profile against the sandbox, which compares every expiry with its clock.
  conformance/tests/sandbox-full.test.ts
  conformance/tests/sandbox-checks.test.ts
)

# vitest takes each name as a filter and runs what matches: a file that was moved or deleted would drop out
# of the run without a word. A check that did not run is not a pass.
for suite in "${suites[@]}"; do
  [[ -f "$suite" ]] || { echo "time-travel: $suite does not exist; update the list in $0" >&2; exit 1; }
done

command -v faketime >/dev/null || bash .ci/install-system-deps.sh

for offset in '+400 days' '+3 years'; do
  echo "== $(faketime "$offset" date -u +%FT%TZ) (faketime $offset)"
  faketime "$offset" npx vitest run --config .ci/vitest.config.ts "${suites[@]}"
  # The mutants' baseline: the full profile against the unmutated sandbox, which every mutant is judged by;
  # with it the family of the rules on request data, past expiries among them.
  faketime "$offset" npm run conformance:mutants -- --family negative_data
done
