import http from 'node:http';
import { checkStreamHead } from './openapi-check.js';

/** One message of an event stream as the client parsed it. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  /** A comment line (`: keep-alive`), without the colon and space. */
  comment?: string;
  /** When it was parsed (performance.now()). */
  at: number;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  /** Events only (messages with data). */
  events(): SseMessage[];
  /** Stops reading the socket (its buffers fill up), or reads again. */
  pause(): void;
  resume(): void;
  close(): void;
  /** Resolves once the response has ended or the connection closed. */
  ended: Promise<void>;
  /** The body, for a response that is not a stream. */
  text(): string;
}

/**
 * A minimal Server-Sent Events client (the text/event-stream format: fields up to a blank line,
 * `:` lines are comments): opens `url` with `Accept: text/event-stream` and parses as bytes come.
 */
export function openStream(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      // a stream's status and headers are checked against the document as call() checks answers
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        try {
          const head = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of [value ?? []].flat()) head.append(name, v);
          }
          checkStreamHead('GET', url, res.statusCode ?? 0, head);
        } catch (err) {
          req.destroy();
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
      }
      const messages: SseMessage[] = [];
      let buffer = '';
      let raw = '';
      let current: SseMessage = { at: 0 };
      let endedResolve: () => void = () => undefined;
      const ended = new Promise<void>((ok) => (endedResolve = ok));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (Object.keys(current).length > 1)
              messages.push({ ...current, at: performance.now() });
            current = { at: 0 };
          } else if (line.startsWith(':')) {
            messages.push({ comment: line.slice(1).trimStart(), at: performance.now() });
          } else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id' || field === 'event' || field === 'data') current[field] = value;
          }
        }
      });
      res.on('close', endedResolve);
      res.on('end', endedResolve);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        events: () => messages.filter((m) => m.data !== undefined),
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
        ended,
        text: () => raw,
      });
    });
    req.on('error', reject);
  });
}
