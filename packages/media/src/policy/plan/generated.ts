// Generated inputs: an input whose options say -f lavfi has a filter graph as its file_path
// (`-f lavfi -i color=black:s=1280x720:d=5` as a task input), opened by the lavfi demuxer. The
// graph is judged by the same filter policy as filter_complex (movie, amovie and every filter that
// reads files or the network stay refused); it must start from source filters, and one that plays
// without end (no d=) is an endless input like -loop 1: an output it feeds needs -t or -shortest.
import { CATALOGUE } from '../catalogue/catalogue.js';
import { checkFilterGraph } from '../filter-policy.js';
import { LIMITS } from '../limits.js';
import { refuse, show } from '../refuse.js';
import { parseFilePath } from '../task-shape.js';
import { parseCliTime } from '../values/cli-values.js';
import { graphEndlessness, isSourceFilter } from './finiteness.js';
import { formatOf, LAVFI, planMediaInput } from './inputs.js';
import type { NamedSource } from './side-files.js';
import type { PlannedInput } from './types.js';

/** Words of the refusal for an output fed by an endless generated input (plan-task.ts adds the fix). */
export const GENERATED_WITHOUT_END = 'is generated without end';

/** The hint for a file_path that is neither an upload nor a URL. */
export const GENERATE_HINT =
  "; to generate an input, give -f lavfi in the input's options and a source graph such as color=black:s=1280x720:d=5 as its file_path";

/** Whether a task input is generated: its options name the lavfi demuxer. */
export const isGeneratedInput = (options: readonly string[]): boolean => formatOf(options) === LAVFI;

const OUT_LABEL = /^out(\d+)$/;

/** An uploaded file's <dir_id>/<file_name> or a URL, not a graph. */
function looksLikeFile(filePath: string): boolean {
  try {
    parseFilePath(filePath);
    return true;
  } catch {
    return false;
  }
}

/** Checks a generated input's graph and options; the graph is kept in canonical form. */
export function planGeneratedInput(source: NamedSource, options: readonly string[], inputCount: number): PlannedInput {
  const where = `task.inputs[${source.index}].file_path`;
  if (looksLikeFile(source.filePath)) {
    refuse(
      `task.inputs[${source.index}] has -f lavfi, which makes its file_path a filter graph such as color=black:s=1280x720:d=5, but ${show(source.filePath)} names a file: leave out -f lavfi to read the file`,
    );
  }
  // Any stream reference is refused below, with the sentence that says why.
  const graph = checkFilterGraph(source.filePath, { option: where, kind: 'complex', inputCount: LIMITS.maxInputs });
  const described = `the graph of ${where} (a generated input)`;
  if (graph.inputLabels.length > 0) {
    refuse(
      `Input label [${graph.inputLabels[0]}] in ${described} reads a stream the graph does not make: a generated input starts from source filters such as color, testsrc2, sine or anullsrc; to filter another input, use filter_complex`,
    );
  }
  graph.checked.forEach((f, i) => {
    const chainStart = i === 0 || graph.checked[i - 1]!.separator === ';';
    // A filter of this build that is not a source needs an input (unknown ones the policy refused).
    const takesInput = CATALOGUE.filters[f.name] !== undefined && !isSourceFilter(f.name);
    if (chainStart && f.inputs.length === 0 && takesInput) {
      refuse(
        `Filter ${show(f.name)} starts a chain of ${described} but needs an input: a generated input starts from source filters such as color, testsrc2, sine or anullsrc`,
      );
    }
  });
  const ends = graphEndlessness(graph, () => ({ endless: false }));
  // lavfi makes one stream of each graph output: a single unlabelled one, or outputs labelled out0, out1...
  let outputs = ends.unlabelledAll;
  if (graph.outputLabels.length > 0 || ends.unlabelledAll.length > 1) {
    const numbered = graph.outputLabels.map((l) => Number(OUT_LABEL.exec(l)?.[1] ?? -1)).sort((a, b) => a - b);
    if (ends.unlabelledAll.length > 0 || numbered.some((n, k) => n !== k)) {
      refuse(
        `${described.charAt(0).toUpperCase()}${described.slice(1)} has several outputs: label them [out0], [out1] and so on, one for each stream`,
      );
    }
    outputs = numbered.map((n) => ends.labels.get(`out${n}`)!);
  }
  const endless = outputs.find((o) => o.endless);
  const planned = planMediaInput(
    source,
    options,
    'generated',
    inputCount,
    endless ? `input ${source.index} ${GENERATED_WITHOUT_END} (${endless.cause ?? 'a source has no duration (d=)'})` : undefined,
  );
  // How long it plays, for progress: its longest source's d= (only sources: afade's d= is a fade's
  // length), cut by its -t; filters after the sources (trim) are not followed.
  const t = planned.args.indexOf('-t');
  const trimmed = t >= 0 ? parseCliTime(planned.args[t + 1]!) : undefined;
  const sources = graph.checked
    .filter((f) => isSourceFilter(f.name))
    .map((f) => parseCliTime(f.options.get('duration') ?? f.options.get('d') ?? ''));
  const longest = planned.endless || sources.some((d) => d === undefined) ? undefined : Math.max(0, ...(sources as number[]));
  const durationSec = trimmed !== undefined && longest !== undefined ? Math.min(trimmed, longest) : (trimmed ?? longest);
  return {
    ...planned,
    source: { kind: 'generated', graph: graph.canonical },
    streams: outputs.flatMap((o) => (o.media ? [o.media] : [])),
    ...(durationSec ? { durationSec } : {}),
  };
}
