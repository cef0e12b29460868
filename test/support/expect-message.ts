/**
 * An assertion with a message (jest's `expect` takes one argument): runs `assertion` and, if it
 * fails, heads its failure with `message` (which request, which path, the CLI's output). The
 * assertion itself is unchanged.
 */
export function withMessage(message: string, assertion: () => void): void {
  try {
    assertion();
  } catch (err) {
    if (err instanceof Error) err.message = `${message}\n\n${err.message}`;
    throw err;
  }
}
