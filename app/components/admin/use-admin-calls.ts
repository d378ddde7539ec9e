import { useRevalidator } from '@remix-run/react';
import { useState } from 'react';
import { runAccountForm } from '~/utils/admin-actions';
import { refusalOf } from '~/utils/in-place';
import { trpc } from '~/utils/trpc';

/** What the last action said: done, or refused with the server's words. */
export type AdminAnswer = { notice: string; error: null } | { notice: null; error: string };

/**
 * The console's forms with JavaScript (ADR 0083): each a call to /trpc in place, then the list
 * read again; what is done and said is the page action's (app/utils/admin-actions.ts).
 */
export function useAdminCalls() {
  const [answer, setAnswer] = useState<AdminAnswer | null>(null);
  const revalidator = useRevalidator();
  const calls = {
    create: trpc.admin.create.useMutation().mutateAsync,
    setQuota: trpc.admin.setQuota.useMutation().mutateAsync,
    setDisabled: trpc.admin.setDisabled.useMutation().mutateAsync,
    setAdmin: trpc.admin.setAdmin.useMutation().mutateAsync,
    signOut: trpc.admin.signOut.useMutation().mutateAsync,
    resetTwoFactor: trpc.admin.resetTwoFactor.useMutation().mutateAsync,
  };

  /** Sends one of the console's forms in place. */
  async function act(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    try {
      setAnswer({ notice: await runAccountForm(data, calls), error: null });
      if (data.get('intent') === 'create') form.reset();
      revalidator.revalidate();
    } catch (error) {
      setAnswer({ notice: null, error: refusalOf(error).message });
    }
  }

  return { answer, act };
}
