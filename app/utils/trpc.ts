import { createTRPCReact } from '@trpc/react-query';
import type { AppRouter } from '../../server/doors/trpc/router';

/** The UI's client of the internal /trpc router (types only come from the server). */
export const trpc = createTRPCReact<AppRouter>();
