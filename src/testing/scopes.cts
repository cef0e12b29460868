// The service's own lists, which are CommonJS so that the kit can require them.
import { SCOPES } from '../common/access/scope-list.cjs';
import { PLATFORM_SCOPES } from '../modules/platform-keys/platform-scope-list.cjs';

/** Every scope a client can hold; `createTenant` grants all unless told otherwise. */
export const ALL_SCOPES = SCOPES;

/** Every scope a platform key can hold; the kit's own key (`api.platform`) has them all. */
export const ALL_PLATFORM_SCOPES = PLATFORM_SCOPES;
