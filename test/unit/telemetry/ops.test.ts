import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../../src/telemetry/metrics.js';
import { DEFAULT_CONTROL_PORT } from '../../../src/telemetry/server.js';

const OPS = resolve(import.meta.dirname, '../../../ops');

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly uid: string };
  readonly targets?: ReadonlyArray<{ readonly expr: string }>;
}

const dashboard = JSON.parse(readFileSync(resolve(OPS, 'grafana/perpbot.json'), 'utf8')) as {
  schemaVersion: number;
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
};
const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

/** Series names the registry exports: every `# TYPE` name, plus _bucket/_sum/_count of histograms. */
async function exportedNames(): Promise<Set<string>> {
  const text = await createMetrics().text();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

describe('ops/grafana/perpbot.json', () => {
  it('uses only metric names the registry exports', async () => {
    const exported = await exportedNames();
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b(?:perpbot|process|nodejs)_\w+/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('charts every perpbot metric', async () => {
    const perpbot = [...(await exportedNames())].filter((n) => n.startsWith('perpbot_') && !/_(bucket|sum|count)$/.test(n));
    const bases = (name: string) => [name, `${name}_bucket`, `${name}_sum`, `${name}_count`];
    const unused = perpbot.filter((name) => !exprs.some((e) => bases(name).some((b) => new RegExp(`\\b${b}\\b`).test(e))));
    expect(unused).toEqual([]);
  });

  it('is an importable dashboard: schema 39, unique panel ids, every query on the templated Prometheus data source', () => {
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.uid).toBe('perpbot');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const p of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(p.datasource?.uid, p.title).toBe('${datasource}');
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
    }
  });
});

describe('ops/prometheus/prometheus.yml', () => {
  it('scrapes job perpbot on the default port every 5 s', () => {
    const config = parse(readFileSync(resolve(OPS, 'prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; scrape_interval: string; static_configs: Array<{ targets: string[] }> }>;
    };
    const job = config.scrape_configs.find((c) => c.job_name === 'perpbot');
    expect(job).toMatchObject({ scrape_interval: '5s', static_configs: [{ targets: [`127.0.0.1:${DEFAULT_CONTROL_PORT}`] }] });
  });
});

/** Every `perpbot_*` name written as a string literal in src/ (metrics registered outside createMetrics). */
function namesInSource(dir = resolve(OPS, '../src')): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) for (const n of namesInSource(path)) names.add(n);
    else if (path.endsWith('.ts')) for (const [, n] of readFileSync(path, 'utf8').matchAll(/'(perpbot_[a-z0-9_]+)'/g)) names.add(n!);
  }
  return names;
}

describe('ops/prometheus/alerts.yml', () => {
  const rules = parse(readFileSync(resolve(OPS, 'prometheus/alerts.yml'), 'utf8')) as {
    groups: Array<{ name: string; rules: Array<{ alert: string; expr: string; labels: { severity: string }; annotations: { summary: string } }> }>;
  };
  const all = rules.groups.flatMap((g) => g.rules);

  it('alerts on the daemon down, stale data, HALTED and REDUCING, denials and rejects, strategy failures, nonce lead, journal size and journal write failures', () => {
    expect(all.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'PerpbotDown',
        'PerpbotDataStale',
        'PerpbotTradingHalted',
        'PerpbotTradingReducing',
        'PerpbotRiskDenialRate',
        'PerpbotStrategyAllDenied',
        'PerpbotVenueRejectRate',
        'PerpbotStrategyFailed',
        'PerpbotNonceLeadHigh',
        'PerpbotJournalLarge',
        'PerpbotJournalWriteFailed',
      ]),
    );
    for (const r of all) {
      expect(['warning', 'critical'], r.alert).toContain(r.labels.severity);
      expect(r.annotations.summary, r.alert).toMatch(/\{\{ \$labels\.instance \}\}/);
    }
  });

  it('uses only metric names the daemon exports', async () => {
    const exported = new Set([...(await exportedNames()), ...namesInSource()]);
    const used = new Set(all.flatMap((r) => [...r.expr.matchAll(/\bperpbot_\w+/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('is loaded by prometheus.yml, next to it', () => {
    const config = parse(readFileSync(resolve(OPS, 'prometheus/prometheus.yml'), 'utf8')) as { rule_files: string[] };
    expect(config.rule_files).toEqual(['alerts.yml']);
  });
});
