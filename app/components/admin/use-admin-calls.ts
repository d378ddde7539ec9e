import { useRevalidator } from '@remix-run/react';
import { useState } from 'react';
import { ADMIN_SAID } from '~/utils/admin-messages';
import { refusalOf } from '~/utils/in-place';
import { trpc } from '~/utils/trpc';

/** What the last action said: done, or refused with the server's words. */
export type AdminAnswer = { notice: string; error: null } | { notice: null; error: string };

/**
 * The console's forms with JavaScript (ADR 0083): each a call to /trpc in place, then the list
 * read again; the words are those the page's action says without JavaScript.
 */
export function useAdminCalls() {
  const [answer, setAnswer] = useState<AdminAnswer | null>(null);
  const revalidator = useRevalidator();
  const create = trpc.admin.create.useMutation();
  const setQuota = trpc.admin.setQuota.useMutation();
  const setDisabled = trpc.admin.setDisabled.useMutation();
  const setAdmin = trpc.admin.setAdmin.useMutation();
  const signOut = trpc.admin.signOut.useMutation();
  const resetTwoFactor = trpc.admin.resetTwoFactor.useMutation();

  async function said(intent: string, form: FormData): Promise<string> {
    const username = String(form.get('username') ?? '');
    switch (intent) {
      case 'create': {
        const { user } = await create.mutateAsync({
          username: String(form.get('newUsername') ?? ''),
          password: String(form.get('password') ?? ''),
          admin: form.get('admin') === 'on',
        });
        return ADMIN_SAID.created(user);
      }
      case 'set-quota': {
        const quota = String(form.get('quota') ?? '');
        return ADMIN_SAID.quota((await setQuota.mutateAsync({ username, quota })).user, quota);
      }
      case 'disable':
      case 'enable': {
        const { user } = await setDisabled.mutateAsync({ username, disabled: intent === 'disable' });
        return ADMIN_SAID.disabled(user.username, user.disabled);
      }
      case 'admin-on':
      case 'admin-off':
        return ADMIN_SAID.admin((await setAdmin.mutateAsync({ username, admin: intent === 'admin-on' })).user);
      case 'sign-out':
        return ADMIN_SAID.signedOut(username, (await signOut.mutateAsync({ username })).sessionsEnded);
      default:
        await resetTwoFactor.mutateAsync({ username });
        return ADMIN_SAID.twoFactorReset(username);
    }
  }

  /** Sends one of the console's forms in place. */
  async function act(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    try {
      setAnswer({ notice: await said(String(data.get('intent') ?? ''), data), error: null });
      if (data.get('intent') === 'create') form.reset();
      revalidator.revalidate();
    } catch (error) {
      setAnswer({ notice: null, error: refusalOf(error).message });
    }
  }

  return { answer, act };
}
