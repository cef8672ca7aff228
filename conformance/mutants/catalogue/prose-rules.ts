// Mutants of rules the contract states in its decisions rather than in a schema, now carried as data that a
// check reads: here a header the contract documents as never sent (decision no-browser-access), which check 1
// fails when an answer carries it.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'cors-open-to-every-origin',
    family: 'response_conformance',
    caught: { result: 'positive_data:getBalance' },
    class: 'prose-rules',
    mistake:
      "every answer carries Access-Control-Allow-Origin: *, added so that a web dashboard can call the API, which lets any web page read answers made with a merchant's secret key",
    edits: [
      {
        file: 'security-headers.ts',
        within: 'API_SECURITY_HEADERS',
        find: "'referrer-policy': 'no-referrer',",
        replace: "'referrer-policy': 'no-referrer',\n  'access-control-allow-origin': '*',",
      },
    ],
  },
];
