// The container image's promises, read from the Dockerfile and the README (no Docker engine runs here).
// Invariant: the health check, the server and the docs agree on one port setting and one stop budget.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLOSE_MARGIN_MS } from '../../src/app/commands/run.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dockerfile = readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const config = parse(readFileSync(resolve(ROOT, 'config/default.yaml'), 'utf8')) as { shutdown: { deadlineMs: number } };

/** Node's Active LTS line on the date of this change (Node 26 entered Active LTS on 2026-10-28). */
const CURRENT_LTS = 26;

/** Instructions of the Dockerfile with continuation lines joined. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));

describe('Dockerfile', () => {
  it(`builds and runs on the current Node LTS (${CURRENT_LTS})`, () => {
    const froms = instructions.filter((l) => l.startsWith('FROM '));
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(new RegExp(`^FROM node:${CURRENT_LTS}-`));
  });

  it('health-checks the port the server binds: both read PERPBOT_METRICS_PORT', () => {
    const configText = readFileSync(resolve(ROOT, 'config/default.yaml'), 'utf8');
    expect(configText).toMatch(/^ {2}port: \$\{PERPBOT_METRICS_PORT:-\d+\}/m);
    const env = instructions.find((l) => l.startsWith('ENV ') && /PERPBOT_METRICS_PORT=\d+/.test(l));
    expect(env, 'ENV PERPBOT_METRICS_PORT').toBeDefined();
    const health = instructions.find((l) => l.startsWith('HEALTHCHECK '));
    expect(health).toMatch(/process\.env\.PERPBOT_METRICS_PORT/);
    expect(health).not.toMatch(/:9464\b/);
    expect(instructions.find((l) => l.startsWith('EXPOSE '))).toBe('EXPOSE ${PERPBOT_METRICS_PORT}');
  });

  it("stops with SIGTERM and documents a stop timeout longer than the daemon's shutdown deadline", () => {
    expect(instructions).toContain('STOPSIGNAL SIGTERM');
    const budgetMs = config.shutdown.deadlineMs + CLOSE_MARGIN_MS;
    const documented = [
      ...readme.matchAll(/docker (?:stop -t|run --stop-timeout) (\d+)/g),
      ...dockerfile.matchAll(/docker (?:stop -t|run --stop-timeout) (\d+)/g),
    ];
    expect(documented.length).toBeGreaterThanOrEqual(2);
    for (const m of documented) expect(Number(m[1]) * 1000, m[0]).toBeGreaterThan(budgetMs);
  });

  it('documents how to add your own strategies to the image', () => {
    const section = readme.slice(readme.indexOf('### Your own strategies in the image'));
    expect(section.length).toBeGreaterThan(100);
    expect(section).toMatch(/^FROM perpbot/m);
    expect(section).toMatch(/COPY .*\.js \/app\/strategies-local\//);
    expect(section).toMatch(/\.\.\/dist\/src\/strategy\/api\.js/);
  });
});
