import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
} from 'typeorm';

@Entity('personal_access_tokens')
@Index('personal_access_tokens_tenant', ['tenantId'])
export class PersonalAccessToken {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'personal_access_tokens_tenant_id_fkey' })
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
