import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@svc/test-kit';
import { collectProcessMetrics, metricsRegistry } from '../../src/metrics/registry';

/** Issue 26: the example alert rules pass `promtool check rules`; they and the dashboard name only real metrics. */
const root = repoRoot();
const ALERTS = path.join(root, 'deploy/prometheus/alerts.yml');
const DASHBOARD = path.join(root, 'deploy/grafana/svc-dashboard.json');

/** The metric names an expression uses (svc_, nodejs_ and process_ ones), without histogram suffixes. */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b((?:svc|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''));

describe('deploy/: alert rules and Grafana dashboard', () => {
  // what a server serving metrics exports: its own and the process metrics
  collectProcessMetrics();
  const known = new Set(metricsRegistry.getMetricsAsArray().map((m) => m.name));

  it('alerts.yml passes promtool check rules', () => {
    const check = spawnSync('/usr/bin/promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
    expect(check.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('the rules and the dashboard use only metrics the API exports', () => {
    const rules = readFileSync(ALERTS, 'utf8');
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const used = [
      ...metricsIn(rules),
      ...dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricsIn(target.expr))),
    ];
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((name) => !known.has(name))).toEqual([]);
    expect(dashboard.panels.every((panel) => panel.targets.length > 0)).toBe(true);
  });
});
