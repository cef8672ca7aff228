// The workflows check 5 runs, each a subject in the results. A workflow names the state machine (or,
// without one, the resource) it exercises; everything else it derives from the contract.
import type { Contract } from '../contract.js';
import { chainWorkflow } from './chain.js';
import { uniqueResourceWorkflow } from './customer.js';
import { lifecycleWorkflow } from './lifecycle.js';
import { recordWorkflow } from './records.js';
import type { Workflow } from './steps.js';
import { testModeWorkflows } from './test-mode.js';
import { unknownIdWorkflows } from './unknown-ids.js';

export function workflows(contract: Contract): Workflow[] {
  return [
    lifecycleWorkflow('fixed-virtual-account', 'fixedVirtualAccount'),
    lifecycleWorkflow('fixed-payment-code', 'fixedPaymentCode'),
    recordWorkflow('disbursement', 'disbursement'),
    recordWorkflow('ewallet-payment', 'ewalletPayment'),
    ...testModeWorkflows(contract, 'ewallet-test-mode', 'ewalletPayment'),
    uniqueResourceWorkflow('customer', 'Customer'),
    chainWorkflow('direct-debit', 'directDebitPayment'),
    ...unknownIdWorkflows(contract, 'unknown-id'),
  ];
}
