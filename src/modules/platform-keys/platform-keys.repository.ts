import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CREDENTIAL_GENERATION } from '../../common/database/schema-constants.js';
import { fragment, sql, type Statement } from '../../common/database/statement.js';

export interface PlatformKeyRow {
  id: number;
  name: string;
  scopes: string[];
  created_at: Date;
  revoked_at: Date | null;
}

/** `platform_keys`: the platform's keys, never a tenant's rows (the owner's statements). */
@Injectable()
export class PlatformKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(name: string, scopes: readonly string[], digest: Buffer): Promise<PlatformKeyRow> {
    const [row] = await this.rows<PlatformKeyRow>(sql`
      INSERT INTO platform_keys (name, scopes, digest) VALUES (${name}, ${scopes}::text[], ${digest})
      RETURNING id, name, scopes, created_at, revoked_at`);
    return row!;
  }

  list(): Promise<PlatformKeyRow[]> {
    return this.rows(sql`
      SELECT id, name, scopes, created_at, revoked_at FROM platform_keys ORDER BY id`);
  }

  /** The key revoked now, or as it was when revoked before; undefined when there is none. */
  async revoke(id: number): Promise<PlatformKeyRow | undefined> {
    // through a CTE: TypeORM answers a bare UPDATE with [rows, count]
    const [row] = await this.rows<PlatformKeyRow>(sql`
      WITH revoked AS (
        UPDATE platform_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = ${id}
        RETURNING id, name, scopes, created_at, revoked_at)
      SELECT * FROM revoked`);
    return row;
  }

  /**
   * The live key with this digest, and `credential_generation` as of the same snapshot: a key
   * verified at that generation is verified again once a credential change commits after it.
   */
  async activeByDigest(
    digest: Buffer,
  ): Promise<(PlatformKeyRow & { generation: string }) | undefined> {
    const [row] = await this.rows<PlatformKeyRow & { generation: string }>(sql`
      SELECT id, name, scopes, created_at, revoked_at,
             ${fragment(CREDENTIAL_GENERATION)} AS generation
        FROM platform_keys
       WHERE digest = ${digest} AND revoked_at IS NULL`);
    return row;
  }

  private rows<R>(statement: Statement<R>): Promise<R[]> {
    return this.db.query(statement.text, statement.values);
  }
}
