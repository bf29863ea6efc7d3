// The Kubernetes manifests of ops/kubernetes/ (no cluster runs here): they parse, and their arguments are the CLI's
// real syntax, pod <i> of the Indexed Job running shard i of n into its own directory and the merge Job joining them all.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseMergeArgs, parseSweepArgs } from '../../src/app/commands/sweep.js';

const ROOT = resolve(import.meta.dirname, '../..');

function manifest(name: string): any {
  const docs = parseAllDocuments(readFileSync(resolve(ROOT, 'ops/kubernetes', name), 'utf8'));
  if (!Array.isArray(docs) || docs.length !== 1) throw new Error(`${name}: expected one YAML document`);
  expect(docs[0]!.errors).toEqual([]);
  return docs[0]!.toJS();
}

describe('ops/kubernetes', () => {
  const pvc = manifest('sweep-pvc.yaml');
  const job = manifest('sweep-job.yaml');
  const mergeJob = manifest('sweep-merge-job.yaml');
  const [container] = job.spec.template.spec.containers;
  /** The options of pod i's command line, its index put in as Kubernetes does. */
  const shard = (i: number) => {
    const args = (container.args as string[]).map((a) => a.replaceAll('$(JOB_COMPLETION_INDEX)', String(i)));
    expect(args[0]).toBe('sweep');
    const parsed = parseSweepArgs(args.slice(1));
    if (parsed === 'help') throw new Error('the Job asks for help');
    return parsed;
  };
  const shardDirs = Array.from({ length: job.spec.completions as number }, (_, i) => shard(i).outDir);

  it('the Indexed Job runs shard JOB_COMPLETION_INDEX of completions per pod, each into its own directory', () => {
    expect(job).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', spec: { completionMode: 'Indexed' } });
    const n = job.spec.completions as number;
    expect(container.command).toBeUndefined();
    expect(container.env).toContainEqual({
      name: 'JOB_COMPLETION_INDEX',
      valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
    });
    for (let i = 0; i < n; i++) {
      expect(shard(i).shard).toEqual({ index: i, count: n });
      expect(shard(i).outDir.startsWith(`${container.volumeMounts[0].mountPath}/`)).toBe(true);
    }
    expect(new Set(shardDirs).size).toBe(n);
  });

  it('the merge Job joins exactly the shard directories', () => {
    const [merger] = mergeJob.spec.template.spec.containers;
    expect(merger.args.slice(0, 2)).toEqual(['sweep', 'merge']);
    const parsed = parseMergeArgs(merger.args.slice(2));
    if (parsed === 'help') throw new Error('help');
    expect(parsed.dirs).toEqual(shardDirs);
    expect(shardDirs).not.toContain(parsed.outDir);
  });

  it('both Jobs mount the shared claim, and the claim can be shared across nodes', () => {
    expect(pvc).toMatchObject({ kind: 'PersistentVolumeClaim', spec: { accessModes: ['ReadWriteMany'] } });
    for (const j of [job, mergeJob]) {
      expect(j.spec.template.spec.volumes).toEqual([{ name: 'sweep', persistentVolumeClaim: { claimName: pvc.metadata.name } }]);
      expect(j.spec.template.spec.containers[0].volumeMounts).toEqual([{ name: 'sweep', mountPath: '/sweep' }]);
    }
  });

  it("the image's entrypoint is the perpbot CLI, so the Jobs' args are its arguments", () => {
    const dockerfile = readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ENTRYPOINT \[.*"dist\/src\/cli\.js"\]$/m);
  });
});
