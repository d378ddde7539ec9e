// What the console's invitation forms do and what the page then says (ADR 0086), in one place:
// the page's action passes the services (without JavaScript), the page passes its /trpc calls
// (with it), both in the shapes of the tRPC `admin.*Invitation` procedures.

interface InvitationShown {
  id: string;
  state: string;
}

/** The calls the forms make, as the tRPC procedures take and answer them. */
export interface InvitationCalls {
  create(input: {
    expiresInDays?: string;
    maxUses?: string;
    quota: string;
    admin: boolean;
  }): Promise<{ invitation: InvitationShown; url: string }>;
  revoke(input: { id: string }): Promise<{ invitation: InvitationShown }>;
}

/** What a form's answer shows: words, and a new invitation's link (shown this once). */
export type InvitationAnswer =
  | { notice: string; link: string | null; error: null }
  | { notice: null; link: null; error: string };

export const INVITATION_INTENTS = ['invite', 'revoke'];

/** Does what the form asks (its `intent`, one of INVITATION_INTENTS) and returns what to say. */
export async function runInvitationForm(form: FormData, calls: InvitationCalls): Promise<InvitationAnswer> {
  if (form.get('intent') === 'revoke') {
    await calls.revoke({ id: String(form.get('id') ?? '') });
    return { notice: 'The invitation is revoked: its link makes no more accounts.', link: null, error: null };
  }
  const made = await calls.create({
    expiresInDays: filledIn(form, 'expiresInDays'),
    maxUses: filledIn(form, 'maxUses'),
    quota: String(form.get('quota') ?? '').trim() || 'default',
    admin: form.get('admin') === 'on',
  });
  return {
    notice: 'Invitation made. Send this link to whom it is for; it is shown only now:',
    link: made.url,
    error: null,
  };
}

/** A field's text, or undefined when it was left empty (its default then applies). */
function filledIn(form: FormData, name: string): string | undefined {
  const text = String(form.get(name) ?? '').trim();
  return text === '' ? undefined : text;
}
