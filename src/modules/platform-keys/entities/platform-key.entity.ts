import { Check, Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn } from '../../../common/database/entity-columns.js';

/** A key of the host platform (`gpk_…`): not a tenant's row, it acts across tenants. */
@Entity('platform_keys')
@Check('platform_keys_name_check', 'char_length(name) BETWEEN 1 AND 200')
export class PlatformKeyEntity {
  @IdColumn()
  id!: number;

  @Column('text')
  name!: string;

  @Column('text', { array: true })
  scopes!: string[];

  @Column({ type: 'bytea', unique: true, select: false })
  digest!: Buffer;

  @CreatedAtColumn()
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
