// Runs one rendered container from a local image (buildah's storage) as the kubelet would under
// the chart's securityContext: the image's user (no capabilities left after the switch), its
// root filesystem read-only, the chart's emptyDir volumes writable, the image's environment with
// the container's on top, the image's entrypoint with the container's args, in the image's
// working directory. Host network and process namespace. Needs root (mount, chroot), no
// container engine and no cgroups.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stopProcess } from '@media/testkit';

const run = promisify(execFile);
const buildahEnv = { ...process.env, STORAGE_DRIVER: process.env.STORAGE_DRIVER ?? 'vfs' };
const buildah = async (args: string[]) => (await run('buildah', args, { env: buildahEnv, maxBuffer: 16 << 20 })).stdout.trim();

// A private mount namespace: the image's root bound onto itself, /proc, /dev and the volumes
// mounted in it, then the root made read-only (the volumes stay writable), then chroot as the
// image's user with exactly the given environment.
const LAUNCH = `set -e
mount --bind "$ROOT" "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
for v in $VOLUMES; do mount --bind "\${v%%:*}" "$ROOT\${v#*:}"; done
mount -o remount,bind,ro "$ROOT"
exec chroot --userspec="$USERSPEC" "$ROOT" /usr/bin/env -i -C "$WORKDIR" "$@"`;

export interface PodProcess {
  proc: ChildProcess;
  argv: string[];
  /** The last 20 KB of its stdout and stderr. */
  log(): string;
  /** Runs another command in the same container and environment (kubectl exec); its stdout. */
  exec(argv: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface ContainerSpec {
  args?: string[];
  volumeMounts?: { name: string; mountPath: string }[];
}

/** Starts `spec` from `image`; `env` is what the kubelet sets; volumes are made under `volumesDir`. */
/** Throws, saying how to get it, unless `image` is in buildah's local storage. */
// Each image's OCI config, read once (six containers come from two images).
const configs = new Map<string, Promise<Record<string, any>>>();
function imageConfig(image: string): Promise<Record<string, any>> {
  let config = configs.get(image);
  if (!config) {
    config = buildah(['inspect', '--type', 'image', image]).then((out) => JSON.parse(out).OCIv1.config);
    configs.set(image, config);
  }
  return config;
}

export async function assertImage(image: string): Promise<void> {
  const found = await imageConfig(image).then(
    () => true,
    () => false,
  );
  if (!found)
    throw new Error(
      `image ${image} is not in buildah's storage: build it first (docs/operations/kubernetes.md), or run tools/ci/image-smoke.sh, which builds both and runs this`,
    );
}

export async function runContainer(
  image: string,
  spec: ContainerSpec,
  env: Record<string, string>,
  volumesDir: string,
): Promise<PodProcess> {
  const config = await imageConfig(image);
  const id = await buildah(['from', '--pull=never', image]);
  const root = await buildah(['mount', id]);
  const [uid, gid] = String(config.User ?? '0:0')
    .split(':')
    .map(Number);
  // The emptyDirs: owned by the pod's fsGroup (here the image's group), mount points made
  // before the root turns read-only, as the container runtime does.
  const volumes: string[] = [];
  for (const m of spec.volumeMounts ?? []) {
    const dir = join(volumesDir, m.name);
    mkdirSync(dir, { recursive: true });
    chownSync(dir, uid ?? 0, gid ?? uid ?? 0);
    mkdirSync(join(root, m.mountPath), { recursive: true });
    volumes.push(`${dir}:${m.mountPath}`);
  }
  const fullEnv = {
    ...Object.fromEntries((config.Env ?? []).map((kv: string) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
    ...env,
  };
  const envArgs = Object.entries(fullEnv).map(([k, v]) => `${k}=${v}`);
  const launchEnv = {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    ROOT: root,
    VOLUMES: volumes.join(' '),
    USERSPEC: `${uid}:${gid ?? uid}`,
    WORKDIR: config.WorkingDir || '/',
  };
  const launch = (argv: string[]) => ['--mount', '--propagation', 'private', 'sh', '-c', LAUNCH, 'launch', ...envArgs, ...argv];

  const argv = [...(config.Entrypoint ?? []), ...(spec.args ?? config.Cmd ?? [])];
  const proc = spawn('unshare', launch(argv), { env: launchEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-20_000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  return {
    proc,
    argv,
    log: () => log,
    exec: async (cmd) => (await run('unshare', launch(cmd), { env: launchEnv })).stdout,
    async stop() {
      // The kubelet's stop; the group: unshare, sh, chroot and env exec'd into one process.
      await stopProcess(proc, { graceMs: 10_000, group: true });
      await buildah(['umount', id]).catch(() => undefined);
      await buildah(['rm', id]).catch(() => undefined);
    },
  };
}
