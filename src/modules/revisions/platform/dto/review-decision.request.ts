import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, ValidateBy } from 'class-validator';
import { DECISION_NOTE_MAX } from '../../revision-decision.service.js';

/** The body of an accept or a reject: closed (an unknown member is 400 `validation_failed`). */
@ApiSchema({ name: 'PlatformReviewDecisionRequest' })
export class ReviewDecisionRequest {
  @ApiPropertyOptional({
    type: 'string',
    maxLength: DECISION_NOTE_MAX,
    description: `Why (stored as \`decision_note\`). At most ${DECISION_NOTE_MAX} characters (Unicode code points); no U+0000.`,
    example: 'approved in review',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @ValidateBy({
    name: 'decisionNote',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' &&
        [...value].length <= DECISION_NOTE_MAX &&
        !value.includes('\u0000'),
      defaultMessage: () =>
        `must be at most ${DECISION_NOTE_MAX} characters, without the NUL character (U+0000)`,
    },
  })
  note?: string;
}
