import net from 'node:net';

export interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after the answer. */
  closed: boolean;
}

/**
 * Writes `bytes` on a fresh connection and reads the first response: resolved once its body is
 * in (and the server's close, if it closes, seen), or when the connection closes.
 */
export function exchange(baseUrl: string, bytes: string): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes, 'latin1'));
    let received = '';
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      // interim answers (100 Continue) are not the answer
      const text = received.replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) {
        if (closed) reject(new Error(`closed without an answer: ${JSON.stringify(received)}`));
        return;
      }
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      // a HEAD answer has a Content-Length and no body
      const length = bytes.startsWith('HEAD ') ? 0 : Number(headers['content-length'] ?? 0);
      const body = text.slice(end + 4, end + 4 + length);
      if (!closed && (body.length < length || headers['connection'] === 'close')) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body, closed });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer in time: ${JSON.stringify(received)}`));
    }, 10_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
  });
}
