import { useRevalidator } from '@remix-run/react';
import { useState } from 'react';
import { type InvitationAnswer, runInvitationForm } from '~/utils/invitation-actions';
import { refusalOf } from '~/utils/in-place';
import { trpc } from '~/utils/trpc';

/**
 * The invitation forms with JavaScript (ADR 0086): each a call to /trpc in place, then the list
 * read again; what is done and said is the page action's (app/utils/invitation-actions.ts).
 */
export function useInvitationCalls() {
  const [answer, setAnswer] = useState<InvitationAnswer | null>(null);
  const revalidator = useRevalidator();
  const calls = {
    create: trpc.admin.createInvitation.useMutation().mutateAsync,
    revoke: trpc.admin.revokeInvitation.useMutation().mutateAsync,
  };

  async function act(form: HTMLFormElement): Promise<void> {
    try {
      setAnswer(await runInvitationForm(new FormData(form), calls));
      revalidator.revalidate();
    } catch (error) {
      setAnswer({ notice: null, link: null, error: refusalOf(error).message });
    }
  }

  return { answer, act };
}
