import { MethodNotAllowedError, NotFoundError, type AppError } from './app-error.js';

/** The usual methods first, in this order; any other after them, alphabetically. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The `Allow` list of the methods a path's routes take, the same on both platforms: each once, in
 * a fixed order, HEAD wherever GET is (HEAD is GET without the body, RFC 9110 §9.3.2).
 */
export function allowedMethods(methods: Iterable<string>): string[] {
  const set = new Set([...methods].map((m) => m.toUpperCase()));
  if (set.has('GET')) set.add('HEAD');
  const rank = (m: string): number => (ORDER.includes(m) ? ORDER.indexOf(m) : ORDER.length);
  return [...set].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What a request that reached no route of its method is answered: 405 with `Allow` when other
 * methods have a route on its path, 404 otherwise. `others` are those methods, as the platform's
 * router finds them.
 */
export function noRouteError(method: string, others: Iterable<string>): AppError {
  const allowed = allowedMethods(others);
  return allowed.length > 0
    ? new MethodNotAllowedError(method, allowed)
    : new NotFoundError('route');
}
