import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { BigIdColumn, TenantIdColumn } from '../../../common/database/entity-columns.js';
import { IssuedTokenColumns } from './issued-token.columns.js';
import { ApiClient } from './api-client.entity.js';

@Entity('access_tokens')
@Index('access_tokens_expiry', ['expiresAt'])
@Index('access_tokens_client', ['apiClientId'])
@Index('access_tokens_revoked', ['revokedAt'], { where: 'revoked_at IS NOT NULL' })
export class AccessToken extends IssuedTokenColumns {
  @BigIdColumn()
  id!: string;

  @TenantIdColumn('access_tokens')
  tenantId!: number;

  @Column({ name: 'api_client_id', type: 'int' })
  @ForeignKey(() => ApiClient, { name: 'access_tokens_api_client_id_fkey' })
  apiClientId!: number;
}
