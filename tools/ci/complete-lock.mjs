// Some registry mirrors (this project's CI among them) carry only the platform binaries of the
// machine they serve, so npm cannot record other platforms' optional packages (buf, swc, the
// ffmpeg installers) in package-lock.json, and `npm ci` then rejects the lock as out of sync.
// This adds the missing optional entries (os/cpu from the package name, no integrity): npm skips
// them on other platforms and fetches them normally where they match. Run after `npm install`:
//   node tools/ci/complete-lock.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix', 'netbsd'];
const CPU = {
  x64: 'x64',
  arm64: 'arm64',
  aarch64: 'arm64',
  arm: 'arm',
  armv7: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const added = [];
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = path.includes('node_modules/') ? `${path}/node_modules/${dep}` : undefined;
    if (pkgs[`node_modules/${dep}`] || (nested && pkgs[nested])) continue;
    const parts = dep.split('/').pop().split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.map((p) => CPU[p]).find(Boolean);
    if (!os && !cpu) continue; // not a platform binary: leave it for npm to resolve
    const entry = {
      version,
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
    };
    pkgs[`node_modules/${dep}`] = entry;
    added.push(`${dep}@${version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length} optional platform entries:\n  ${added.join('\n  ')}` : 'lock already complete');
