import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { CREDENTIALS_CHANGED_CHANNEL } from '../../common/database/schema-constants.js';
import { AppConfig } from '../../common/config/app-config.js';
import { ListenConnection, listenUrl } from '../../common/database/listen-connection.js';

const LISTEN_RECONNECT_MS = 1_000;
/** Far above any real working set; a flood of distinct credentials cannot grow memory unbounded. */
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  /** Epoch ms after which the entry is not used: the cache age limit or the credential's expiry. */
  until: number;
}

/**
 * Verified credentials kept in memory, so the common request costs no database round trip for
 * authentication (issue 3: an authenticated trivial route within 25 % of an unauthenticated one).
 * Tenancy changes (plans, entitlements) empty it too: tenancy announces them to a listener the
 * auth module registers (credential-freshness.ts), so tenancy does not depend on auth.
 *
 * Correctness rests on three rules:
 * - every change that could alter a verified credential (token, client, PAT, tenant plan,
 *   entitlement override) fires `NOTIFY credentials_changed` from a database trigger at commit
 *   (migrations/1764000300000-credential-change-notify.ts), and a notification empties the cache;
 * - the cache is used only while this process is listening: before the LISTEN succeeds, and from
 *   the moment the connection is lost until it is back, every request is looked up;
 * - a look-up that was in flight while a notification arrived may have read the old rows, so its
 *   answer is not kept (a generation counter tells).
 * Only non-null answers are kept: an unknown token always reaches the database (after the
 * checksum, which refuses a forged one first). Client look-ups answer "no such client" as a value,
 * so it is kept too: the token endpoint then takes as long for an unknown id as for a known one. Entries also end at `AUTH_CACHE_TTL_MS` and at the
 * credential's own expiry. The remaining window is the notification's own latency after a commit
 * made by another process (test/credential-cache.e2e-spec.ts measures it); changes made through
 * this process's services also empty it synchronously, after their commit.
 */
@Injectable()
export class CredentialCache implements OnApplicationShutdown {
  private readonly logger = new Logger(CredentialCache.name);
  private readonly ttlMs: number;
  private readonly listenUrl: string | undefined;
  private readonly entries = new Map<string, Entry<unknown>>();
  private readonly loading = new Map<string, Promise<unknown>>();
  private listener: ListenConnection | null = null;
  private generation = 0;
  private closed = false;
  /** Notifications received (observability; the tests read it). */
  readonly stats = { invalidations: 0 };

  constructor(config: AppConfig) {
    this.listenUrl = listenUrl(config);
    // without a connection that hears changes, nothing may be answered from memory
    this.ttlMs = this.listenUrl === undefined ? 0 : config.AUTH_CACHE_TTL_MS;
  }

  /** Whether answers may come from memory now (observability; the tests read it). */
  get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  /**
   * The cached answer for `key`, or `load()`'s (kept only when it is not null). Concurrent misses
   * for one key share one look-up. `expiresAt` of the loaded value caps how long it is kept.
   */
  async get<V extends { expiresAt: number }>(
    key: string,
    load: () => Promise<V | null>,
  ): Promise<V | null> {
    if (!this.active()) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.until > now) return hit.value as V;
      this.entries.delete(key);
    }
    const pending = this.loading.get(key);
    if (pending) return pending as Promise<V | null>;
    const generation = this.generation;
    const promise: Promise<V | null> = load().finally(() => {
      // an invalidation may have let a newer look-up of this key in meanwhile
      if (this.loading.get(key) === promise) this.loading.delete(key);
    });
    this.loading.set(key, promise);
    const value = await promise;
    if (value && generation === this.generation && this.listener?.listening) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, { value, until: Math.min(value.expiresAt, Date.now() + this.ttlMs) });
    }
    return value;
  }

  /** Forgets everything (also called by this process's own credential changes, after commit). */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
    // a look-up in flight may have read the old rows: later callers must not share it
    this.loading.clear();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.listener?.stop();
    this.listener = null;
    this.invalidate();
  }

  /** Whether answers may come from memory now; starts listening on first use. */
  private active(): boolean {
    // requests still finishing during shutdown look up, rather than reopen a connection
    if (this.ttlMs === 0 || this.closed) return false;
    if (!this.listener) this.startListening();
    return this.listener?.listening ?? false;
  }

  private startListening(): void {
    this.listener = new ListenConnection({
      connectionString: this.listenUrl,
      channel: CREDENTIALS_CHANGED_CHANNEL,
      applicationName: 'grc-credential-cache',
      logger: this.logger,
      reconnectMs: LISTEN_RECONNECT_MS,
      onNotification: () => {
        this.stats.invalidations += 1;
        this.invalidate();
      },
      // whatever was cached before may have changed unannounced while we were not listening
      onListening: () => this.invalidate(),
      onLost: () => this.invalidate(),
    });
    void this.listener.start();
  }
}
