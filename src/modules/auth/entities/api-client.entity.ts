import { Column, Entity, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';

@Entity('api_clients')
@Index('api_clients_tenant', ['tenantId'])
export class ApiClient {
  @IdColumn()
  id!: number;

  @TenantIdColumn('api_clients')
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

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
