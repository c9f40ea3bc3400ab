// No docker engine runs here, so the Dockerfile is checked statically: its stages, what each one
// installs and copies, the non-root user and the build context (.dockerignore).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerfile } from '../src/index.js';

const repoRoot = join(dockerfile, '../../..');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  body: Instruction[];
}

/** Instructions (continuations joined, comments dropped) grouped into stages by FROM. */
function parseDockerfile(text: string): { preamble: Instruction[]; stages: Stage[] } {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const preamble: Instruction[] = [];
  const stages: Stage[] = [];
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const ins = { op: m[1]!.toUpperCase(), args: m[2]!.replace(/\s+/g, ' ').trim() };
    if (ins.op === 'FROM') {
      const [, from, name] = /^(?:--platform=\S+ )?(\S+)(?: AS (\S+))?$/i.exec(ins.args) ?? [];
      stages.push({ name: name ?? String(stages.length), from: from!, body: [] });
    } else if (stages.length) stages.at(-1)!.body.push(ins);
    else preamble.push(ins);
  }
  return { preamble, stages };
}

const text = readFileSync(dockerfile, 'utf8');
const { preamble, stages } = parseDockerfile(text);
const stage = (name: string) => {
  const s = stages.find((x) => x.name === name);
  if (!s) throw new Error(`no stage ${name}`);
  return s;
};
const runs = (s: Stage) => s.body.filter((i) => i.op === 'RUN').map((i) => i.args);
/** The stage chain of a stage: itself, then the stages it is built FROM. */
const lineage = (name: string): Stage[] => {
  const s = stage(name);
  return stages.some((x) => x.name === s.from) ? [s, ...lineage(s.from)] : [s];
};
const FINAL = ['app', 'app-ffmpeg'];

test('multi-stage, on Node 24 bookworm-slim, a Node the suites run on', () => {
  expect(stages.map((s) => s.name)).toEqual(['base', 'manifests', 'build', 'prod', 'runtime', 'app-ffmpeg', 'app']);
  expect(preamble).toEqual([{ op: 'ARG', args: 'NODE_VERSION=24.21' }]);
  // CI runs the networked suites (the services apart, on NATS, MongoDB and S3, as the chart
  // runs them) on the image's release line.
  const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8').replace(/\\\n\s*/g, ' '); // continuation lines joined
  expect(ci).toMatch(/^tools\/ci\/other-node\.sh .*--networked(?:-only "[^"]*gateway\/test\/[^"]*")?\s+24\.21\.\d+$/m);
  expect(stage('base').from).toBe(['node:$', '{NODE_VERSION}-bookworm-slim'].join(''));
  // Every stage starts from base (directly or through another stage): one Node, one Debian.
  for (const s of stages) expect(lineage(s.name).at(-1)!.name).toBe('base');
  // The default target (the last stage) is the small image.
  expect(stages.at(-1)!.name).toBe('app');
});

test('the build stage installs everything and builds; the runtime gets production dependencies only', () => {
  const build = runs(stage('build')).join('\n');
  expect(build).toMatch(/npm ci --ignore-scripts/);
  expect(build).toMatch(/npm run build/);
  const prod = runs(stage('prod'));
  expect(prod).toHaveLength(1);
  expect(prod[0]).toMatch(/npm ci --omit=dev --omit=optional --ignore-scripts/);
  // Only the runnable workspaces (each has a src/main.ts): not the bench tools or the test kit.
  const workspaces = [...prod[0]!.matchAll(/ -w (\S+)/g)].map((m) => m[1]).sort();
  const runnable = ['gateway', 'console', ...readdirSync(join(repoRoot, 'services')).map((d) => `services/${d}`)].filter((d) =>
    existsSync(join(repoRoot, d, 'src', 'main.ts')),
  );
  expect(workspaces).toEqual(runnable.sort());
  expect(workspaces).toHaveLength(7);
  // The test servers the kit starts are dev dependencies: a production install leaves them out.
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  for (const testOnly of ['node_modules/s3rver', 'node_modules/jest'])
    expect({ [testOnly]: lock.packages[testOnly]?.dev }).toEqual({ [testOnly]: true });
  // What the final images copy: only the prod stage (node_modules + package.json files + dist).
  expect(
    stage('prod')
      .body.filter((i) => i.op === 'COPY')
      .map((i) => i.args),
  ).toEqual(['--from=manifests /app ./', '--from=build /out ./']);
  for (const name of FINAL) {
    const copies = stage(name)
      .body.filter((i) => i.op === 'COPY')
      .map((i) => i.args);
    expect(copies).toEqual(['--from=prod /app /app']);
  }
  // The build collects every dist folder; the manifests stage every package.json (workspaces included).
  expect(build).toMatch(/-type d -name dist -prune -print \| xargs -I\{\} cp -r --parents \{\} \/out/);
  expect(runs(stage('manifests')).join()).toMatch(/-name package\.json -o -name package-lock\.json/);
});

test('the final images run as a fixed non-root numeric user', () => {
  for (const name of FINAL) {
    const users = lineage(name).flatMap((s) => s.body.filter((i) => i.op === 'USER'));
    expect(users.length).toBeGreaterThan(0);
    const [uid, gid] = users[0]!.args.split(':').map(Number); // the nearest USER wins
    expect(uid).toBe(10001);
    expect(gid).toBe(10001);
    // Nothing runs as root after the switch.
    const body = stage(name).body;
    const userAt = body.findIndex((i) => i.op === 'USER');
    expect(body.slice(userAt).some((i) => i.op === 'RUN')).toBe(false);
  }
  expect(runs(stage('base')).join()).toMatch(/useradd --uid 10001 --gid 10001 .*--shell \/usr\/sbin\/nologin/);
});

test('ffmpeg is installed only in the media image', () => {
  const installsFfmpeg = (s: Stage) => runs(s).some((r) => /apt-get install[^&]*\bffmpeg\b/.test(r));
  expect(stages.filter(installsFfmpeg).map((s) => s.name)).toEqual(['app-ffmpeg']);
  const apt = runs(stage('app-ffmpeg')).find((r) => r.includes('apt-get install'))!;
  expect(apt).toMatch(/--no-install-recommends/);
  expect(apt).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
  // The small image carries no apt-get install at all.
  expect(
    lineage('app')
      .flatMap(runs)
      .some((r) => r.includes('apt-get')),
  ).toBe(false);
});

test('entrypoints are exec-form node, so the process receives SIGTERM itself', () => {
  const entry = (name: string) => stage(name).body.find((i) => i.op === 'ENTRYPOINT')!.args;
  expect(JSON.parse(entry('app'))).toEqual(['node']);
  expect(JSON.parse(entry('app-ffmpeg'))).toEqual(['/usr/bin/tini', '--', 'node']);
  for (const name of FINAL) {
    const cmd = JSON.parse(stage(name).body.find((i) => i.op === 'CMD')!.args) as string[];
    expect(cmd[0]).toMatch(/^(gateway|services\/\w+)\/dist\/main\.js$/);
  }
  // Kubernetes probes the processes; a HEALTHCHECK would need a gRPC client in the image.
  expect(stages.flatMap((s) => s.body).some((i) => i.op === 'HEALTHCHECK')).toBe(false);
});

test('no secrets in the image definition', () => {
  const all = [...preamble, ...stages.flatMap((s) => s.body)];
  for (const i of all.filter((x) => x.op === 'ENV' || x.op === 'ARG')) {
    expect(i.args).not.toMatch(/SECRET|PASSWORD|TOKEN|ACCESS_KEY|MONGODB_URL|NATS_URL/i);
  }
  expect(text).not.toMatch(/--mount=type=secret|\.npmrc|\.env\b/);
  const env = stage('runtime').body.find((i) => i.op === 'ENV')!.args;
  expect(env).toContain('NODE_ENV=production');
  expect(env).toContain('DATA_DIR=/tmp/media');
});

test('.dockerignore keeps dependencies, outputs, local state and credentials out of the context', () => {
  const ignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const entry of [
    '.git',
    '**/node_modules',
    '**/dist',
    '**/*.tsbuildinfo',
    '**/.data',
    '**/.env',
    '**/.env.*',
    '**/*.pem',
    '**/*.key',
  ]) {
    expect(ignore).toContain(entry);
  }
  // Nothing the build needs is ignored: sources, manifests, the lock and the tsconfig files.
  for (const needed of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.base.json',
    'proto',
    'packages',
    'services',
    'gateway',
    'tools',
    'deploy',
  ]) {
    expect(ignore).not.toContain(needed);
  }
});
