// Binding a server's port with an error a person can act on: which setting to change when the port is taken.
// Invariant: only the bind errors a setting can fix (EADDRINUSE, EACCES, EADDRNOTAVAIL) become ConfigErrors; others pass.

import { ConfigError } from '../core/errors.js';

/**
 * `listening`, or a ConfigError naming `key` (how the setting is written in messages, e.g. `telemetry.port`) and what to
 * change when its port is taken or cannot be bound. `where` adds how else the setting is given (an environment variable).
 */
export async function bound<T>(key: string, host: string, port: number, listening: Promise<T>, where = ''): Promise<T> {
  try {
    return await listening;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const setting = where ? `${key} (${where})` : key;
    if (code === 'EADDRINUSE')
      throw new ConfigError(key, `port ${port} on ${host} is in use (another perpbot?): set ${setting} to a free port, or 0 to pick one`, undefined, {
        cause: e,
      });
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new ConfigError(key, `cannot listen on ${host}:${port} (${code}): change ${setting} or its host`, undefined, { cause: e });
    throw e;
  }
}
