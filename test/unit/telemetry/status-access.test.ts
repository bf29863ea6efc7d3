import { describe, expect, it } from 'vitest';
import { isLoopback, mayReadStatus } from '../../../src/telemetry/server.js';

const TOKEN = 'k3y-for-tests-0123456789';

describe('control server: who may read /status', () => {
  it('recognises loopback peers in every notation the socket reports', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a), a).toBe(true);
    for (const a of ['10.0.0.5', '192.168.1.2', '172.17.0.1', '::ffff:10.0.0.5', 'fe80::1', '::', '0.0.0.0', '128.0.0.1', '127.0.0.1.evil', undefined]) {
      expect(isLoopback(a), String(a)).toBe(false);
    }
  });

  it('serves a loopback peer without a token', () => {
    expect(mayReadStatus('127.0.0.1', undefined, '')).toBe(true);
    expect(mayReadStatus('::1', undefined, TOKEN)).toBe(true);
  });

  it('refuses a remote peer without the token, and always when no token is configured', () => {
    expect(mayReadStatus('172.17.0.1', undefined, TOKEN)).toBe(false);
    expect(mayReadStatus('172.17.0.1', 'Bearer wrong', TOKEN)).toBe(false);
    expect(mayReadStatus('172.17.0.1', undefined, '')).toBe(false);
    expect(mayReadStatus('172.17.0.1', 'Bearer ', '')).toBe(false);
  });

  it('serves a remote peer that presents the control token', () => {
    expect(mayReadStatus('172.17.0.1', `Bearer ${TOKEN}`, TOKEN)).toBe(true);
  });
});
