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
      // Every option token of the request is kept, in order (graph values may be re-spelled).
      const given = (task as { task: { outputs: { file: string; options: string[] }[] } }).task.outputs.find((x) => x.file === o.fileName)!;
      expect(o.args.length).toBe(given.options.length);
      o.args.forEach((a, i) => {
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
