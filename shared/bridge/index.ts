// Public surface of the bridge contract.
export * from './contract';
export type * from './types';
