// The customers module (customers.ts), under the folder's name.
export * from './customers.js';
