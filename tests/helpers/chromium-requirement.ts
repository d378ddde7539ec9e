// Whether the browser tests run. With Chromium they run; without it they skip and say why on a
// developer's machine, but in CI (the CI variable set) a missing Chromium fails the run: a green
// run there must mean the pages were tried in a browser. Pure, so it is tested without
// uninstalling anything (tests/unit/chromium-requirement.test.ts).

export type BrowserTestsDecision =
  | { readonly outcome: 'run' }
  | { readonly outcome: 'skip'; readonly reason: string }
  | { readonly outcome: 'fail'; readonly message: string };

export interface BrowserTestsSituation {
  /** The CI variable as the environment has it. */
  readonly ci: string | undefined;
  /** Where Chromium is looked for (CHROMIUM_PATH or Debian's /usr/bin/chromium). */
  readonly chromiumPath: string;
  /** Whether something is there. */
  readonly chromiumPresent: boolean;
}

export function decideBrowserTests({ ci, chromiumPath, chromiumPresent }: BrowserTestsSituation): BrowserTestsDecision {
  if (chromiumPresent) return { outcome: 'run' };
  if (isCi(ci))
    return {
      outcome: 'fail',
      message: `Chromium is required in CI: apt-get install chromium (none at ${chromiumPath})`,
    };
  return {
    outcome: 'skip',
    reason: `skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  };
}

/** CI services set CI=true (or another value); empty, "false" and "0" are read as not in CI. */
function isCi(ci: string | undefined): boolean {
  const value = ci?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}
