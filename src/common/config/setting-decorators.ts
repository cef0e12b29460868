import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { toBool, toInt } from './env-values.js';
import { stacked } from '../decorators/stacked.js';

/** An integer variable within `min` (and `max`, when given). */
export function IntSetting(range: { min: number; max?: number }): PropertyDecorator {
  const bounds = [Min(range.min), ...(range.max === undefined ? [] : [Max(range.max)])];
  return stacked(Transform(toInt), IsInt(), ...bounds);
}

/** A boolean variable (`true`/`false`, as `toBool` reads them). */
export function BoolSetting(): PropertyDecorator {
  return stacked(Transform(toBool), IsBoolean());
}
