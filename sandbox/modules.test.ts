// A product is added by writing its module and naming it once, in the list of products. Here a throwaway
// product of one operation takes the e-wallets' place in the list given to the app, and everything it
// declares works without being named anywhere else: its collection is opened, its operation answers, the work
// it schedules runs when its time comes, and the control API's resource list shows its records. The list the
// sandbox ships is checked by the compiler: one without a module for an operation or a resource kind, or with
// two, does not compile (the `@ts-expect-error` lines below fail `tsc` the day that stops being true).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import type { components } from '@payments-contract/server/types';
import { createSandboxApp, type CoreControlOperation, type SandboxApp } from './app.js';
import { defaultConfig } from './config.js';
import type { JsonRecord, Scope } from './context.js';
import { composeModules, products, sandboxModule, type ServiceHandlers } from './module.js';
import { PRODUCTS } from './modules.js';
import { resourceKind } from './platform/resources.js';

const KEY = 'sk_test_modules_0000000000000000';
const MERCHANT = {
  id: 'merchant-modules',
  ownerId: '5ed75086a883856178afc12e',
  keys: { test: KEY, live: 'sk_live_modules_0000000000000000' },
  callbackTokens: { test: 'cbt_test_modules', live: 'cbt_live_modules' },
};
const SCOPE: Scope = { merchantId: MERCHANT.id, mode: 'test' };
const DELAY_MS = 3000;

type Payment = components['schemas']['EwalletPaymentStatus'] & JsonRecord & { id: string };
const PAYMENTS = 'throwaway_payments';
const SETTLES = 'throwaway_settles';

/** The throwaway product: one operation, one collection, one kind of scheduled work, one resource view. */
const throwaway = sandboxModule({
  name: 'throwaway',
  collections: [{ name: PAYMENTS }],
  service: (ctx): Pick<ServiceHandlers, 'createEwalletPayment'> => ({
    createEwalletPayment: async ({ body }, { principal }) => {
      const created = ctx.clock.now(principal).toISOString();
      const { external_id, amount, phone, ewallet_type } = body;
      const payment: Payment = {
        id: ctx.ids.next(),
        business_id: principal.ownerId,
        external_id,
        amount,
        ewallet_type,
        status: 'PENDING',
        transaction_date: created,
      };
      await ctx.store.transaction(async (tx) => {
        await tx.insert(PAYMENTS, principal, payment);
        await ctx.autoResolve.schedule(tx, principal, SETTLES, payment.id);
      });
      return {
        status: 200,
        body: { business_id: principal.ownerId, external_id, amount, phone, ewallet_type, status: 'PENDING', created },
      };
    },
  }),
  autoResolve: (ctx) => ({
    [SETTLES]: (scope, id, ran) =>
      ctx.store.transaction(async (tx) => {
        await ran(tx);
        const payment = await tx.get<Payment>(PAYMENTS, scope, id);
        if (payment) await tx.update(PAYMENTS, scope, { ...payment, status: 'COMPLETED' });
      }),
  }),
  views: {
    ewallet_payments: resourceKind<Payment>(PAYMENTS, 'ewalletPayment', (payment) => ({
      resource: payment,
      state: payment.status,
    })),
  },
});

const request = (app: SandboxApp, method: string, path: string, body?: unknown): Promise<Response> => {
  const handler = path.startsWith('/sandbox') ? app.control : app.service;
  return handler(
    new Request(`http://sandbox.test${path}`, {
      method,
      headers: {
        authorization: basicAuthorization({ username: KEY, password: '' }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
};

let app: SandboxApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('a new product', () => {
  it('works from its module and one place in the list of products', async () => {
    const errors: unknown[] = [];
    app = await createSandboxApp(
      defaultConfig({
        dataDir: ':memory:',
        merchants: [MERCHANT],
        callbackUrl: null,
        validateResponses: true,
        autoProgressDelayMs: DELAY_MS,
      }),
      {
        modules: [...PRODUCTS.filter((product) => product.name !== 'ewallets'), throwaway],
        onError: (error) => errors.push(error),
        onAlert: () => undefined,
      },
    );
    await app.start();

    const created = await request(app, 'POST', '/ewallets', {
      external_id: 'order-1',
      amount: 80001,
      phone: '081234567890',
      ewallet_type: 'OVO',
    });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ external_id: 'order-1', status: 'PENDING' });

    const listed = async () => {
      const answer = await request(app as SandboxApp, 'GET', '/sandbox/resources/ewallet_payments');
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { data: { state: string; resource: { external_id: string } }[] }).data;
    };
    expect(await listed()).toMatchObject([{ state: 'PENDING', resource: { external_id: 'order-1' } }]);

    await app.platform.clock.advance(SCOPE, DELAY_MS);
    expect(await listed()).toMatchObject([{ state: 'COMPLETED', resource: { external_id: 'order-1' } }]);
    expect(errors).toEqual([]);

    // What the list leaves out answers as a failed handler, reported: never the real e-wallets in silence.
    const status = await request(app, 'GET', '/ewallets?external_id=order-1&ewallet_type=OVO');
    expect(status.status).toBe(500);
    expect(String(errors[0])).toMatch(/no module implements getEwalletPaymentStatus/);
  });

  it('is refused at start-up when it declares what another module declares', () => {
    const collection = PRODUCTS.flatMap((product) => product.collections)[0]?.name ?? '';
    expect(() =>
      composeModules([...PRODUCTS, sandboxModule({ name: 'copy', collections: [{ name: collection }] })]),
    ).toThrow(`collection ${collection} is declared twice`);
    expect(() => composeModules([...PRODUCTS, sandboxModule({ name: 'copy', views: throwaway.views })])).toThrow(
      'resource kind view ewallet_payments is declared twice',
    );
    expect(() => composeModules([...PRODUCTS, throwaway, throwaway])).toThrow('module throwaway is declared twice');
  });
});

describe('the list of products', () => {
  const check = products<CoreControlOperation>();
  const [balance, fixedVirtualAccounts, fixedPaymentCodes, disbursements, ewallets, customers, directDebit] = PRODUCTS;

  it('names each operation and resource kind a module of the list implements exactly once', () => {
    expect(ewallets.name).toBe('ewallets');
    const withoutEwallets = [fixedVirtualAccounts, fixedPaymentCodes, disbursements, customers, directDebit] as const;
    expect(check(balance, ...withoutEwallets, ewallets)).toHaveLength(PRODUCTS.length);
    // @ts-expect-error serviceOperationsNotImplemented: "getBalance" | "listVirtualAccountBanks" | ...
    expect(check(...withoutEwallets, ewallets)).toHaveLength(PRODUCTS.length - 1);
    // @ts-expect-error resourceKindsWithoutView: "ewallet_payments", and its service and control operations
    expect(check(balance, ...withoutEwallets)).toHaveLength(PRODUCTS.length - 1);
    // @ts-expect-error serviceOperationsImplementedTwice: "getBalance" | ...
    expect(check(...PRODUCTS, balance)).toHaveLength(PRODUCTS.length + 1);
  });

  it('is the only place outside the product folders that names a product', () => {
    const root = import.meta.dirname;
    const modulesSource = readFileSync(join(root, 'modules.ts'), 'utf8');
    const folders = [...modulesSource.matchAll(/from '\.\/([a-z-]+)\/index\.js'/g)].map((match) => match[1] ?? '');
    expect(folders).toHaveLength(PRODUCTS.length);
    const skipped = new Set(['node_modules', 'dist', 'bench', 'reliability', ...folders]);
    const offenders: string[] = [];
    const visit = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!skipped.has(entry.name)) visit(path);
        } else if (/\.ts$/.test(entry.name) && !/\.test\.ts$|^testing\.ts$/.test(entry.name)) {
          const file = relative(root, path);
          if (file === 'modules.ts' || file.startsWith('testing/')) continue;
          for (const [, target] of readFileSync(path, 'utf8').matchAll(/from '((?:\.\.?\/)+[^']+)'/g))
            if (folders.some((folder) => join(dir, target ?? '').startsWith(join(root, folder) + '/')))
              offenders.push(`${file} imports ${target}`);
        }
      }
    };
    visit(root);
    expect(offenders).toEqual([]);
  });
});
