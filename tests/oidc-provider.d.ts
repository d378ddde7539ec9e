// oidc-provider ships no types: what the test provider (tests/helpers/oidc-provider.ts) uses of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface KoaContext {
    path: string;
    method: string;
    body: unknown;
    req: IncomingMessage;
    res: ServerResponse;
    redirect(url: string): void;
  }

  interface InteractionDetails {
    prompt: { name: string };
    params: Record<string, unknown>;
    session?: { accountId: string };
  }

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  class Grant {
    constructor(properties: { accountId?: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & {
        findAccount?(ctx: KoaContext, sub: string): Promise<Account | undefined>;
      },
    );
    Grant: typeof Grant;
    on(event: string, listener: (...args: unknown[]) => void): void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
  }
}
