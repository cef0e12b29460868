import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { ApiClient } from './api-client.entity.js';

@Entity('access_tokens')
@Index('access_tokens_expiry', ['expiresAt'])
@Index('access_tokens_client', ['apiClientId'])
@Index('access_tokens_revoked', ['revokedAt'], { where: 'revoked_at IS NOT NULL' })
export class AccessToken {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'access_tokens_tenant_id_fkey' })
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
