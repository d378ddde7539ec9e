// HTTP requests that fetch cannot make or cannot show: exact paths, bodies written piece by piece
// or cut off, odd or missing headers, and answers as they came (HEAD bodies, 304s, raw header lines).
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every header line exactly as it came over the wire. */
  rawHeaders: string[];
  /** The body's bytes, and the same read as UTF-8. */
  body: Buffer;
  text: string;
  /** With `splitAt`: the bytes of the body sent when the answer began to arrive. */
  sentWhenAnswered?: number;
}

interface Target {
  method?: string;
  /** Sent exactly as given (not normalised), to the host of the URL; by default the URL's own path. */
  path?: string;
  headers?: http.OutgoingHttpHeaders;
}

function clientRequest(url: string, target: Target, agent: http.Agent | false | undefined): http.ClientRequest {
  const { hostname, port, pathname, search } = new URL(url);
  return http.request({
    host: hostname,
    port,
    method: target.method ?? 'GET',
    path: target.path ?? `${pathname}${search}`,
    headers: target.headers,
    ...(agent === undefined ? {} : { agent }),
  });
}

/**
 * The answer to `request`, read whole. A connection that fails before it has all come (reset
 * while the client still sends, say) fails the answer: the client would not have read it.
 */
function answerOf(request: http.ClientRequest, sent: () => number = () => 0): Promise<RawResponse> {
  const answer = new Promise<RawResponse>((resolve, reject) => {
    let response: http.IncomingMessage | undefined;
    request.on('error', reject);
    request.on('close', () => {
      if (!response?.complete) reject(new Error('the connection closed before the whole answer came'));
    });
    request.on('response', (res) => {
      response = res;
      const sentWhenAnswered = sent();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          text: body.toString('utf8'),
          sentWhenAnswered,
        });
      });
      res.on('error', reject);
    });
  });
  // A test that lets the server die under its request need not wait for this answer.
  answer.catch(() => {});
  return answer;
}

/**
 * One request over a fresh connection (`Connection: close`, unless `agent` says otherwise), its
 * body sent whole or in pieces. Whatever goes wrong, Node refusing the path included, rejects.
 */
export async function rawRequest(
  url: string,
  options: Target & {
    body?: string | Buffer;
    agent?: http.Agent | false;
    /** Send the body in pieces cut at these offsets (the server then parses it chunk by chunk). */
    splitAt?: number[];
    /** The pause between two pieces (default 2 ms). */
    gapMs?: number;
    /** Stop sending pieces once the answer has begun to arrive (a client that reads it). */
    stopWhenAnswered?: boolean;
    timeoutMs?: number;
  } = {},
): Promise<RawResponse> {
  const req = clientRequest(url, options, options.agent ?? false);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const timer = setTimeout(() => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)), timeoutMs);
  let sent = 0;
  let answered = false;
  req.once('response', () => (answered = true));
  const answer = answerOf(req, () => sent).finally(() => clearTimeout(timer));
  // The server may answer (and close) before the whole body is out: that is an answer, not an error.
  if (!options.splitAt?.length) {
    req.end(options.body);
    return answer;
  }
  // The body in pieces, a moment apart, so that the server reads them as separate chunks.
  const body = Buffer.from(options.body ?? '');
  req.setHeader('content-length', String(body.length));
  const cuts = [0, ...options.splitAt.filter((cut) => cut > 0 && cut < body.length), body.length];
  void (async () => {
    for (let i = 0; i + 1 < cuts.length && !req.destroyed; i++) {
      if (answered && options.stopWhenAnswered) return;
      req.write(body.subarray(cuts[i], cuts[i + 1]));
      sent = cuts[i + 1];
      await new Promise((resolve) => setTimeout(resolve, options.gapMs ?? 2));
    }
    req.end();
  })();
  return answer;
}

/**
 * A request whose body the test writes itself (`request.write`, then `request.end`, or
 * `request.destroy` for a client that goes away), to see what the server does while the rest is
 * still on its way; `answer` is the response, read whole. Over Node's default agent unless
 * `agent` says otherwise.
 */
export function openRequest(
  url: string,
  options: Target & { agent?: http.Agent | false } = {},
): { request: http.ClientRequest; answer: Promise<RawResponse> } {
  const request = clientRequest(url, options, options.agent);
  return { request, answer: answerOf(request) };
}
