import { Form, type FormProps, useSubmit } from '@remix-run/react';
import { type FormEvent, type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';

/** What the page asks before it deletes (or revokes, or removes) something for good. */
export interface Confirmation {
  /** The question, naming what goes: "Delete “notes.txt”? Its share link will stop working." */
  question: string;
  /** The button that does it: "Delete", "Revoke", "Remove". */
  action: string;
  /** Choices that go with it (a collection's "also delete its files"), as form fields. */
  fields?: ReactNode;
}

/**
 * The page's own question before a delete, with JavaScript (ADR 0008): a modal <dialog> that
 * names what goes (as text: a file's name is never read as markup), starts on the safe button,
 * and is cancelled by Escape. Without JavaScript the pages ask on a page of their own, or not
 * at all where a form does it at once.
 */
function ConfirmDialog({
  confirmation,
  onAnswer,
}: {
  confirmation: Confirmation;
  /** The fields' values when confirmed; null when cancelled. */
  onAnswer: (answer: FormData | null) => void;
}) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const questionId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    dialog.showModal();
    // The safe choice first: Enter or Space right away keeps everything.
    cancelRef.current?.focus();
  }, []);

  /** Closed before it leaves the page, so that the browser gives focus back to what opened it. */
  const answer = (value: FormData | null) => {
    dialogRef.current?.close();
    onAnswer(value);
  };

  const confirm = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    answer(new FormData(event.currentTarget));
  };

  return (
    <dialog
      ref={dialogRef}
      className="confirm-dialog"
      aria-labelledby={questionId}
      onCancel={(event) => {
        // Escape: the browser would close it; the answer closes it once, the same way as Cancel.
        event.preventDefault();
        answer(null);
      }}
    >
      <form className="stack" onSubmit={confirm}>
        <p id={questionId} className="confirm-question">
          {confirmation.question}
        </p>
        {confirmation.fields}
        <p className="actions">
          <button type="button" className="secondary" ref={cancelRef} onClick={() => answer(null)}>
            Cancel
          </button>
          <button type="submit" className="danger">
            {confirmation.action}
          </button>
        </p>
      </form>
    </dialog>
  );
}

/**
 * `ask(confirmation)` shows the dialog and resolves with the fields' values once confirmed, null
 * once cancelled; `dialog` is put anywhere in the page.
 */
export function useConfirmation(): {
  ask: (confirmation: Confirmation) => Promise<FormData | null>;
  dialog: ReactNode;
} {
  const [asking, setAsking] = useState<{
    confirmation: Confirmation;
    resolve: (answer: FormData | null) => void;
  } | null>(null);
  const ask = useCallback(
    (confirmation: Confirmation) =>
      new Promise<FormData | null>((resolve) => {
        setAsking({ confirmation, resolve });
      }),
    [],
  );
  const dialog = asking ? (
    <ConfirmDialog
      confirmation={asking.confirmation}
      onAnswer={(answer) => {
        setAsking(null);
        asking.resolve(answer);
      }}
    />
  ) : null;
  return { ask, dialog };
}

/**
 * A page's form that asks first, with JavaScript: once confirmed it is sent as its button would
 * send it (the button's name and value too), or given to `onConfirmed` (an in-place call instead
 * of the form). Without JavaScript it is sent at once, as before.
 */
export function ConfirmedForm({
  confirmation,
  onConfirmed,
  children,
  ...formProps
}: FormProps & { confirmation: Confirmation; onConfirmed?: () => void }) {
  const submit = useSubmit();
  const { ask, dialog } = useConfirmation();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const { submitter } = event.nativeEvent as SubmitEvent;
    const form = event.currentTarget;
    void ask(confirmation).then((answer) => {
      if (!answer) return;
      if (onConfirmed) onConfirmed();
      else submit(submitter instanceof HTMLButtonElement ? submitter : form);
    });
  };
  // The dialog beside the form, not in it: it holds a form of its own.
  return (
    <>
      <Form {...formProps} onSubmit={onSubmit}>
        {children}
      </Form>
      {dialog}
    </>
  );
}
