import { ApiProperty } from '@nestjs/swagger';

export const NEXT_CURSOR_DESCRIPTION =
  'Pass as `cursor` to read the next page; `null` on the last page. A client that reads only ' +
  '`data` gets the whole list whenever it has at most `limit` items (1000 by default).';

/** `next_cursor` of `{ data, next_cursor }`; list responses extend it and add `data`. */
export class CursorPageResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: NEXT_CURSOR_DESCRIPTION,
  })
  next_cursor!: string | null;
}
