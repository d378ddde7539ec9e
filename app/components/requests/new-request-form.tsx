import { Form } from '@remix-run/react';
import { type FormEvent, useRef } from 'react';
import { SIZE_HINT } from '~/utils/request-form';

const EXPIRY_CHOICES = [
  { value: '86400', label: '1 day' },
  { value: '604800', label: '7 days' },
  { value: '2592000', label: '30 days' },
  { value: 'never', label: 'Never' },
];

/**
 * The new request's form. With JavaScript it is given to `onCreate` (an in-place call), which
 * says whether the request was made: then the form empties, and the next request starts blank
 * instead of taking the last one's title and message along unseen. A refused one keeps what was
 * typed. (Without JavaScript the page is drawn anew, empty.)
 */
export function NewRequestSection({
  error,
  onCreate,
}: {
  error: string | null | undefined;
  onCreate: (form: FormData) => Promise<boolean>;
}) {
  const form = useRef<HTMLFormElement>(null);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void onCreate(new FormData(event.currentTarget)).then((made) => {
      if (made) form.current?.reset();
    });
  };
  return (
    <section className="card stack" aria-label="New file request">
      <h2>New file request</h2>
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <Form method="post" className="stack" ref={form} onSubmit={onSubmit}>
        <input type="hidden" name="intent" value="create" />
        <label>
          <span>Title</span>
          <input type="text" name="title" required maxLength={200} />
        </label>
        <label>
          <span>Message to the people who send (optional)</span>
          <textarea name="message" maxLength={2000} rows={3} />
        </label>
        <label>
          <span>Stops taking files after</span>
          <select name="expiresIn" defaultValue="604800">
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Most files (optional)</span>
          <input type="number" name="maxFiles" min={1} step={1} />
        </label>
        <label>
          <span>{`Most data in all (optional; ${SIZE_HINT})`}</span>
          <input type="text" name="maxSize" inputMode="decimal" maxLength={40} />
        </label>
        <label>
          <span>Password (optional)</span>
          <input type="password" name="password" autoComplete="new-password" maxLength={200} />
        </label>
        <label className="checkbox">
          <input type="checkbox" name="requireName" />
          <span>Ask for a name</span>
        </label>
        <button type="submit">Make the link</button>
      </Form>
    </section>
  );
}
