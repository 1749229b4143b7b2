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
  { label: 'small host (CLI)', ballastMb: 0, productPath: 'direct' },
  { label: 'extension-host-sized host (extension)', ballastMb: 400, productPath: 'pool' },
] as const;

interface HostSamples {
  rssMb: number;
  bare: number[];
  bareTwo: number[];
  direct: number[];
  pool: number[];
  blockedDirect: number[];
  blockedPool: number[];
}

/**
 * Two no-op command hooks in one group (they run in parallel) against one bare spawn of the
 * same script, each host in a fresh process: spawned from the host itself (the CLI's way),
 * and through the spawner helpers (the extension's way).
 */
const suite: BenchSuite = {
  title: 'command hooks in a host',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    for (const host of HOSTS) {
      const out = execFileSync(process.execPath, ['--import', tsx, join(__dirname, 'command-hooks-host.ts'), String(host.ballastMb)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
      const s = JSON.parse(out) as HostSamples;
      const at = `${host.label}, ${Math.round(s.rssMb)} MB`;
      const bare = percentiles(s.bare);
      const direct = percentiles(s.direct);
      const pool = percentiles(s.pool);
      // The target is on the path this host uses.
      const target = (stats: { p50: number }, path: 'direct' | 'pool') =>
        host.productPath === path ? { target: `<= ${MAX_RATIO}x bare spawn`, ok: stats.p50 / bare.p50 <= MAX_RATIO } : {};
      rows.push({ name: `${at}: bare spawn of a no-op sh script`, unit: 'ms', ...bare });
      // Two processes at once on this machine's cores: the floor for two hooks in parallel.
      rows.push({ name: `${at}: two bare spawns at once (value: / bare)`, unit: 'ms', ...percentiles(s.bareTwo), value: percentiles(s.bareTwo).p50 / bare.p50 });
      rows.push({ name: `${at}: dispatch, 2 command hooks spawned by the host (value: / bare)`, unit: 'ms', ...direct, value: direct.p50 / bare.p50, ...target(direct, 'direct') });
      rows.push({ name: `${at}: dispatch, 2 command hooks via the spawner helpers (value: / bare)`, unit: 'ms', ...pool, value: pool.p50 / bare.p50, ...target(pool, 'pool') });
      rows.push({ name: `${at}: host thread blocked starting a hook, spawned by the host`, unit: 'ms', ...percentiles(s.blockedDirect) });
      rows.push({ name: `${at}: host thread blocked starting a hook, via the spawner helpers`, unit: 'ms', ...percentiles(s.blockedPool) });
    }
    return rows;
  },
};

export default suite;
