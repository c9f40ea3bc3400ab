// Staging a planned task: every file ffmpeg will read is put in the job's work directory by the
// service, and nothing else is there. A media input is one file (in/<i>), probed against the
// demuxer allow-list; an image sequence is exactly the uploaded files of its pattern, from the
// lowest number up to the first gap (in/<i>/<name>); a concat list's entries are staged and probed
// one by one and the list rewritten to name only those copies (in/<i>/list.ffconcat); a side file
// (font, subtitles, text) is staged where the plan's filter options point (side/<i>.<ext>); a
// generated input (-f lavfi) is its checked graph, with nothing staged.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { DomainError, Errors } from '@media/platform';
import type { OpenInput } from '../ffmpeg/argv.js';
import type { WarnLogger } from '../ffmpeg/binaries.js';
import type { ProbedInput } from '../ffmpeg/probe-input.js';
import { FfmpegErrors } from '../ffmpeg/errors.js';
import { concatDurationSec, sequenceTiming } from '../ffmpeg/planned-duration.js';
import {
  checkDemuxerOptions,
  parseConcatList,
  writeConcatList,
  type ConcatList,
  type PlannedInput,
  type TaskPlan,
} from '../policy/index.js';
import { extensionOf } from '../policy/file-name.js';
import { SIDE_DIR } from '../policy/plan/side-files.js';
import { numberedPatternRegex, parseNumberedPattern } from '../policy/numbered-pattern.js';
import { probeStaged } from './media-probe.js';
import { MAX_FILE_BYTES, resolveInputs, stageFile, type ResolvedInput, type StageableInput, type StagingDeps } from './staging.js';

/** Most files an image sequence may stand for. */
export const MAX_SEQUENCE_FILES = 10_000;
/** A concat list is text; past this it is refused before it is read further. */
export const MAX_CONCAT_LIST_BYTES = 256 * 1024;
/** Files resolved at once (each is a Storage call). */
const RESOLVE_BATCH = 32;

/** One planned input with the files it stands for, resolved before admission (404 / 403 early). */
export interface ResolvedPlanInput {
  planned: PlannedInput;
  /** media and side: the file; sequence: its frames in order; concat: each distinct entry. */
  files: ResolvedInput[];
  sequence?: { first: number; pattern: string };
  concat?: { list: ConcatList; entryFile: number[]; listBytes: number };
}

async function inBatches<T, R>(items: readonly T[], fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += RESOLVE_BATCH) out.push(...(await Promise.all(items.slice(i, i + RESOLVE_BATCH).map(fn))));
  return out;
}

async function resolveSequence(deps: StagingDeps, accountId: string, p: PlannedInput): Promise<ResolvedPlanInput> {
  if (p.source.kind !== 'uploaded') throw new TypeError('a sequence is uploaded');
  const { dirId, fileName } = p.source;
  const pattern = parseNumberedPattern(fileName);
  if (pattern === null || typeof pattern === 'string') throw new TypeError(`not a numbered pattern: ${fileName}`);
  const re = numberedPatternRegex(fileName);
  const { files } = await deps.storage.listFiles({ accountId, dirId });
  const numbers = new Map<number, string>();
  for (const f of files) {
    if (!f.uploaded || !re.test(f.fileName)) continue;
    const digits = f.fileName.slice(pattern.prefix.length, f.fileName.length - pattern.suffix.length);
    numbers.set(Number(digits), f.fileName);
  }
  if (numbers.size === 0)
    throw Errors.invalidRequest(`task.inputs[${p.index}].file_path '${fileName}' matches no uploaded file of directory ${dirId}`);
  const first = p.startNumber ?? Math.min(...numbers.keys());
  if (!numbers.has(first)) {
    throw Errors.invalidRequest(
      `task.inputs[${p.index}] starts at number ${first} (-start_number), but no uploaded file of '${fileName}' has that number in directory ${dirId}`,
    );
  }
  // ffmpeg's image2 reads from the first number up to the first gap: that run is what it sees.
  const names: string[] = [];
  for (let n = first; numbers.has(n); n++) {
    if (names.length >= MAX_SEQUENCE_FILES)
      throw Errors.invalidRequest(`task.inputs[${p.index}] names an image sequence of more than ${MAX_SEQUENCE_FILES} files`);
    names.push(numbers.get(n)!);
  }
  const resolved = await inBatches(
    names,
    async (name) => (await resolveInputs(deps, accountId, [{ kind: 'uploaded', dirId, fileName: name }]))[0]!,
  );
  return { planned: p, files: resolved, sequence: { first, pattern: fileName } };
}

async function readSmallFile(
  deps: StagingDeps,
  accountId: string,
  dirId: string,
  fileName: string,
  max: number,
  where: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const abort = new AbortController();
  for await (const m of deps.storage.readFile({ file: { accountId, dirId, fileName } }, { signal: abort.signal })) {
    size += m.chunk.length;
    if (size > max) {
      abort.abort();
      throw Errors.invalidRequest(`${where} is larger than ${max / 1024} KB; a concat list is a short text file`);
    }
    chunks.push(Buffer.from(m.chunk));
  }
  return Buffer.concat(chunks);
}

async function resolveConcat(deps: StagingDeps, accountId: string, p: PlannedInput): Promise<ResolvedPlanInput> {
  if (p.source.kind !== 'uploaded') throw new TypeError('a concat list is uploaded');
  const { dirId, fileName } = p.source;
  const where = `Concat list '${fileName}'`;
  await resolveInputs(deps, accountId, [p.source]); // 404 for a missing list
  const text = await readSmallFile(deps, accountId, dirId, fileName, MAX_CONCAT_LIST_BYTES, where);
  const list = parseConcatList(text.toString('utf8'), where);
  const distinct = [...new Set(list.entries.map((e) => e.file))];
  const files = await inBatches(
    distinct,
    async (name) => (await resolveInputs(deps, accountId, [{ kind: 'uploaded', dirId, fileName: name }]))[0]!,
  );
  return { planned: p, files, concat: { list, entryFile: list.entries.map((e) => distinct.indexOf(e.file)), listBytes: text.length } };
}

/** A side file named only in a filter: its 404 says where it was looked for and how to name it. */
async function resolveNamedSide(deps: StagingDeps, accountId: string, source: StageableInput): Promise<ResolvedInput[]> {
  try {
    return await resolveInputs(deps, accountId, [source]);
  } catch (err) {
    if (source.kind !== 'uploaded' || ConnectError.from(err).code !== Code.NotFound) throw err;
    throw new DomainError(
      'not_found',
      `File '${source.fileName}', named in a filter of the task, is not in directory ${source.dirId} (the directory of the task's inputs): upload it there, or add it to task.inputs`,
    );
  }
}

/** Before admission: every file the plan reads exists (404) and is within 5 GB (403); the output directory exists. */
export async function resolvePlan(deps: StagingDeps, accountId: string, plan: TaskPlan): Promise<ResolvedPlanInput[]> {
  if (plan.outputDirId !== undefined) await deps.storage.listFiles({ accountId, dirId: plan.outputDirId });
  return Promise.all(
    plan.inputs.map(async (p) => {
      if (p.kind === 'sequence') return resolveSequence(deps, accountId, p);
      if (p.kind === 'concat') return resolveConcat(deps, accountId, p);
      if (p.source.kind === 'generated') return { planned: p, files: [] };
      if (p.side?.named) return { planned: p, files: await resolveNamedSide(deps, accountId, p.source) };
      return { planned: p, files: await resolveInputs(deps, accountId, [p.source]) };
    }),
  );
}

/** The staged task: the inputs as ffmpeg opens them, and what the usage counts. */
export interface StagedPlan {
  /** Media, sequence and concat inputs, in task order (side files are not ffmpeg inputs). */
  open: OpenInput[];
  /** Bytes of every staged file: the usage's input size. */
  bytes: number;
}

export interface StagePlanOptions {
  workDir: string;
  logger: WarnLogger;
  signal?: AbortSignal;
}

const safeExt = (name: string) => {
  const ext = extensionOf(name);
  return /^[a-z0-9]{1,10}$/.test(ext) ? `.${ext}` : '';
};

async function stageOne(
  deps: StagingDeps,
  accountId: string,
  r: ResolvedPlanInput,
  opts: StagePlanOptions,
): Promise<{ open?: OpenInput; bytes: number; probed: ProbedInput[] }> {
  const p = r.planned;
  const { workDir } = opts;
  // A generated input is a checked filter graph: nothing to stage or probe.
  if (p.source.kind === 'generated') {
    const open: OpenInput = {
      path: '',
      demuxer: 'lavfi',
      built: 'lavfi',
      graph: p.source.graph,
      args: p.args,
      streams: p.streams ?? [],
      ...timing(p.durationSec, undefined),
    };
    return { open, bytes: 0, probed: [] };
  }
  const probeOpts = { workDir, logger: opts.logger, ...(opts.signal ? { signal: opts.signal } : {}) };
  if (p.kind === 'side') {
    const path = p.side!.path;
    await mkdir(join(workDir, SIDE_DIR), { recursive: true });
    const bytes = await stageFile(deps, accountId, join(workDir, path), r.files[0]!, opts.signal);
    if (p.side!.use === 'subtitles') {
      // The subtitles filter opens the file by detection: it must be one the demuxer allow-list takes, holding subtitles only.
      const probed = await probeStaged(deps, accountId, p.index, r.files[0]!, { ...probeOpts, path });
      if (probed.streams.some((s) => s.type !== 'subtitle'))
        throw FfmpegErrors.inputRefused(r.files[0]!.name, 'it is named as a subtitle file but holds other streams');
    }
    return { bytes, probed: [] };
  }
  if (p.kind === 'sequence') {
    const dir = join(workDir, 'in', String(p.index));
    await mkdir(dir, { recursive: true });
    const sizes = await inBatches(r.files, (f) => stageFile(deps, accountId, join(dir, f.name), f, opts.signal));
    const open: OpenInput = {
      path: `in/${p.index}/${r.sequence!.pattern}`,
      demuxer: 'image2',
      built: 'image2',
      service: ['-start_number', String(r.sequence!.first)],
      args: p.args,
      streams: ['video'],
      ...sequenceTiming(r.files.length, p.args),
    };
    return { open, bytes: sizes.reduce((a, b) => a + b, 0), probed: [] };
  }
  if (p.kind === 'concat') {
    const dir = join(workDir, 'in', String(p.index));
    await mkdir(dir, { recursive: true });
    const staged = r.files.map((f, k) => `e${String(k + 1).padStart(4, '0')}${safeExt(f.name)}`);
    const sizes = await inBatches(
      r.files.map((f, k) => ({ f, k })),
      ({ f, k }) => stageFile(deps, accountId, join(dir, staged[k]!), f, opts.signal),
    );
    // Each entry is probed like an upload: the concat demuxer opens it by detection, limited to these demuxers.
    const probed = await inBatches(
      r.files.map((f, k) => ({ f, k })),
      ({ f, k }) => probeStaged(deps, accountId, p.index, f, { ...probeOpts, path: `in/${p.index}/${staged[k]}` }),
    );
    const listText = writeConcatList(
      r.concat!.list,
      r.concat!.entryFile.map((k) => staged[k]!),
    );
    await writeFile(join(dir, 'list.ffconcat'), listText);
    const whitelist = ['concat', ...new Set(probed.map((x) => x.formatName))].join(',');
    const open: OpenInput = {
      path: `in/${p.index}/list.ffconcat`,
      demuxer: 'concat',
      built: 'concat',
      whitelist,
      args: p.args,
      streams: streamTypes(probed),
      ...timing(
        concatDurationSec(
          r.concat!.list,
          r.concat!.entryFile.map((k) => probed[k]?.durationSec),
        ),
        videoFps(probed),
      ),
    };
    return { open, bytes: sizes.reduce((a, b) => a + b, 0) + r.concat!.listBytes, probed };
  }
  const bytes = await stageFile(deps, accountId, join(workDir, 'in', String(p.index)), r.files[0]!, opts.signal);
  const probed = await probeStaged(deps, accountId, p.index, r.files[0]!, {
    ...probeOpts,
    ...(p.demuxer ? { format: { name: p.demuxer, args: p.probeArgs } } : {}),
  });
  if (!p.demuxer) checkDemuxerOptions(p, probed.formatName);
  return {
    open: {
      path: `in/${p.index}`,
      demuxer: p.demuxer ?? probed.format,
      args: p.args,
      streams: streamTypes([probed]),
      ...timing(probed.durationSec, videoFps([probed])),
    },
    bytes,
    probed: [probed],
  };
}

/** The stream types of an input's probed files (what ffmpeg may pick from it, for checkShortestStreams). */
const streamTypes = (probed: readonly ProbedInput[]) => [...new Set(probed.flatMap((x) => x.streams.map((st) => st.type)))];

/** The first video rate the probe found. */
const videoFps = (probed: readonly ProbedInput[]) =>
  probed.flatMap((x) => x.streams).find((st) => st.type === 'video' && st.fps !== undefined)?.fps;

const timing = (durationSec: number | undefined, fps: number | undefined) => ({
  ...(durationSec === undefined ? {} : { durationSec }),
  ...(fps === undefined ? {} : { fps }),
});

/** Stages and probes every input of a plan into workDir (which the caller made and removes). */
export async function stagePlan(
  deps: StagingDeps,
  accountId: string,
  resolved: readonly ResolvedPlanInput[],
  opts: StagePlanOptions,
): Promise<StagedPlan> {
  await mkdir(join(opts.workDir, 'in'), { recursive: true });
  for (const r of resolved)
    for (const f of r.files) if (f.size !== undefined && f.size > MAX_FILE_BYTES) throw Errors.fileTooLarge(f.name, f.size);
  const staged = await Promise.all(resolved.map((r) => stageOne(deps, accountId, r, opts)));
  return {
    open: staged.flatMap((s) => (s.open ? [s.open] : [])),
    bytes: staged.reduce((a, s) => a + s.bytes, 0),
  };
}
