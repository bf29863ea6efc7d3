import { describe, expect, it } from 'vitest';
import { substitute } from '../../../../src/app/config/interpolate.js';

const env = { HOST: 'example.org', EMPTY: '', PORT: '8080' };

describe('substitute', () => {
  it('replaces ${NAME} with the variable, anywhere in the text and as often as it appears', () => {
    expect(substitute('https://${HOST}:${PORT}/api/v1 (${HOST})', env)).toEqual({ text: 'https://example.org:8080/api/v1 (example.org)', problems: [] });
  });

  it('uses the default of ${NAME:-default} when the variable is unset or empty, the value otherwise', () => {
    expect(substitute('${MISSING:-fallback}|${EMPTY:-fallback}|${HOST:-fallback}|${MISSING:-}', env).text).toBe('fallback|fallback|example.org|');
    expect(substitute('${MISSING:-a:-b c}', env).text).toBe('a:-b c');
  });

  it('keeps an empty variable without default as empty, and reports each unset one by name', () => {
    expect(substitute('[${EMPTY}]', env)).toEqual({ text: '[]', problems: [] });
    expect(substitute('${A} and ${B_2}', env).problems).toEqual(['environment variable A is not set', 'environment variable B_2 is not set']);
  });

  it('turns $${ into a literal ${ and leaves other dollars alone', () => {
    expect(substitute('cost $5, $${HOST} and $$${HOST}', env)).toEqual({ text: 'cost $5, ${HOST} and $${HOST}', problems: [] });
  });

  it('rejects malformed placeholders and names outside [A-Za-z_][A-Za-z0-9_]*', () => {
    for (const bad of ['${}', '${1X}', '${A-B}', '${A:default}', '${UNCLOSED']) {
      const r = substitute(bad, env);
      expect(r.problems, bad).toHaveLength(1);
      expect(r.problems[0]).toMatch(/^invalid placeholder/);
    }
  });
});
