// The suite reads the target's time before a run: a sandbox's clock where its control API offers one (which
// earlier runs may have moved ahead of real time), else the Date header of any answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSandboxApp,
  createSite,
  defaultConfig,
  listen,
  type Listening,
  type SandboxApp,
} from '@payments-contract/sandbox/testing';
import { loadContract } from './contract.js';
import { createHttpClient } from './http.js';
import { createTargetClock, syncTargetClock } from './target-clock.js';
import { startTarget, type Target } from './tests/target.js';

const DAY = 24 * 60 * 60 * 1000;

describe('createTargetClock', () => {
  it('follows this machine’s clock until a time is read, then keeps the difference the reading showed', () => {
    let local = Date.UTC(2030, 0, 1);
    const clock = createTargetClock(() => local);
    expect(clock.now()).toBe(local);
    expect(clock.source()).toMatch(/this machine/);
    clock.observe(local + 10 * DAY, 'a test');
    local += 1000;
    expect([clock.now(), clock.source()]).toEqual([local + 10 * DAY, 'a test']);
  });
});

describe('syncTargetClock', () => {
  let target: Target;
  let sandbox: SandboxApp;
  let served: Listening;
  const key = defaultConfig({ dataDir: ':memory:' }).merchants[0]?.keys.test ?? '';

  beforeAll(async () => {
    target = await startTarget(loadContract(), 'sk_test_clock');
    sandbox = await createSandboxApp(defaultConfig({ dataDir: ':memory:', host: '127.0.0.1', port: 0 }));
    await sandbox.start();
    served = await listen(
      createSite({ service: sandbox.service, control: sandbox.control, observer: sandbox.observer }),
      { host: '127.0.0.1', port: 0 },
    );
  });
  afterAll(async () => {
    await target?.close();
    await served?.close();
    await sandbox?.close();
  });

  it('reads a target without a control API from the Date header of its answer', async () => {
    const clock = createTargetClock(() => Date.now() - 365 * DAY);
    await syncTargetClock(clock, createHttpClient({ baseUrl: target.url, apiKey: 'sk_test_clock', timeoutMs: 5_000 }));
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(5_000);
    expect(clock.source()).toMatch(/Date header/);
  });

  it('reads a sandbox from the clock of the key’s merchant, moved ahead of real time', async () => {
    const http = createHttpClient({ baseUrl: served.url, apiKey: key, timeoutMs: 5_000 });
    expect(
      (
        await http.send({
          method: 'POST',
          path: '/sandbox/clock/advance',
          body: { contentType: 'application/json', text: JSON.stringify({ milliseconds: 40 * DAY }) },
        })
      ).status,
    ).toBe(200);
    const clock = createTargetClock();
    await syncTargetClock(clock, http);
    expect(Math.abs(clock.now() - (Date.now() + 40 * DAY))).toBeLessThan(5_000);
    expect(clock.source()).toMatch(/sandbox control API/);
  });
});
