import { Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  BigIdColumn,
  CreatedAtColumn,
  TenantIdColumn,
} from '../../../common/database/entity-columns.js';
import { ApiClient } from './api-client.entity.js';

@Entity('access_tokens')
@Index('access_tokens_expiry', ['expiresAt'])
@Index('access_tokens_client', ['apiClientId'])
@Index('access_tokens_revoked', ['revokedAt'], { where: 'revoked_at IS NOT NULL' })
export class AccessToken {
  @BigIdColumn()
  id!: string;

  @TenantIdColumn('access_tokens')
  tenantId!: number;

  @Column({ name: 'api_client_id', type: 'int' })
  @ForeignKey(() => ApiClient, { name: 'access_tokens_api_client_id_fkey' })
  apiClientId!: number;

  @Column({ name: 'token_digest', type: 'bytea', select: false, unique: true })
  tokenDigest!: Buffer;

  @Column('text', { array: true })
  scopes!: string[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
