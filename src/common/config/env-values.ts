/** class-transformer `@Transform`s from environment strings to typed values. */
export const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/** A port number, or `off` (false); anything else stays as it is and fails validation. */
export const toPortOrOff = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim();
  if (v.toLowerCase() === 'off') return false;
  return /^\d+$/.test(v) ? Number(v) : value;
};

export const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no', ''].includes(v)) return false;
  return value;
};

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Accepts `5mb`, `512kb`, `1048576`; anything else stays a string and fails validation. */
export const toBytes = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const m = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!m) return value;
  return Number(m[1]) * (SIZE_UNITS[(m[2] ?? 'b').toLowerCase()] ?? 1);
};
