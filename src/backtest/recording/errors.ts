// The recording's error: a PerpbotError with code RECORDING that names the file and, where there is one, the byte offset
// or header field at fault. Invariant: a message never carries event contents.

import { PerpbotError } from '../../core/errors.js';

export class RecordingError extends PerpbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RECORDING', message, options);
  }
}
