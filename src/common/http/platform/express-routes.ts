import { METHODS } from 'node:http';

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
  /** The `route` objects of the routes (not the mounts for every method on a routed path). */
  private routeObjects = new WeakSet<object>();
  /** The routes of each method registered for it by name (not for every method). */
  private ownByMethod = new Map<string, Candidate[]>();

  lookup(stack: readonly RouteLayer[], method: string, path: string): string | undefined {
    this.indexIfChanged(stack);
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
    const segments = segmentCount(path);
    return (this.byMethod.get(verb) ?? this.anyMethod).find((c) => matches(c, path, segments))
      ?.pattern;
  }

  /**
   * The methods (upper case) whose own routes match `path`; routes for every method (the
   * catch-alls) do not count.
   */
  methodsOn(stack: readonly RouteLayer[], path: string): string[] {
    this.indexIfChanged(stack);
    const segments = segmentCount(path);
    const methods: string[] = [];
    for (const [verb, candidates] of this.ownByMethod) {
      if (candidates.some((c) => matches(c, path, segments))) methods.push(verb.toUpperCase());
    }
    return methods;
  }

  /**
   * Whether a layer's `route` the router matched is a route: a mount of Nest's for every method
   * on a routed path (its middleware, its not-found handler) is not.
   */
  isRoute(stack: readonly RouteLayer[], route: object): boolean {
    this.indexIfChanged(stack);
    return this.routeObjects.has(route);
  }

  private indexIfChanged(stack: readonly RouteLayer[]): void {
    if (stack !== this.indexed || stack.length !== this.indexedLength) this.index(stack);
  }

  /** Each method's candidates in the router's order (the first match wins, as in routing). */
  private index(stack: readonly RouteLayer[]): void {
    const candidates: Array<{ candidate: Candidate; verbs: string[] | 'all' }> = [];
    const verbs = new Set<string>();
    /** Paths with routes of their own methods, without a trailing slash. */
    const routed = new Set<string>();
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
      // `app.all` (Nest's) names every method one by one; `route.all` says `_all`
      const every = methods['_all'] === true || own.length >= METHODS.length;
      if (!every) {
        for (const verb of own) verbs.add(verb);
        routed.add(withoutSlash(pattern));
      }
      candidates.push({ candidate, verbs: every ? 'all' : own });
    }
    // for every method on a path that has routes of its own methods: Nest's middleware and
    // not-found handler mounted on a path outside the prefix (`/health/live`), never a route
    const routes = candidates.filter(
      ({ candidate, verbs: of }) => of !== 'all' || !routed.has(withoutSlash(candidate.pattern)),
    );
    this.byMethod = new Map([...verbs].map((verb) => [verb, []]));
    this.anyMethod = [];
    this.ownByMethod = new Map([...verbs].map((verb) => [verb, []]));
    this.routeObjects = new WeakSet(routes.map(({ candidate }) => candidate.layer.route!));
    for (const { candidate, verbs: of } of routes) {
      if (of === 'all') this.anyMethod.push(candidate);
      for (const [verb, list] of this.byMethod) {
        if (of === 'all' || of.includes(verb)) list.push(candidate);
      }
      if (of !== 'all') for (const verb of of) this.ownByMethod.get(verb)!.push(candidate);
    }
    this.indexed = stack;
    this.indexedLength = stack.length;
  }
}

/** Whether a route matches a path of `segments` segments. */
function matches(c: Candidate, path: string, segments: number): boolean {
  if (c.segments !== undefined && c.segments !== segments) return false;
  try {
    return c.layer.match(path);
  } catch {
    // a path whose parameters are not valid percent-encoding matches no route
    return false;
  }
}

function withoutSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
