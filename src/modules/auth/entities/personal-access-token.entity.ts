import { Column, Entity, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
} from '../../../common/database/entity-columns.js';

@Entity('personal_access_tokens')
@Index('personal_access_tokens_tenant', ['tenantId'])
export class PersonalAccessToken {
  @IdColumn()
  id!: number;

  @TenantIdColumn('personal_access_tokens')
  tenantId!: number;

  @Column('text')
  name!: string;

  @Column({ name: 'token_digest', type: 'bytea', select: false, unique: true })
  tokenDigest!: Buffer;

  @Column('text', { array: true })
  scopes!: string[];

  @Column({ name: 'allowed_ips', type: 'text', array: true, default: '{}' })
  allowedIps!: string[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
