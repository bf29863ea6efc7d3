import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/app/args.js';
import { newCommand } from '../../../../src/app/commands/new.js';
import { readYamlDocument } from '../../../../src/app/yaml-config.js';

function run(argv: string[]): string[] {
  const lines: string[] = [];
  newCommand(argv, (l) => lines.push(l));
  return lines;
}

describe('perpbot new strategy', () => {
  it('writes the strategy, its test and a config naming it, into --dir', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'perpbot-new-')), 'bots');
    const lines = run(['strategy', 'my-bot', '--dir', dir]);
    expect(lines.slice(0, 3).map((l) => l.replace(/^wrote .*\//, ''))).toEqual(['my-bot.ts', 'my-bot.test.ts', 'my-bot.yaml']);
    expect(readFileSync(join(dir, 'my-bot.ts'), 'utf8')).toContain("name: 'my-bot'");
    expect(readFileSync(join(dir, 'my-bot.test.ts'), 'utf8')).toContain("import strategy from './my-bot.js'");
    const config = readYamlDocument(readFileSync(join(dir, 'my-bot.yaml'), 'utf8'), 'my-bot.yaml').data as { strategies: Array<{ module: string }> };
    expect(config.strategies[0]!.module).toBe('./my-bot.ts');
  });

  it('refuses to overwrite any of the three files, writing none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-new-'));
    writeFileSync(join(dir, 'taken.yaml'), 'mine');
    expect(() => run(['strategy', 'taken', '--dir', dir])).toThrow(/taken\.yaml already exists; refusing to overwrite/);
    expect(() => readFileSync(join(dir, 'taken.ts'))).toThrow();
    expect(readFileSync(join(dir, 'taken.yaml'), 'utf8')).toBe('mine');
  });

  it('validates the kind and NAME', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-new-'));
    for (const name of ['My-Bot', '1bot', 'bot_1', 'bot-', '../bot', 'a'.repeat(65)]) {
      expect(() => run(['strategy', name, '--dir', dir])).toThrow(UsageError);
    }
    expect(() => run(['strategy', '--dir', dir])).toThrow('missing NAME');
    expect(() => run(['widget', 'x'])).toThrow('expected "new strategy NAME"');
  });
});
