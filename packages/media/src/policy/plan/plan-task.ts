// The whole check of a task, before any file is fetched or any process started, and the plan the
// runner follows: inputs (with their options), the task's filter_complex, outputs (with theirs),
// which inputs are side files, whether every output ends, and how many files it may write.
// Every refusal is a 400 DomainError whose sentence names what is wrong; nothing here does I/O.
import type { Task } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Errors } from '@media/platform';
import { checkFilterGraph, type CheckedGraph } from '../filter-policy.js';
import { fileNameProblem, isValidDirId } from '../file-name.js';
import { LIMITS } from '../limits.js';
import { numberedPatternRegex, parseNumberedPattern } from '../numbered-pattern.js';
import { charCount, refuse, show } from '../refuse.js';
import { parseFilePath } from '../task-shape.js';
import { graphEndlessness, type StreamEnd } from './finiteness.js';
import { GENERATE_HINT, GENERATED_WITHOUT_END, isGeneratedInput, planGeneratedInput } from './generated.js';
import { inputKind, planMediaInput, planSideInput } from './inputs.js';
import { checkOutput, draftOutput, type OutputFacts } from './outputs.js';
import { segmentWrap } from './segments.js';
import { shortestBound } from './shortest.js';
import { SideFiles, sideFilePath, type NamedSource } from './side-files.js';
import { PLAN_VERSION, type PlannedInput, type PlannedOutput, type TaskPlan } from './types.js';

function readSources(spec: Task): NamedSource[] {
  if (spec.inputs.length === 0) throw Errors.inputsNotArray();
  if (spec.inputs.length > LIMITS.maxInputs) refuse(`task.inputs has ${spec.inputs.length} items; at most ${LIMITS.maxInputs} are allowed`);
  const sources = spec.inputs.map((input, index): NamedSource => {
    if (isGeneratedInput(input.options))
      return { index, source: { kind: 'generated', graph: input.filePath }, filePath: input.filePath, name: '' };
    const parsed = parseFilePath(input.filePath, `task.inputs[${index}].file_path`, GENERATE_HINT);
    if (parsed.kind === 'url') {
      const last = decodeURIComponent(new URL(parsed.url).pathname.split('/').pop() ?? '');
      return { index, source: { kind: 'url', url: parsed.url }, filePath: input.filePath, name: last };
    }
    return {
      index,
      source: { kind: 'uploaded', dirId: parsed.dirId, fileName: parsed.fileName },
      filePath: input.filePath,
      name: parsed.fileName,
    };
  });
  const dirs = new Set(sources.flatMap((s) => (s.source.kind === 'uploaded' ? [s.source.dirId] : [])));
  if (dirs.size > 1) throw Errors.inputsSameDirectory();
  return sources;
}

function checkOutputNames(spec: Task, sources: readonly NamedSource[]): void {
  if (spec.outputs.length === 0 || spec.outputs.length > LIMITS.maxOutputs) {
    refuse(`task.outputs must be an array of 1 to ${LIMITS.maxOutputs} outputs (got ${spec.outputs.length})`);
  }
  const inputNames = sources.flatMap((s) => (s.source.kind === 'uploaded' ? [s.source.fileName] : []));
  const names = new Set<string>();
  spec.outputs.forEach((o, i) => {
    const problem = fileNameProblem(o.file);
    if (problem) refuse(`task.outputs[${i}].file ${show(o.file)} ${problem}`);
    const pattern = parseNumberedPattern(o.file);
    if (typeof pattern === 'string') refuse(`task.outputs[${i}].file ${show(o.file)} ${pattern}`);
    const re = pattern ? numberedPatternRegex(o.file) : null;
    for (const name of inputNames) if (name === o.file || re?.test(name)) throw Errors.outputConflicts(o.file);
    if (names.has(o.file)) refuse(`task.outputs[${i}].file ${show(o.file)} is used by another output`);
    names.add(o.file);
    if (o.maps.length > LIMITS.maxOptions)
      refuse(`task.outputs[${i}].maps has ${o.maps.length} entries; at most ${LIMITS.maxOptions} are allowed`);
  });
}

/** Instance names for filters of a task with a report output: each report keeps its own filters' lines. */
function instanceNamer(enabled: boolean) {
  if (!enabled) return undefined;
  return (scope: string) => (filter: string, position: number) => `${scope}_${filter}_${position}`;
}

/** Plans a task the user sent (the one hand conversion of a task); refuses with a 400 naming the first thing that is not allowed. */
export function planTask(spec: Task): TaskPlan {
  const sources = readSources(spec);
  checkOutputNames(spec, sources);
  if (spec.outputDirId !== undefined && !isValidDirId(spec.outputDirId)) {
    refuse(`task.output_dir_id ${show(spec.outputDirId)} is not a directory id (1 to 64 letters, digits, '_' or '-')`);
  }
  if (spec.filterComplex !== undefined && charCount(spec.filterComplex) > LIMITS.maxFilterGraphChars) {
    refuse(`task.filter_complex is ${charCount(spec.filterComplex)} characters long; at most ${LIMITS.maxFilterGraphChars} are allowed`);
  }

  const drafts = spec.outputs.map((o, i) => draftOutput(o, i));
  const namer = instanceNamer(drafts.some((d) => d.kind === 'report'));
  const sides = new SideFiles(sources);
  const sideFile = (use: Parameters<SideFiles['reference']>[0], value: string, what: string) => sides.reference(use, value, what);

  const complex: CheckedGraph[] = [];
  if (spec.filterComplex !== undefined && spec.filterComplex.trim() !== '') {
    const name = namer?.('g');
    complex.push(
      checkFilterGraph(spec.filterComplex, {
        option: 'task.filter_complex',
        kind: 'complex',
        inputCount: sources.length,
        sideFile,
        ...(name ? { instanceName: name } : {}),
      }),
    );
  }
  const checked = drafts.map((d) => checkOutput(d, { inputCount: sources.length, sideFile, ...(namer ? { instanceName: namer } : {}) }));
  for (const c of checked) complex.push(...c.facts.complexGraphs);
  const complexInstances = complex.flatMap((g) => g.instances.filter((x): x is string => x !== undefined));
  const complexFilters = complex.flatMap((g) => g.filters);
  for (const c of checked) {
    if (!c.planned.report) continue;
    c.planned.report.instances.push(...complexInstances);
    c.planned.report.filters = [...new Set([...c.planned.report.filters, ...complexFilters])];
  }

  // Side files come after the media inputs, so that input numbers ([1:v], -map 1) mean the same
  // to the task and to ffmpeg, which is not given the side files.
  const mediaCount = sources.findIndex((s) => sides.uses.has(s.index));
  const media = mediaCount < 0 ? sources.length : mediaCount;
  for (const s of sources.slice(media)) {
    if (!sides.uses.has(s.index)) {
      refuse(
        `task.inputs[${s.index}] is a media input after a side file (task.inputs[${media}], read by a filter or -attach): list media inputs first, then the files filters read`,
      );
    }
  }
  if (media === 0) refuse('The task has no media input: every input is a file read by a filter or -attach');
  // ffmpeg sends a complex graph's unlabelled outputs to the first output file, which the
  // one-stream bound of a numbered output cannot count (split has two unless told otherwise).
  if (checked[0]?.planned.kind === 'numbered' && complex.length > 0) {
    refuse(
      `Output ${show(checked[0].planned.fileName)} is a numbered pattern and cannot be the first output of a task with a filter_complex graph: ffmpeg adds the graph's unlabelled outputs to the first output. Put another output first, or use -vf`,
    );
  }
  checkStreamReferences(
    checked.map((c) => c.facts),
    complex,
    media,
  );
  checkGraphLabels(
    checked.map((c) => c.facts),
    complex,
  );

  const inputs: PlannedInput[] = sources.map((s) => {
    const options = spec.inputs[s.index]!.options;
    const use = sides.uses.get(s.index);
    if (use !== undefined) return planSideInput(s, options, use);
    if (s.source.kind === 'generated') return planGeneratedInput(s, options, media);
    return planMediaInput(s, options, inputKind(s, options), media);
  });
  for (const s of sources) {
    const use = sides.uses.get(s.index);
    if (use !== undefined) inputs[s.index]!.side = { use, path: sideFilePathOf(s) };
  }
  // Files named only in filters (lut3d=grade.cube): staged from the inputs' directory, after the task's inputs.
  for (const s of sides.named) {
    const use = sides.uses.get(s.index)!;
    inputs.push({ ...planSideInput(s, [], use), side: { use, path: sideFilePathOf(s), named: true } });
  }

  checkEnds(inputs, complex, checked);
  const outputs = checked.map((c) => c.planned);
  shareFileBudget(
    outputs,
    checked.map((c) => c.facts),
  );
  checkExtraFileConflicts(outputs, [...sources, ...sides.named]);
  // A file a filter names is an input too: no output may be written over it.
  for (const s of sides.named) {
    const clash = outputs.find(
      (o) => o.fileName === s.name || (parseNumberedPattern(o.fileName) && numberedPatternRegex(o.fileName).test(s.name)),
    );
    if (clash) throw Errors.outputConflicts(clash.fileName);
  }
  return {
    version: PLAN_VERSION,
    inputs,
    ...(complex.length > 0 && spec.filterComplex !== undefined && spec.filterComplex.trim() !== ''
      ? { filterComplex: complex[0]!.canonical }
      : {}),
    outputs,
    ...(spec.outputDirId === undefined ? {} : { outputDirId: spec.outputDirId }),
    maxFiles: LIMITS.maxFilesPerTask,
  };
}

const sideFilePathOf = (s: NamedSource) => sideFilePath(s.index, s.name);

/** Stream references ([1:v], -map 1:a) must name a media input: side files have no streams for ffmpeg. */
function checkStreamReferences(facts: readonly OutputFacts[], complex: readonly CheckedGraph[], media: number): void {
  const side = (n: number, what: string) => {
    if (n >= media)
      refuse(
        `${what} refers to input ${n}, which is a file read by a filter or -attach, not a media input (media inputs are 0 to ${media - 1})`,
      );
  };
  facts.forEach((f, i) => {
    for (const m of f.maps) if ('input' in m) side(m.input, `-map of task.outputs[${i}]`);
  });
  for (const g of complex) {
    for (const label of g.inputLabels) {
      const m = /^(\d+)/.exec(label);
      if (m) side(Number(m[1]), `Input label [${label}] of a filter graph`);
    }
  }
}

/** -map [label] must name an output label of some complex graph of the task. */
function checkGraphLabels(facts: readonly OutputFacts[], complex: readonly CheckedGraph[]): void {
  const produced = new Set(complex.flatMap((g) => g.outputLabels));
  facts.forEach((f, i) => {
    for (const m of f.maps) {
      if ('label' in m && !produced.has(m.label))
        refuse(`-map [${m.label}] of task.outputs[${i}] selects a label that no filter_complex graph produces`);
    }
  });
}

/** Refuses a task with an output that could play without end: it says how to bound it. */
function checkEnds(
  inputs: readonly PlannedInput[],
  complex: readonly CheckedGraph[],
  checked: ReadonlyArray<{ planned: PlannedOutput; facts: OutputFacts }>,
): void {
  const endlessInput = inputs.find((i) => i.endless);
  const inputState = (index: number): StreamEnd => {
    const i = inputs[index];
    if (!i?.endless) return { endless: false };
    return {
      endless: true,
      cause: i.endlessCause ?? `input ${index} plays without end (${i.args.includes('-stream_loop') ? '-stream_loop -1' : '-loop 1'})`,
    };
  };
  const anyInput = endlessInput ? inputState(endlessInput.index) : { endless: false };
  // Graph outputs, across the task's complex graphs (a graph may read another's output).
  const labels = new Map<string, StreamEnd>();
  let unlabelled: StreamEnd = { endless: false };
  const unlabelledAll: StreamEnd[] = [];
  for (const g of complex) {
    const ends = graphEndlessness(g, (label) => {
      if (label === undefined) return anyInput;
      const m = /^(\d+)/.exec(label);
      return m ? inputState(Number(m[1])) : (labels.get(label) ?? { endless: false });
    });
    for (const [k, v] of ends.labels) labels.set(k, v);
    unlabelledAll.push(...ends.unlabelledAll);
    if (ends.unlabelled.endless && !unlabelled.endless) unlabelled = ends.unlabelled;
  }
  checked.forEach(({ planned, facts }, i) => {
    if (facts.hasBound) return;
    let streams = facts.maps.map((m) => ('label' in m ? (labels.get(m.label) ?? { endless: false }) : inputState(m.input)));
    if (facts.maps.length === 0) streams = [anyInput, ...(i === 0 ? [unlabelled] : [])];
    const endlessGraphTypes = new Set<'video' | 'audio'>();
    for (const g of facts.simpleGraphs) {
      const source = streams.find((s) => s.endless) ?? { endless: false };
      const ends = graphEndlessness(g.graph, () => source);
      streams.push(ends.unlabelled.endless ? ends.unlabelled : source);
      // A graph endless by itself (loop=-1, apad) makes every stream of its type endless.
      if (graphEndlessness(g.graph, () => ({ endless: false })).unlabelled.endless) {
        for (const t of g.media ? [g.media] : (['video', 'audio'] as const)) endlessGraphTypes.add(t);
      }
    }
    const endless = streams.find((s) => s.endless);
    if (!endless) return;
    const cause = endless.cause ?? 'one of its streams plays without end';
    if (facts.shortest) {
      const check = shortestBound({
        output: planned.fileName,
        facts,
        inputs,
        labels,
        unlabelled: i === 0 ? unlabelledAll : [],
        endlessGraphTypes,
        cause,
      });
      if (check) planned.shortest = check;
      return;
    }
    const source = cause.includes(GENERATED_WITHOUT_END) ? 'give the source a duration (d=<seconds> or duration=<seconds>), ' : '';
    refuse(
      `Output ${show(planned.fileName)} would never end: ${cause}. Bound it: ${source}add -t <seconds> to its options (or to the ${source ? 'generated' : 'looping'} input's options), or -shortest if it also takes a finite stream such as an audio track`,
    );
  });
}

/**
 * Numbered outputs without -frames get a share of the task's file budget (the spec's 1,000 files):
 * ffmpeg stops each cleanly at its share (-frames), and the result holds the files written.
 * Segment outputs without split points get the same share; a run writing more parts fails
 * (plan/segments.ts).
 */
function shareFileBudget(outputs: PlannedOutput[], facts: readonly OutputFacts[]): void {
  const counted = (o: PlannedOutput) =>
    o.kind === 'numbered'
      ? o.maxFiles
      : o.kind === 'segments'
        ? o.maxFiles + (o.segments?.list ? 1 : 0)
        : o.kind === 'hls' || o.kind === 'dash'
          ? 0
          : 1;
  const fixed = outputs.reduce((n, o) => n + counted(o), 0);
  if (fixed > LIMITS.maxFilesPerTask) {
    refuse(
      `The task can write up to ${fixed} files; at most ${LIMITS.maxFilesPerTask} are allowed (a numbered output counts its -frames:v bound, a segment output its split points)`,
    );
  }
  const open = outputs.filter((o) => (o.kind === 'numbered' || o.kind === 'segments') && o.maxFiles === 0);
  const share = open.length > 0 ? Math.floor((LIMITS.maxFilesPerTask - fixed) / open.length) : 0;
  if (open.length > 0 && share < 1)
    refuse(`The task's outputs leave no room for numbered images or parts: a task writes at most ${LIMITS.maxFilesPerTask} files`);
  outputs.forEach((o, i) => {
    if (o.kind === 'segments') {
      if (o.maxFiles === 0) o.maxFiles = share;
      o.args.push(...segmentWrap(o));
      return;
    }
    if (o.kind !== 'numbered') return;
    if (!facts[i]!.framesCoverVideo && o.maxFiles > 0) {
      refuse(`Output ${show(o.fileName)} is a numbered pattern: its -frames must apply to video (-frames:v <n>)`);
    }
    if (o.maxFiles === 0) o.maxFiles = share;
    // Last, without a specifier: whatever the one stream is, ffmpeg stops it at the bound.
    o.args.push('-frames', String(o.maxFiles));
  });
}

/** Segment and frame names an output writes must not be an input's name or another output's. */
function checkExtraFileConflicts(outputs: readonly PlannedOutput[], sources: readonly NamedSource[]): void {
  const inputNames = sources.flatMap((s) => (s.source.kind === 'uploaded' ? [s.source.fileName] : []));
  for (const o of outputs) {
    if (!o.extraFiles) continue;
    const re = new RegExp(o.extraFiles);
    for (const name of inputNames) if (re.test(name)) throw Errors.outputConflicts(name);
    for (const other of outputs) {
      if (other !== o && re.test(other.fileName))
        refuse(`Output ${show(o.fileName)} writes files named like output ${show(other.fileName)}; rename one of them`);
    }
  }
  // A segment list is a name, not a pattern: it must not be any file another output writes
  // (its own name, its parts or segments, its list), or the last writer would win.
  for (const o of outputs) {
    const list = o.segments?.list;
    if (list === undefined) continue;
    for (const other of outputs) {
      if (other === o) continue;
      if (other.fileName === list || (other.extraFiles !== undefined && new RegExp(other.extraFiles).test(list)))
        refuse(
          `The segment list ${show(list)} of output ${show(o.fileName)} is named like a file of output ${show(other.fileName)}; rename one of them`,
        );
    }
  }
}
