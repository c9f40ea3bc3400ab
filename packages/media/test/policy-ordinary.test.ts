// Ordinary conversion and thumbnail tasks must pass the policy unchanged in meaning. Each row is a
// task a user of an FFmpeg API really sends; a refusal here is a policy bug.
import { validateTask, type PlannedTask } from '../src/policy/index.js';
import { DIR, single } from './policy-fixtures.js';
import { ORDINARY_TASKS as rows, URL_INPUT } from './policy-ordinary-rows.js';

describe('ordinary tasks pass the policy', () => {
  test(`there are at least 25 (${rows.length})`, () => expect(rows.length).toBeGreaterThanOrEqual(25));

  test.each(rows)('%s', (_title, task) => {
    const plan: PlannedTask = validateTask(task);
    expect(plan.outputs.length).toBeGreaterThan(0);
    for (const o of plan.outputs) {
      // Every option token of the request is kept, in order (graph values may be re-spelled); a
      // numbered output also drops audio, subtitles and data and repeats its frame bound for every
      // stream (one stream, see option-policy.ts).
      const given = (task as { task: { outputs: { file: string; options: string[] }[] } }).task.outputs.find((x) => x.file === o.fileName)!;
      const added = o.numberedPattern ? ['-an', '-sn', '-dn', '-frames', String(o.maxFiles)] : [];
      expect(o.args.slice(given.options.length)).toEqual(added);
      expect(o.args.length).toBe(given.options.length + added.length);
      o.args.slice(0, given.options.length).forEach((a, i) => {
        if (a !== given.options[i]) expect(['-vf', '-af', '-filter_complex', '-lavfi', '-filter:v:0']).toContain(given.options[i - 1]);
      });
    }
  });
});

describe('what the plan says', () => {
  test('numbered thumbnails: pattern, frame bound, file count', () => {
    const plan = validateTask(single(['-vf', 'fps=1', '-frames:v', '10'], 'thumb_%03d.png'));
    expect(plan.outputs[0]).toMatchObject({ numberedPattern: true, maxFrames: 10, maxFiles: 10, muxer: 'image2', muxerFrom: 'extension' });
    expect(plan.maxFiles).toBe(10);
  });

  test('metadata text goes to ffmpeg as given, even when it looks like a path or protocol', () => {
    // ffmpeg writes -metadata values into the container and never opens them.
    const options = ['-metadata', 'title=concat:/etc/passwd|/etc/hosts', '-metadata', 'comment=file:///etc/passwd', '-metadata:s:a:0', 'language=/etc/passwd'];
    expect(validateTask(single(options)).outputs[0]!.args).toEqual(options);
  });

  test('the frame bound of a numbered output is its largest -frames value', () => {
    const plan = (options: string[]) => validateTask(single(options, 'fr%d.png')).outputs[0]!;
    expect(plan(['-frames:v', '5'])).toMatchObject({ maxFrames: 5, maxFiles: 5 });
    // ffmpeg gives the video the last matching -frames (here 900), so 900 files are counted.
    expect(plan(['-frames:v', '5', '-frames:v:0', '900'])).toMatchObject({ maxFrames: 900, maxFiles: 900 });
    // In any order and with any specifier: an upper bound, even where ffmpeg would stop sooner (at 5, at 7).
    expect(plan(['-frames:v:0', '900', '-frames:v', '5'])).toMatchObject({ maxFrames: 900, maxFiles: 900 });
    expect(plan(['-vframes', '7', '-frames:a', '20'])).toMatchObject({ maxFrames: 20, maxFiles: 20 });
  });

  test('filtergraphs are passed in canonical form', () => {
    const plan = validateTask(single(['-vf', "scale=320:-2,select='eq(pict_type\\,I)'"]));
    expect(plan.outputs[0]!.args).toEqual(['-vf', 'scale=w=320:h=-2,select=expr=eq(pict_type\\,I)']);
    expect(plan.outputs[0]!.filters).toEqual(['scale', 'select']);
  });

  test('complex graph labels and -map labels are reported', () => {
    const plan = validateTask(single(['-filter_complex', '[0:v]split=2[a][b];[a]scale=640:-2[small]', '-map', '[small]', '-map', '[b]']));
    expect(plan.outputs[0]).toMatchObject({ mapLabels: ['small', 'b'], graphOutputLabels: ['b', 'small'] });
  });

  test('inputs are normalised', () => {
    const plan = validateTask(single([], 'out.webm', [`${DIR}/in.mp4`]));
    expect(plan.inputs).toEqual([{ kind: 'uploaded', dirId: DIR, fileName: 'in.mp4', filePath: `${DIR}/in.mp4` }]);
    const url = validateTask(single([], 'out.webm', URL_INPUT));
    expect(url.inputs).toEqual([{ kind: 'url', url: URL_INPUT[0] }]);
  });

  test('async bodies may carry webhook_url', () => {
    const plan = validateTask({ ...single([]), webhook_url: 'https://hooks.example.com/done' }, { allowWebhook: true });
    expect(plan.webhookUrl).toBe('https://hooks.example.com/done');
  });
});
