import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ExpectationFailedError, MalformedRequestError, type AppError } from './app-error.js';
import { closeAfterResponse, closeWithin, LINGER_MS } from './lingering-close.js';
import { problem, PROBLEM_CONTENT_TYPE } from './problem.js';
import { carriesBody } from './request-body.js';
import { framingProblem } from './request-framing.js';
import { requestIdFor } from './request-id.js';

/**
 * Node answers some requests itself before any route or hook sees them, with a bare status and no
 * `X-Request-Id`: an HTTP/1.1 request without `Host` (400) and an `Expect` other than
 * `100-continue` (417). Here both are the service's: Node's Host check is off, so the platforms'
 * framing check (request-framing.ts) answers a missing Host as it answers any head it cannot
 * trust; an unknown expectation is answered here, as problem details, and so is CONNECT, which
 * Node hands to no route. Installed by both platforms (what the HTTP parser refuses outright is
 * client-error.ts's).
 */
export function answerBeforeRouting(server: Server): void {
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    // Node looks at Expect before routing but after Host: a head that cannot be trusted comes first
    const framing = framingProblem(req);
    const error =
      framing === undefined ? new ExpectationFailedError() : new MalformedRequestError(framing);
    // a body left unread (or a head that cannot frame one): nothing after it on the connection
    if (framing !== undefined || carriesBody(req)) closeAfterResponse(res);
    sendProblem(req, res, error);
  });
  // Node routes no CONNECT: without a listener it closes the connection unanswered
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const requestId = requestIdFor(req);
    const body = JSON.stringify(
      problem('malformed_request', 'CONNECT is not supported: this service is no proxy', requestId),
    );
    socket.on('error', () => socket.destroy());
    socket.end(
      'HTTP/1.1 400 Bad Request\r\n' +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    // Node forgets a socket it hands to 'connect' (no timeout, half-open allowed): a client that
    // never closes its side would hold a connection slot for good
    closeWithin(socket, LINGER_MS);
  });
}

/** Answers `error` as problem details on Node's response, as the problem filter would. */
function sendProblem(req: IncomingMessage, res: ServerResponse, error: AppError): void {
  const requestId = requestIdFor(req);
  const body = JSON.stringify(problem(error.code, error.message, requestId, error.extensions));
  res.writeHead(error.status, {
    ...error.headers,
    'X-Request-Id': requestId,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
