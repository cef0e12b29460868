import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import { ValidationFailedError } from '../../common/http/app-error.js';
import type { HttpRequest } from '../../common/http/platform/http-platform.js';
import type { PlatformKeyPrincipal } from './platform-keys.service.js';
import type { PlatformScope } from './platform-scopes.js';

export type { PlatformKeyPrincipal };

/** Metadata key of the scope a platform route needs. */
export const PLATFORM_SCOPE = 'platform:scope';
/** The security scheme of the platform document. */
export const PLATFORM_KEY_SCHEME = 'platform-key';
export const ACTING_USER_HEADER = 'x-acting-user';
export const ACTING_USER_MAX = 200;

/** A request the platform guard has let through. */
export interface PlatformRequest extends HttpRequest {
  platformKey?: PlatformKeyPrincipal;
}

/**
 * The one declaration of what a platform route needs: the guard checks the key and this scope,
 * and the OpenAPI document shows both, so the two cannot drift apart.
 */
export function PlatformAuthorized(scope: PlatformScope): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(PLATFORM_SCOPE, scope),
    ApiBearerAuth(PLATFORM_KEY_SCHEME),
    ApiProblemResponses(401, {
      status: 403,
      description: `Needs a platform key with scope \`${scope}\` (\`insufficient_scope\`).`,
    }),
  );
}

/**
 * The person in the platform's UI a write is made for, from `X-Acting-User` (1..200 characters of
 * UTF-8 text): recorded in the audit trail and in decisions. Absent, empty, too long or not text:
 * 400 `validation_failed`. Node hands header bytes over as Latin-1; they are read as UTF-8 here.
 */
export function actingUserOf(req: HttpRequest): string {
  const raw = req.headers[ACTING_USER_HEADER];
  const value = typeof raw === 'string' ? Buffer.from(raw, 'latin1').toString('utf8').trim() : '';
  const length = [...value].length;
  // eslint-disable-next-line no-control-regex
  if (length === 0 || length > ACTING_USER_MAX || /[\u0000-\u001f\u007f\ufffd]/.test(value)) {
    throw new ValidationFailedError([
      {
        field: 'X-Acting-User',
        message: `required on writes: the acting person, 1..${ACTING_USER_MAX} characters of text`,
      },
    ]);
  }
  return value;
}

const ACTING_USER_DOC = ApiHeader({
  name: 'X-Acting-User',
  required: true,
  description:
    "The person in the platform's UI this write is made for (1..200 characters, not only " +
    'spaces, no control characters); recorded in the audit trail and in decisions.',
  // what `actingUserOf` refuses: blank, or a control character (the length is counted trimmed)
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: ACTING_USER_MAX,
    pattern:
      '^[^\\u0000-\\u001f\\u007f\\ufffd]*[^\\s\\u0000-\\u001f\\u007f\\ufffd][^\\u0000-\\u001f\\u007f\\ufffd]*$',
  },
});

/** `@ActingUser() actor: string`: required on every write handler of the platform API. */
export const ActingUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): string =>
    actingUserOf(context.switchToHttp().getRequest<HttpRequest>()),
  [
    (target: object, key: string | symbol | undefined) => {
      if (key === undefined) return;
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (descriptor) ACTING_USER_DOC(target, key, descriptor);
    },
  ],
);

/** `@CurrentPlatformKey() key: PlatformKeyPrincipal`: the key the guard let through. */
export const CurrentPlatformKey = createParamDecorator(
  (_: unknown, context: ExecutionContext): PlatformKeyPrincipal => {
    const key = context.switchToHttp().getRequest<PlatformRequest>().platformKey;
    if (!key) throw new Error('@CurrentPlatformKey() on a route the platform guard did not check');
    return key;
  },
);
