import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

@Entity('api_clients')
export class ApiClient {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column('text')
  name!: string;

  @Column({ name: 'secret_digest', type: 'bytea', select: false })
  secretDigest!: Buffer;

  @Column('text', { array: true })
  scopes!: string[];

  @Column({ name: 'allowed_ips', type: 'text', array: true })
  allowedIps!: string[];

  @Column('boolean')
  enabled!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
