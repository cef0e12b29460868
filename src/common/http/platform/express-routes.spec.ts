import { describe, expect, it } from '@jest/globals';
import express from 'express';
import fc from 'fast-check';
import { ExpressRoutes, type RouteLayer, routedPath } from './express-routes.js';

const ROUTES: Array<[verb: 'get' | 'post' | 'patch' | 'all', path: string]> = [
  // an earlier route for every method wins over a later one for the method
  ['all', '/api/v1/x/:a'],
  ['get', '/api/v1/x/y'],
  ['get', '/api/v1/projects'],
  ['get', '/api/v1/projects/:projectId'],
  ['get', '/api/v1/projects/:projectId/files'],
  ['get', '/api/v1/documents/:documentId'],
  ['get', '/api/v1/documents/:documentId/versions/:versionId'],
  ['post', '/api/v1/documents/:documentId/checkout'],
  ['post', '/oauth/token'],
  ['patch', '/api/v1/webhooks/:webhookId'],
  ['get', '/api/v1/webhooks/:webhookId'],
  ['get', '/health/live'],
  ['get', '/api/v1/optional{/:part}'],
  ['all', '/api/v1'],
  ['all', '/api/v1/{*path}'],
  ['post', '/api/v1/late/:id'],
];

function stackOf(routes: typeof ROUTES): RouteLayer[] {
  const router = express.Router();
  for (const [verb, path] of routes) router[verb](path, () => undefined);
  return (router as unknown as { stack: RouteLayer[] }).stack;
}

/** What the look-up answered before it was indexed: every route in order, the first match. */
function scan(stack: readonly RouteLayer[], method: string, path: string): string | undefined {
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
  for (const layer of stack) {
    const route = layer.route;
    if (typeof route?.path !== 'string' || route.path.includes('*')) continue;
    if (!route.methods?.['_all'] && !route.methods?.[verb]) continue;
    try {
      if (layer.match(path)) return route.path;
    } catch {
      // not valid percent-encoding
    }
  }
  return undefined;
}

const segment = fc.constantFrom(
  'api',
  'v1',
  'projects',
  'documents',
  'versions',
  'files',
  'checkout',
  'webhooks',
  'optional',
  'oauth',
  'token',
  'health',
  'live',
  'late',
  '42',
  '',
  '%2F',
  '%E0%A4%A',
  'a.b',
  'x',
  'y',
);
const path = fc
  .tuple(fc.array(segment, { maxLength: 7 }), fc.boolean())
  .map(([parts, trailing]) => `/${parts.join('/')}${trailing ? '/' : ''}`);
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS');

describe('ExpressRoutes', () => {
  it('answers what a scan of every route in order answers, for any method and path', () => {
    const stack = stackOf(ROUTES);
    const routes = new ExpressRoutes();
    const prefixed = path.map((p) => (p.startsWith('/api/v1') ? p : `/api/v1${p}`));
    fc.assert(
      fc.property(method, fc.oneof(path, prefixed), (m, p) => {
        expect(routes.lookup(stack, m, p)).toBe(scan(stack, m, p));
      }),
      { numRuns: 5_000 },
    );
  });

  it('finds the routes of known paths, never a catch-all, and sees routes added later', () => {
    const routes = new ExpressRoutes();
    const stack = stackOf(ROUTES.slice(0, -1));
    expect(routes.lookup(stack, 'GET', '/api/v1/documents/7/versions/9/')).toBe(
      '/api/v1/documents/:documentId/versions/:versionId',
    );
    expect(routes.lookup(stack, 'HEAD', '/api/v1/projects/3')).toBe('/api/v1/projects/:projectId');
    expect(routes.lookup(stack, 'PATCH', '/api/v1/webhooks/3')).toBe('/api/v1/webhooks/:webhookId');
    expect(routes.lookup(stack, 'GET', '/api/v1/optional/x')).toBe('/api/v1/optional{/:part}');
    expect(routes.lookup(stack, 'DELETE', '/api/v1')).toBe('/api/v1');
    expect(routes.lookup(stack, 'GET', '/api/v1/no/such/route')).toBeUndefined();
    expect(routes.lookup(stack, 'POST', '/api/v1/late/1')).toBeUndefined();
    const longer = stackOf(ROUTES);
    expect(routes.lookup(longer, 'POST', '/api/v1/late/1')).toBe('/api/v1/late/:id');
  });

  it('tells the methods of the routes on a path, never those of a route for every method', () => {
    const routes = new ExpressRoutes();
    const stack = stackOf(ROUTES);
    expect(routes.methodsOn(stack, '/api/v1/webhooks/3').sort()).toEqual(['GET', 'PATCH']);
    expect(routes.methodsOn(stack, '/api/v1/webhooks/3/')).toHaveLength(2);
    expect(routes.methodsOn(stack, '/api/v1/documents/3/checkout')).toEqual(['POST']);
    expect(routes.methodsOn(stack, '/api/v1/x/y')).toEqual(['GET']);
    expect(routes.methodsOn(stack, '/api/v1/x/z')).toEqual([]);
    expect(routes.methodsOn(stack, '/api/v1')).toEqual([]);
    expect(routes.methodsOn(stack, '/api/v1/nowhere')).toEqual([]);
  });

  it("takes Nest's mounts for every method on a routed path for no route", () => {
    const app = express();
    // what Nest does: middleware mounted for every method on an excluded path, the route, and
    // the not-found handler for every method on it after the routes
    app.all('/health/live', () => undefined);
    app.get('/health/live', () => undefined);
    app.all('/api/v1', () => undefined);
    app.all('/health/live', () => undefined);
    const stack = (app.router as unknown as { stack: RouteLayer[] }).stack;
    const routes = new ExpressRoutes();
    expect(routes.lookup(stack, 'ACL', '/health/live')).toBeUndefined();
    expect(routes.lookup(stack, 'GET', '/health/live')).toBe('/health/live');
    expect(routes.methodsOn(stack, '/health/live')).toEqual(['GET']);
    // a route for every method on a path of its own is one (the API root's catch-all)
    expect(routes.lookup(stack, 'PUT', '/api/v1')).toBe('/api/v1');
    const [mount, route] = stack.filter((layer) => layer.route !== undefined);
    expect(routes.isRoute(stack, mount!.route!)).toBe(false);
    expect(routes.isRoute(stack, route!.route!)).toBe(true);
  });

  it('looks up the path Express routes on: no query, fragment, scheme or authority', () => {
    expect(routedPath('/api/v1/projects?limit=5')).toBe('/api/v1/projects');
    expect(routedPath('/api/v1/documents/1/checkout#x')).toBe('/api/v1/documents/1/checkout');
    expect(routedPath('/a#b?c')).toBe('/a');
    expect(routedPath('http://host:8080/api/v1/documents/1/checkout?x=1')).toBe(
      '/api/v1/documents/1/checkout',
    );
    expect(routedPath('https://host')).toBe('/');
    expect(routedPath('/plain')).toBe('/plain');
  });
});
