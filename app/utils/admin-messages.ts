import { counted } from '~/utils/format';

// What the console says once an action on an account is done: the same words whether the page's
// form was posted (without JavaScript) or the call went through /trpc in place.

interface Changed {
  username: string;
  admin: boolean;
  quotaSource: 'own' | 'default';
}

export const ADMIN_SAID = {
  created: (user: Changed) => `${user.username} was created${user.admin ? ', an admin' : ''}.`,
  quota: (user: Changed, typed: string) =>
    `The quota of ${user.username} is now ${user.quotaSource === 'own' ? typed.trim() : 'the default'}.`,
  disabled: (username: string, disabled: boolean) => `${username} is ${disabled ? 'disabled' : 'enabled'}.`,
  admin: (user: Changed) => (user.admin ? `${user.username} is an admin.` : `${user.username} is no longer an admin.`),
  signedOut: (username: string, sessions: number) => `${username}: ${counted(sessions, 'session')} ended.`,
  twoFactorReset: (username: string) => `The two-factor codes of ${username} are off: their password alone signs in.`,
};

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
