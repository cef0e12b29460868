/** Deeper than any document structure needs; class-transformer recurses per level. */
export const MAX_BODY_DEPTH = 100;

/**
 * Members an object or array outside free JSON may have: far more than any request's fields or
 * lists need. class-transformer's copy of an object, and the list of its unknown fields, grow
 * with the square of its width: a 1 MB body of 100,000 keys held the event loop for seconds.
 */
export const MAX_BODY_MEMBERS = 1_000;

/** Members all objects and arrays outside free JSON may have together (many narrow ones). */
export const MAX_BODY_TOTAL_MEMBERS = 10_000;

export const TOO_MANY_MEMBERS = `must not have more than ${MAX_BODY_MEMBERS} members`;
export const TOO_MANY_IN_ALL = `must not have more than ${MAX_BODY_TOTAL_MEMBERS} members in all (free JSON aside)`;
