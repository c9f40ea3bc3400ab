// The service's refusals name the fields of the task JSON (task.inputs, task.outputs[0].options,
// file_path); a user of `media run -i ... -o ... -- <options>` wrote flags, not JSON. This is the
// one place that says those sentences in the command line's terms. A run from a task file keeps
// the service's words (its user wrote the fields), and so does --json (scripts get the API's).
import { MediaApiError } from '@media/client';

/** What the command line gave: the -i values in order (task.inputs[i] is inputs[i]). */
export interface CommandLine {
  inputs: readonly string[];
}

/** Makes the replacement from the command line and the pattern's one group. */
type Replace = (cl: CommandLine, group: string) => string;

const quote = (text: string) => `'${text}'`;
const INPUT_OPTIONS = 'input options go in a task file, as inputs[i].options: media run task.json';

/** In order: the specific sentence first, then the field names inside any sentence. */
const RULES: readonly [RegExp, string | Replace][] = [
  [
    /^Option '-i' is not allowed: .*$/,
    "Option '-i' is not allowed among the output options (after --): give each input as its own -i before --, as in media run -i a.mp4 -i b.mp4 -o out.mp4 -- <options>",
  ],
  [
    /^Invalid file_path format\. Expected <dir_id>\/<file_name>/,
    'An input is neither a local file, an https:// URL nor a file_path (<dir_id>/<file_name>)',
  ],
  [/^file_path (?=')/, 'The input '],
  [
    /^All input files must be from the same directory/,
    'The -i file_paths are in different directories; give file_paths of one directory (local -i files are uploaded into it)',
  ],
  [/^(Output filename '[^']*' conflicts with an existing input file)/, '$1: choose another -o'],
  [/^File name already exists in directory/, 'A local -i has the name of a file already in the directory of the -i file_paths: rename it'],
  [/upload them first \(POST \/file\) and use their file_path/, 'download them and give the local files as -i (media run uploads them)'],
  [/\(task\.inputs\[i\]\.options\)/g, `(${INPUT_OPTIONS})`],
  [/\(task\.outputs\[i\]\.options\)/g, '(after --)'],
  [/task\.outputs\[\d+\]\.options\[(\d+)\]/g, (_cl, n) => `output option ${Number(n) + 1} (after --)`],
  [/task\.outputs\[\d+\]\.options/g, 'the output options (after --)'],
  [/task\.outputs\[\d+\]\.file/g, '-o'],
  [/task\.outputs\[\d+\]\.maps/g, '--map'],
  [/ of task\.outputs\[\d+\]/g, ''],
  [/task\.outputs\[\d+\]/g, 'the output (-o)'],
  [/inputs come from task\.inputs/g, 'inputs come from -i'],
  [/add the file to task\.inputs/g, 'give the file as another -i (before --)'],
  [/name them in task\.inputs/g, 'give each as an -i'],
  [/task\.inputs has (\d+) items/g, '-i is given $1 times'],
  [/\(numbered from 0\)/g, '(the -i inputs, numbered from 0)'],
  [/task\.inputs\[\d+\]\.file_path/g, '-i'],
  [/task\.inputs\[(\d+)\]\.options/g, (cl, n) => `the options of ${inputName(cl, n)} (${INPUT_OPTIONS})`],
  [/task\.inputs\[(\d+)\]/g, (cl, n) => inputName(cl, n)],
  [/task\.inputs/g, 'the -i inputs'],
  [/task\.filter_complex/g, '--filter-complex'],
  [/task\.output_dir_id/g, '--output-dir'],
];

function inputName(cl: CommandLine, index: string): string {
  const given = cl.inputs[Number(index)];
  return given === undefined ? `input ${index}` : `-i ${quote(given)}`;
}

/** The sentence in the command line's terms (unchanged when it names no task field). */
export function inCliTerms(sentence: string, cl: CommandLine): string {
  let text = sentence;
  for (const [pattern, replacement] of RULES) {
    text =
      typeof replacement === 'string'
        ? text.replace(pattern, replacement)
        : text.replace(pattern, (_match, group: string) => replacement(cl, group));
  }
  return text;
}

/** A MediaApiError restated in the command line's terms (same status and request id); others as they are. */
export function explainInCliTerms(err: unknown, cl: CommandLine): unknown {
  if (!(err instanceof MediaApiError)) return err;
  const text = inCliTerms(err.error, cl);
  return text === err.error ? err : new MediaApiError(err.status, text, err.requestId, err.retryAfterSec);
}
