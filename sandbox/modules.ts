// The sandbox's products: each folder's module, named once here. The app opens the store with their
// collections, routes to their handlers, runs their scheduled work and lists their resources from this list
// alone; `products` makes a list that leaves an operation or a resource kind without a module, or gives one
// two, a compile error that names it.
import type { CoreControlOperation } from './app.js';
import { product as balance } from './balance/index.js';
import { product as customers } from './customers/index.js';
import { product as directDebit } from './direct-debit/index.js';
import { product as disbursements } from './disbursements/index.js';
import { product as ewallets } from './ewallets/index.js';
import { product as fixedPaymentCodes } from './fixed-payment-codes/index.js';
import { product as fixedVirtualAccounts } from './fixed-virtual-accounts/index.js';
import { products } from './module.js';

export const PRODUCTS = products<CoreControlOperation>()(
  balance,
  fixedVirtualAccounts,
  fixedPaymentCodes,
  disbursements,
  ewallets,
  customers,
  directDebit,
);
