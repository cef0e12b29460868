import { Transform } from 'class-transformer';
import { IsOptional, IsString, MinLength, ValidateBy } from 'class-validator';

import { toPortOrOff } from './env-values.js';
import { IntSetting } from './setting-decorators.js';
import { DatabaseSettings } from './database-settings.js';

/** AppConfig's settings of /metrics and the platform listener (issue 34), after the others. */
export class ListenerSettings extends DatabaseSettings {
  /**
   * When set, `/metrics` is also served on the API port to requests with
   * `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise); unset, it is not served there at all.
   */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /** When set, a listener of its own on METRICS_HOST serves `GET /metrics` (0: a free port). */
  @IsOptional()
  @IntSetting({ min: 0, max: 65535 })
  METRICS_PORT?: number;

  /** Where the METRICS_PORT listener listens: loopback unless the scraper runs elsewhere. */
  @IsString()
  METRICS_HOST = '127.0.0.1';

  /**
   * The platform listener's port (`off`: none; 0: a free port). For now it serves `/metrics`
   * only; the platform API will be served there.
   */
  @Transform(toPortOrOff)
  @ValidateBy({
    name: 'portOrOff',
    validator: {
      validate: (value: unknown) =>
        value === false ||
        (Number.isInteger(value) && Number(value) >= 0 && Number(value) <= 65535),
      defaultMessage: () => 'PLATFORM_API_PORT must be a port (0..65535) or off',
    },
  })
  PLATFORM_API_PORT: number | false = 3001;

  /** Where the platform listener listens: loopback, the platform's own machine, by default. */
  @IsString()
  PLATFORM_API_HOST = '127.0.0.1';
}
