// The full profile against two sandboxes over one PostgreSQL database (STORE=postgres), behind a round-robin
// front that hands each request to the other sandbox than the one before: what one creates, the other reads,
// updates, simulates and moves the clock of; callbacks go out from whichever sandbox claims each attempt.
import { describe, expect, it } from 'vitest';
import { type InProcessCluster, startInProcessCluster, useThrowawayPostgres } from '@payments-contract/sandbox/testing';
import { describeFullProfile } from './full-profile.js';

const { server } = useThrowawayPostgres();
let cluster: InProcessCluster | undefined;
/** Callback attempts each sandbox made. */
const attempts = [0, 0];

describeFullProfile(
  'the full conformance profile against two sandboxes on one PostgreSQL database, requests alternating between them',
  {
    autoProgress: true,
    timeoutMs: 300_000,
    serve: async (config, appOptions) => {
      cluster = await startInProcessCluster({
        databaseUrl: server().url,
        config,
        appOptions: (index) => ({
          ...appOptions,
          fetch: (input, init) => {
            attempts[index]!++;
            return fetch(input, init);
          },
        }),
      });
      return { url: cluster.url, stop: cluster.stop };
    },
  },
);

describe('the two sandboxes of that run', () => {
  it('both served requests and both made callback attempts', () => {
    console.log(
      `requests per sandbox: ${JSON.stringify(cluster?.front.served)}; callback attempts per sandbox: ${JSON.stringify(attempts)}`,
    );
    expect(
      cluster?.front.served.every((count) => count > 100),
      JSON.stringify(cluster?.front.served),
    ).toBe(true);
    expect(
      attempts.every((count) => count > 0),
      JSON.stringify(attempts),
    ).toBe(true);
  });
});
