import { describe, expect, it } from '@jest/globals';
import { allowedMethods, noRouteError } from './allowed-methods.js';
import { MethodNotAllowedError, NotFoundError } from './app-error.js';

describe('allowedMethods', () => {
  it('lists each method once, the usual ones first in a fixed order, HEAD wherever GET is', () => {
    expect(allowedMethods(['patch', 'GET', 'PROPFIND', 'DELETE', 'ACL', 'GET'])).toEqual([
      'GET',
      'HEAD',
      'PATCH',
      'DELETE',
      'ACL',
      'PROPFIND',
    ]);
    expect(allowedMethods(['POST'])).toEqual(['POST']);
    expect(allowedMethods([])).toEqual([]);
  });
});

describe('noRouteError', () => {
  it('is a 405 naming the allowed methods in Allow when other methods have routes', () => {
    const error = noRouteError('PUT', ['GET', 'POST']);
    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect(error.status).toBe(405);
    expect(error.headers).toEqual({ Allow: 'GET, HEAD, POST' });
    expect(error.message).toBe('PUT is not allowed on this path (allowed: GET, HEAD, POST)');
  });

  it('is a 404 when no method has a route there', () => {
    const error = noRouteError('GET', []);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
  });
});
