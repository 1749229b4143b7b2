import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const MAX_RATIO = 1.5;
/**
 * A small host (the CLI, which spawns hooks itself) and one the size of a VS Code extension
 * host with a few extensions (the extension, which spawns them through the helpers).
 */
const HOSTS = [
  { label: 'small host (CLI)', ballastMb: 0, productPath: 'prestarted' },
  { label: 'extension-host-sized host (extension)', ballastMb: 400, productPath: 'pool' },
] as const;

type Path = 'onDemand' | 'prestarted' | 'pool';

interface HostSamples extends Record<Path, number[]> {
  rssMb: number;
  bare: number[];
  bareTwo: number[];
  blockedOnDemand: number[];
  blockedPrestarted: number[];
  blockedPool: number[];
}

const PATHS: Array<{ path: Path; label: string }> = [
  { path: 'onDemand', label: 'spawned by the host on demand' },
  { path: 'prestarted', label: 'spawned by the host, prestarted shells' },
  { path: 'pool', label: 'via the spawner helpers (prestarted shells)' },
];

/**
 * Two no-op command hooks in one group (they run in parallel) against one bare spawn of the
 * same script (exec'd directly, no shell), each host in a fresh process: spawned from the
 * host (the CLI's way) on demand and with prestarted shells, and through the spawner helpers
 * (the extension's way). Prestarted shells move the fork off the hook's path, not off the
 * host: the "blocked" rows show what each path costs the host's thread per hook.
 */
const suite: BenchSuite = {
  title: 'command hooks in a host',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    for (const host of HOSTS) {
      const out = execFileSync(process.execPath, ['--import', tsx, join(__dirname, 'command-hooks-host.ts'), String(host.ballastMb)], {
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      });
      const s = JSON.parse(out) as HostSamples;
      const at = `${host.label}, ${Math.round(s.rssMb)} MB`;
      const bare = percentiles(s.bare);
      rows.push({ name: `${at}: bare spawn of a no-op sh script`, unit: 'ms', ...bare });
      // Two processes at once on this machine's cores: what two hooks cost spawned on demand.
      rows.push({
        name: `${at}: two bare spawns at once (value: / bare)`,
        unit: 'ms',
        ...percentiles(s.bareTwo),
        value: percentiles(s.bareTwo).p50 / bare.p50,
      });
      for (const { path, label } of PATHS) {
        const stats = percentiles(s[path]);
        // The target is on the path this host uses.
        const target = host.productPath === path ? { target: `<= ${MAX_RATIO}x bare spawn`, ok: stats.p50 / bare.p50 <= MAX_RATIO } : {};
        rows.push({
          name: `${at}: dispatch, 2 command hooks ${label} (value: / bare)`,
          unit: 'ms',
          ...stats,
          value: stats.p50 / bare.p50,
          ...target,
        });
      }
      const blocked = { onDemand: s.blockedOnDemand, prestarted: s.blockedPrestarted, pool: s.blockedPool };
      for (const { path, label } of PATHS)
        rows.push({ name: `${at}: host thread blocked starting a hook ${label}`, unit: 'ms', ...percentiles(blocked[path]) });
    }
    return rows;
  },
};

export default suite;
