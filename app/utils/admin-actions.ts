import { counted } from '~/utils/format';

// What one of the console's account forms does and what the page then says, in one place: the
// page's action passes the services (without JavaScript), the page passes its /trpc calls (with
// it); both answer in the shapes of the tRPC `admin.*` procedures, so the words are the same.

interface Changed {
  username: string;
  admin: boolean;
  disabled: boolean;
  quotaSource: 'own' | 'default';
}

/** The calls a form may make, as the tRPC procedures take and answer them. */
export interface AccountCalls {
  create(input: { username: string; password: string; admin: boolean }): Promise<{ user: Changed }>;
  setQuota(input: { username: string; quota: string }): Promise<{ user: Changed }>;
  setDisabled(input: { username: string; disabled: boolean }): Promise<{ user: Changed }>;
  setAdmin(input: { username: string; admin: boolean }): Promise<{ user: Changed }>;
  signOut(input: { username: string }): Promise<{ sessionsEnded: number }>;
  resetTwoFactor(input: { username: string }): Promise<{ wasOn: boolean }>;
}

/** The intents of the row's forms and the new-account form. */
export const ADMIN_INTENTS = [
  'create',
  'set-quota',
  'disable',
  'enable',
  'admin-on',
  'admin-off',
  'sign-out',
  'reset-2fa',
];

/** Does what the form asks (its `intent`, one of ADMIN_INTENTS) and returns what to say. */
export async function runAccountForm(form: FormData, calls: AccountCalls): Promise<string> {
  const intent = String(form.get('intent') ?? '');
  const username = String(form.get('username') ?? '');
  switch (intent) {
    case 'create': {
      const { user } = await calls.create({
        username: String(form.get('newUsername') ?? ''),
        password: String(form.get('password') ?? ''),
        admin: form.get('admin') === 'on',
      });
      return `${user.username} was created${user.admin ? ', an admin' : ''}.`;
    }
    case 'set-quota': {
      const quota = String(form.get('quota') ?? '');
      const { user } = await calls.setQuota({ username, quota });
      return `The quota of ${user.username} is now ${user.quotaSource === 'own' ? quota.trim() : 'the default'}.`;
    }
    case 'disable':
    case 'enable': {
      const { user } = await calls.setDisabled({ username, disabled: intent === 'disable' });
      return `${user.username} is ${user.disabled ? 'disabled' : 'enabled'}.`;
    }
    case 'admin-on':
    case 'admin-off': {
      const { user } = await calls.setAdmin({ username, admin: intent === 'admin-on' });
      return user.admin ? `${user.username} is an admin.` : `${user.username} is no longer an admin.`;
    }
    case 'sign-out':
      return `${username}: ${counted((await calls.signOut({ username })).sessionsEnded, 'session')} ended.`;
    default:
      await calls.resetTwoFactor({ username });
      return `The two-factor codes of ${username} are off: their password alone signs in.`;
  }
}
