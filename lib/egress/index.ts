export * from './policy.js';
export { canonicalAddress } from './address.js';
