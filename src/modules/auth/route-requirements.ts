import { Injectable } from '@nestjs/common';
import type { AuthorizationRequirement } from '../../common/access/authorized.decorator.js';

/**
 * What each route requires of a caller (`@Authorized`), by method and route pattern, learned by
 * the guard the first time the route is reached in this process. The body admission reads it, so
 * a caller whose token lacks the route's scope or entitlement gets the guard's 403 without the
 * server reading, decompressing or parsing up to BODY_LIMIT of body first. Until a route's first
 * request, its bodies are admitted on the credential alone, as before. Keys are route patterns,
 * never raw paths, so the map is as large as the route table.
 */
@Injectable()
export class RouteRequirements {
  private readonly known = new Map<string, AuthorizationRequirement | null>();

  learn(
    method: string,
    route: string | undefined,
    requirement: AuthorizationRequirement | undefined,
  ): void {
    if (route === undefined) return;
    const key = `${method} ${route}`;
    if (!this.known.has(key)) this.known.set(key, requirement ?? null);
  }

  /** The route's requirement: null for none, undefined when not learned yet. */
  of(method: string, route: string): AuthorizationRequirement | null | undefined {
    return this.known.get(`${method} ${route}`);
  }
}
