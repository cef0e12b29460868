/** The parts of an Express router's layer a route look-up reads. */
export interface RouteLayer {
  route?: { path?: unknown; methods?: Record<string, boolean | undefined> };
  match(path: string): boolean;
}

interface Candidate {
  layer: RouteLayer;
  pattern: string;
  /** The pattern's segment count; undefined when it has an optional part (`{…}`). */
  segments: number | undefined;
}

/**
 * The path Express routes a request target on (as `parseurl` reads it): without the query or a
 * fragment, and without the scheme and authority of an absolute-form target (`http://host/x`).
 */
export function routedPath(target: string): string {
  let end = target.length;
  for (const mark of ['?', '#']) {
    const at = target.indexOf(mark);
    if (at >= 0 && at < end) end = at;
  }
  const path = target.slice(0, end);
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(path);
  return absolute ? path.slice(absolute[0].length) || '/' : path;
}

/** Segments of a path; a trailing slash does not count (routing ignores one). */
function segmentCount(path: string): number {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let count = 0;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
}

/**
 * The route pattern a method and path would reach among a router's routes, without routing: for
 * a request refused before routing, and for the labels and limits that depend on the route.
 * Catch-all routes (`*`) are never an answer. Only the routes of the method with as many segments
 * as the path are tried (a `:param` is one segment), so an unknown path costs a few tests, not
 * one regular expression per route of the service.
 */
export class ExpressRoutes {
  private indexed: readonly RouteLayer[] | undefined;
  private indexedLength = -1;
  private byMethod = new Map<string, Candidate[]>();
  private anyMethod: Candidate[] = [];

  lookup(stack: readonly RouteLayer[], method: string, path: string): string | undefined {
    if (stack !== this.indexed || stack.length !== this.indexedLength) this.index(stack);
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
    const segments = segmentCount(path);
    for (const c of this.byMethod.get(verb) ?? this.anyMethod) {
      if (c.segments !== undefined && c.segments !== segments) continue;
      try {
        if (c.layer.match(path)) return c.pattern;
      } catch {
        // a path whose parameters are not valid percent-encoding matches no route
      }
    }
    return undefined;
  }

  /** Each method's candidates in the router's order (the first match wins, as in routing). */
  private index(stack: readonly RouteLayer[]): void {
    const candidates: Array<{ candidate: Candidate; verbs: string[] | 'all' }> = [];
    const verbs = new Set<string>();
    for (const layer of stack) {
      const route = layer.route;
      if (typeof route?.path !== 'string' || route.path.includes('*')) continue;
      const pattern = route.path;
      const candidate: Candidate = {
        layer,
        pattern,
        segments: pattern.includes('{') ? undefined : segmentCount(pattern),
      };
      const methods = route.methods ?? {};
      const own = Object.keys(methods).filter((verb) => verb !== '_all' && methods[verb]);
      for (const verb of own) verbs.add(verb);
      candidates.push({ candidate, verbs: methods['_all'] ? 'all' : own });
    }
    this.byMethod = new Map([...verbs].map((verb) => [verb, []]));
    this.anyMethod = [];
    for (const { candidate, verbs: of } of candidates) {
      if (of === 'all') this.anyMethod.push(candidate);
      for (const [verb, list] of this.byMethod) {
        if (of === 'all' || of.includes(verb)) list.push(candidate);
      }
    }
    this.indexed = stack;
    this.indexedLength = stack.length;
  }
}
