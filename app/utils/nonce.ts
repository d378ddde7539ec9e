import { createContext, useContext } from 'react';

/** The per-response CSP nonce for our inline scripts (server only; browsers hide it from the DOM). */
export const NonceContext = createContext<string | undefined>(undefined);

export function useNonce(): string | undefined {
  return useContext(NonceContext);
}
