// The journal's error: a PerpbotError with code JOURNAL that names the journal file when one is involved.
// Invariant: messages carry paths and ids only, never row contents such as signed bodies.

import { PerpbotError } from '../core/errors.js';

export class JournalError extends PerpbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('JOURNAL', message, options);
  }
}
