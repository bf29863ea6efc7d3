// `perpbot keygen [--out FILE]`: a new Ed25519 keypair file (mode 0600); prints the public key only.
// Invariant: refuses to overwrite an existing file; the secret is written only to the file.

import { writeFileSync } from 'node:fs';
import { Keypair } from '../../protocol/keys.js';
import { parseCommand, UsageError } from '../args.js';

export const keygenHelp = `perpbot keygen [--out FILE]

Creates a new Ed25519 keypair. With --out, writes it as a Solana-style JSON array
(64 byte values: seed then public key) with file mode 0600 and prints the public key.
Without --out, prints only the public key of a key that is then discarded (a dry run).`;

export function keygen(argv: string[], out: (line: string) => void): number {
  const { values } = parseCommand(argv, { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    out(keygenHelp);
    return 0;
  }
  const kp = Keypair.generate();
  if (values.out !== undefined) {
    if (!values.out) throw new UsageError('--out needs a file name');
    try {
      writeFileSync(values.out, kp.keyFileText(), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(code === 'EEXIST' ? `${values.out} already exists; refusing to overwrite a key file` : `cannot write ${values.out}: ${code}`);
    }
  }
  out(kp.publicKey);
  return 0;
}
