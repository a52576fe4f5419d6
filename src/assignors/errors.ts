import { BrookError } from '../protocol/errors.js';

/** Bad input to an assignor (duplicate member ids, an unknown assignor name) or a broken invariant. */
export class AssignorError extends BrookError {
  override readonly code = 'ERR_ASSIGNOR' as const;
}
