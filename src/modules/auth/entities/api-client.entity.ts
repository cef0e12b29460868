import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

@Entity('api_clients')
@Index('api_clients_tenant', ['tenantId'])
export class ApiClient {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'api_clients_tenant_id_fkey' })
  tenantId!: number;

  @Column({ name: 'client_id', type: 'text', unique: true })
  clientId!: string;

  @Column('text')
  name!: string;

  @Column({ name: 'secret_digest', type: 'bytea', select: false })
  secretDigest!: Buffer;

  @Column('text', { array: true })
  scopes!: string[];

  @Column({ name: 'allowed_ips', type: 'text', array: true, default: '{}' })
  allowedIps!: string[];

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
