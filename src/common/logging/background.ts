import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The asynchronous context this module was evaluated in: start-up, before any request (it is
 * reached through static imports only). No AsyncLocalStorage has a store in it: not the request
 * logger nestjs-pino binds per request (with its `req`), nor a request's tenant transaction or
 * credential scope.
 */
const startUp = AsyncLocalStorage.snapshot();

/**
 * Runs `fn` outside any request's asynchronous context. A background task (a LISTEN connection, a
 * batch writer's timer) that is first started by whichever request needs it would otherwise keep
 * that request's context for good: every timer, socket and promise it creates inherits it, and all
 * its log lines would carry that one request's `req`. Whatever `fn` creates inherits start-up's
 * context instead, so its lines are logged by the root logger.
 */
export function outsideRequests<T>(fn: () => T): T {
  return startUp(fn);
}
