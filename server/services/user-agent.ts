// Turns a User-Agent header into the few words people recognise a device by.
import Bowser from 'bowser';

const UNKNOWN_BROWSER = 'Unknown browser';

/** e.g. "Firefox 133 on Linux", "Chrome 131 on Android", "curl 8.5.0"; "Unknown browser" when there is nothing to read. */
export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent?.trim()) return UNKNOWN_BROWSER;
  const { browser, os } = Bowser.parse(userAgent);
  const major = browser.version?.split('.')[0];
  const name = browser.name ? [browser.name, major].filter(Boolean).join(' ') : null;
  const system = os.name ? `${os.name}${os.versionName ? ` ${os.versionName}` : ''}` : null;
  if (name && system) return `${name} on ${system}`;
  if (name) return name;
  // Scripts (curl/8.5.0, python-requests/2.32): the product token says enough.
  const product = /^[\w.-]+\/[\w.-]+/.exec(userAgent.trim());
  return product ? product[0].replace('/', ' ') : UNKNOWN_BROWSER;
}
