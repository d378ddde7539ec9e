// What the pages' in-place actions share (with JavaScript they go through /trpc, ADR 0077;
// without it, the same forms post to the page's action and the page is drawn anew).
import { TRPCClientError } from '@trpc/client';
import { useNavigation } from '@remix-run/react';
import { type FormEvent, useEffect, useRef, useState } from 'react';

/** Said when the call got no answer at all (the network, or the server down). */
const NO_ANSWER = 'The server could not be reached. Try again.';

/** A failed call's words and status: the service's message, as the page's form would say it. */
export function refusalOf(error: unknown): { status: number | null; message: string } {
  if (error instanceof TRPCClientError) {
    const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus ?? null;
    return status === null ? { status, message: NO_ANSWER } : { status, message: error.message };
  }
  return { status: null, message: NO_ANSWER };
}

/**
 * A section's answer given in place, shown instead of the page's last form answer until a form
 * of the page is sent (then the page's answer is the newer one). The loader run again after a
 * call drops the page's last answer (Remix keeps one only across its own action's reload).
 */
export function useInPlaceAnswer<T>(pageAnswer: T | undefined): [T | undefined, (answer: T) => void] {
  const [inPlace, setInPlace] = useState<T | null>(null);
  const submitting = useNavigation().state === 'submitting';
  useEffect(() => {
    if (submitting) setInPlace(null);
  }, [submitting]);
  return [inPlace ?? pageAnswer, setInPlace];
}

/** Rows taken off the page at once, before the server answers; one comes back if the call fails. */
export function useRowsGone(): {
  gone: (id: string) => boolean;
  hide: (id: string) => void;
  show: (id: string) => void;
} {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  return {
    gone: (id) => hidden.has(id),
    hide: (id) => setHidden((now) => new Set(now).add(id)),
    show: (id) =>
      setHidden((now) => {
        const next = new Set(now);
        next.delete(id);
        return next;
      }),
  };
}

/**
 * A form given to `send` in place instead of being posted: it empties once `made` says the server
 * took it, as a page drawn anew without JavaScript is; a refused one keeps what was typed.
 */
export function useFormSentInPlace(made: unknown, send: (form: FormData) => void) {
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (made) ref.current?.reset();
  }, [made]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send(new FormData(event.currentTarget));
  };
  return { ref, onSubmit };
}
