import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from './error-codes.js';
import { problem } from './problem.js';

const ANSWERS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'the request headers are too large'],
  HPE_REQUEST_TIMEOUT: ['request_timeout', 'the request took too long'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request took too long'],
};

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Requests Node's HTTP parser refuses (oversized headers, malformed request lines) never reach
 * the framework; they would be answered with an empty or framework-shaped body. They get a problem
 * body like every other error instead. Installed by both HTTP platforms.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, detail] = ANSWERS[err.code ?? ''] ?? [
    'malformed_request',
    'the request could not be parsed',
  ];
  const requestId = randomUUID();
  const answer = problem(code, detail, requestId);
  const status = answer.status;
  const body = JSON.stringify(answer);
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/problem+json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
