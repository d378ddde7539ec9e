import { useRevalidator } from '@remix-run/react';
import type { ApiTokenDto } from '../../../server/services/api-tokens';
import { inFormWords, NEW_TOKEN_LABELS } from '~/utils/form-errors';
import { refusalOf, useInPlaceAnswer, useRowsGone } from '~/utils/in-place';
import { newTokenInput, TOKEN_REVOKED } from '~/utils/settings-forms';
import { trpc } from '~/utils/trpc';
import { FormResult, type SettingsResult } from './form-result';
import { NewToken, NewTokenForm } from './new-token-form';
import { TokensTable } from './tokens-table';

/**
 * Personal access tokens: created (shown once), listed by their first characters, revoked. With
 * JavaScript both go through /trpc (ADR 0077): a revoked token's row goes at once (and comes back,
 * with the message, if the server refuses), and the list is read again; without it, the forms.
 */
export function ApiTokensSection({
  tokens,
  now,
  result: pageResult,
}: {
  tokens: ApiTokenDto[];
  now: number;
  result: SettingsResult | undefined;
}) {
  const [result, answer] = useInPlaceAnswer(pageResult);
  const rows = useRowsGone();
  const revalidator = useRevalidator();
  const create = trpc.tokens.create.useMutation();
  const revoke = trpc.tokens.revoke.useMutation();
  const said = (words: Partial<SettingsResult>) =>
    answer({ section: 'tokens', error: null, notice: null, created: null, ...words });
  const refused = (error: unknown, labels = {}) => said({ error: inFormWords(refusalOf(error).message, labels) });

  const onCreate = (form: FormData) =>
    create.mutate(newTokenInput(form), {
      onSuccess: (created) => {
        said({ created });
        revalidator.revalidate();
      },
      onError: (error) => refused(error, NEW_TOKEN_LABELS),
    });
  const onRevoke = (token: ApiTokenDto) => {
    rows.hide(token.id);
    revoke.mutate(
      { id: token.id },
      {
        onSuccess: () => {
          said({ notice: TOKEN_REVOKED });
          revalidator.revalidate();
        },
        onError: (error) => {
          rows.show(token.id);
          refused(error);
        },
      },
    );
  };

  const created = result?.section === 'tokens' ? result.created : null;
  const shown = tokens.filter((token) => !rows.gone(token.id));
  return (
    <section className="card stack" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted">
        For scripts, curl and upload tools such as ShareX: send <code>Authorization: Bearer &lt;token&gt;</code> to the
        file routes of <code>/api/v1</code>. A token cannot log in to these pages or make other tokens.
      </p>
      <FormResult result={result} section="tokens" />
      {created ? <NewToken created={created} /> : null}
      <NewTokenForm
        created={created}
        sent={result?.section === 'tokens' ? result.sentToken : null}
        onCreate={onCreate}
      />
      {shown.length === 0 ? (
        <p className="empty-state">
          <strong>No tokens yet.</strong> Name one above for a script or an upload tool; it is shown once, then listed
          here.
        </p>
      ) : (
        <TokensTable tokens={shown} now={now} onRevoke={onRevoke} />
      )}
    </section>
  );
}
