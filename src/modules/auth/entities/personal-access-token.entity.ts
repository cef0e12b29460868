import { Column, Entity, Index } from 'typeorm';
import { IdColumn, TenantIdColumn } from '../../../common/database/entity-columns.js';
import { IssuedTokenColumns } from './issued-token.columns.js';

@Entity('personal_access_tokens')
@Index('personal_access_tokens_tenant', ['tenantId'])
export class PersonalAccessToken extends IssuedTokenColumns {
  @IdColumn()
  id!: number;

  @TenantIdColumn('personal_access_tokens')
  tenantId!: number;

  @Column('text')
  name!: string;

  @Column({ name: 'allowed_ips', type: 'text', array: true, default: '{}' })
  allowedIps!: string[];
}
