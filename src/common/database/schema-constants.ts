/**
 * Names the schema defines and runtime code relies on. Migrations import them from here (runtime
 * code must not import migration files); a migration must keep producing the same SQL, so these
 * values never change: a new name needs a new migration and a new constant.
 */

/** The role tenant transactions switch to; it is subject to row-level security. */
export const APP_ROLE = 'grc_app';

/** Channel on which every change that can alter who a credential is, or what it may do, is announced. */
export const CREDENTIALS_CHANGED_CHANNEL = 'credentials_changed';

/** One row, one number: bumped (transactionally) by every such change. */
export const CREDENTIAL_GENERATION = `(SELECT value FROM credential_generation)`;

/** The transaction-local setting through which `audit prune` announces its bound. */
export const AUDIT_PRUNE_SETTING = 'app.audit_prune_before';

/**
 * The role the platform API's cross-tenant reads switch to: row-level security binds it like
 * APP_ROLE, with SELECT-only policies over every tenant's rows (it writes nothing).
 */
export const PLATFORM_ROLE = 'grc_platform';

/** Channel on which every commit that appended `events` is announced, for the event feed. */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';
