// The service's refusals of a `media run -i ... -o ... -- <options>` task, said in the command
// line's terms. The sentences are the real ones: the task is built as the CLI builds it
// (taskFromFlags) and judged by the service's own policy (planTask), or taken from its errors.
import { planTask, POLICY_LIMITS, readTaskRequest } from '@media/media';
import { Errors } from '@media/platform';
import { inCliTerms } from '../src/cli-sentences.js';
import { taskFromFlags, type TaskFlags } from '../src/task.js';

const DIR = 'dir_abcdefghij0123456789';

/** The sentence the service answers for this command line (its inputs already uploaded). */
function refusal(flags: TaskFlags, outputOptions: string[], inputs = [`${DIR}/in.mp4`]): string {
  const task = taskFromFlags(flags, outputOptions, inputs);
  try {
    planTask(readTaskRequest({ task }, { allowWebhook: true }).task);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the task was accepted');
}

const said = (flags: TaskFlags, outputOptions: string[], inputs?: string[]) => {
  const sentence = refusal(flags, outputOptions, inputs);
  const cli = inCliTerms(sentence, { inputs: inputs ?? ['in.mp4'] });
  return { sentence, cli };
};

test("a second -i among the output options: give it as another -i before --, not 'add it to task.inputs'", () => {
  const { sentence, cli } = said({ output: 'out.mp4' }, ['-i', 'other.mp4']);
  expect(sentence).toContain('task.inputs');
  expect(cli).toBe(
    "Option '-i' is not allowed among the output options (after --): give each input as its own -i before --, as in media run -i a.mp4 -i b.mp4 -o out.mp4 -- <options>",
  );
});

test('an input option after --: media run has no input options, a task file has', () => {
  const { sentence, cli } = said({ output: 'out.mp4' }, ['-re']);
  expect(sentence).toContain('(task.inputs[i].options)');
  expect(cli).toBe(
    "Option '-re' is an input option: put it in the options of the input it applies to (input options go in a task file, as inputs[i].options: media run task.json)",
  );
});

test('output options, -o, --map and --filter-complex are named by their flags', () => {
  expect(said({ output: 'out.mp4' }, ['-nosuchoption', '1']).cli).toBe(
    "Option '-nosuchoption' in the output options (after --) is not an ffmpeg option",
  );
  expect(said({ output: 'out.mp4' }, ['-c:v']).cli).toBe("Option '-c:v' in the output options (after --) needs a value (the next entry)");
  expect(said({ output: 'a\\b.mp4' }, []).cli).toMatch(/^-o 'a\\\\?b\.mp4' must not contain a slash or backslash$/);
  expect(said({ output: 'out.mp4', map: ['[nope]'] }, []).cli).toBe('-map [nope] selects a label that no filter_complex graph produces');
  const long = POLICY_LIMITS.maxFilterGraphChars + 1;
  const graph = said({ output: 'out.mp4', filterComplex: 'x'.repeat(long) }, []);
  expect(graph.sentence).toContain('task.filter_complex');
  expect(graph.cli).toMatch(new RegExp(`^--filter-complex is ${long} characters long`));
});

test('an input is named by the -i the user gave', () => {
  const { sentence, cli } = said({ output: 'out.mp4' }, [], ['http://example.com/a.mp4']);
  expect(sentence).toMatch(/^task\.inputs\[0\]\.file_path 'http:\/\/example\.com\/a\.mp4' must be/);
  expect(cli).toBe("-i 'http://example.com/a.mp4' must be a public HTTPS URL (https://...)");
  // A side file named by a path (a bare name is looked up in the inputs' directory).
  const side = said({ output: 'out.mp4' }, ['-vf', 'subtitles=sub/subs.srt']);
  expect(side.sentence).toContain('add the file to task.inputs');
  expect(side.cli).toContain('give the file as another -i (before --), after the media inputs');
});

test("the service's own errors about file_path and directories", () => {
  expect(inCliTerms(Errors.invalidFilePath().message, { inputs: ['x'] })).toBe(
    'An input is neither a local file, an https:// URL nor a file_path (<dir_id>/<file_name>)',
  );
  expect(inCliTerms(Errors.inputsSameDirectory().message, { inputs: [] })).toMatch(/^The -i file_paths are in different directories/);
  expect(inCliTerms(Errors.outputConflicts('in.mp4').message, { inputs: [] })).toBe(
    "Output filename 'in.mp4' conflicts with an existing input file: choose another -o",
  );
});

test('no translated sentence names a task field; sentences without one are unchanged', () => {
  const cases: [TaskFlags, string[]][] = [
    [{ output: 'out.mp4' }, ['-i', 'x']],
    [{ output: 'out.mp4' }, ['-re']],
    [{ output: 'out.mp4' }, ['-stream_loop', '1']],
    [{ output: 'out.mp4' }, ['-nosuchoption', '1']],
    [{ output: 'out.mp4', map: ['[x]'] }, []],
    [{ output: 'out.mp4' }, ['-vf', 'lut3d=x/grade.cube']],
  ];
  for (const [flags, options] of cases) {
    const { cli } = said(flags, options);
    expect({ options, cli }).toEqual({
      options,
      cli: expect.not.stringMatching(/task\.(inputs|outputs|filter_complex|output_dir_id)|file_path/),
    });
  }
  const plain = refusal({ output: 'out.mp4' }, ['-c:v', 'nosuchencoder']);
  expect(inCliTerms(plain, { inputs: ['in.mp4'] })).toBe(plain);
});
