// Ordinary conversion and thumbnail tasks must pass the policy unchanged in meaning. Each row is a
// task a user of an FFmpeg API really sends; a refusal here is a policy bug.
import { DIR, plan, single } from './policy-fixtures.js';
import { ORDINARY_TASKS as rows, URL_INPUT } from './policy-ordinary-rows.js';

describe('ordinary tasks pass the policy', () => {
  test(`there are at least 25 (${rows.length})`, () => expect(rows.length).toBeGreaterThanOrEqual(25));

  test.each(rows)('%s', (_title, task) => {
    const p = plan(task);
    expect(p.outputs.length).toBeGreaterThan(0);
    for (const o of p.outputs) {
      // Every option token of the request is kept, in order (graph values may be re-spelled, and
      // numbers given as the number they stand for); a numbered output also drops audio,
      // subtitles and data and gets its frame bound for every stream (one stream, see outputs.ts).
      const given = (task as { task: { outputs: { file: string; options: string[] }[] } }).task.outputs.find((x) => x.file === o.fileName)!;
      const added = o.kind === 'numbered' ? ['-an', '-sn', '-dn', '-frames', String(o.maxFiles)] : [];
      expect(o.args.slice(given.options.length)).toEqual(added);
      expect(o.args.length).toBe(given.options.length + added.length);
      o.args.slice(0, given.options.length).forEach((a, i) => {
        if (a === given.options[i]) return;
        // A graph in canonical form, or a number written as the number it stands for (2M: 2000000).
        const graph = ['-vf', '-af', '-filter_complex', '-lavfi', '-filter:v:0'].includes(given.options[i - 1]!);
        expect({ option: given.options[i - 1], value: a, ok: graph || /^-?\d+(\.\d+)?$/.test(a) }).toMatchObject({ ok: true });
      });
    }
  });
});

describe('what the plan says', () => {
  test('numbered thumbnails: pattern, frame bound, file count', () => {
    const p = plan(single(['-vf', 'fps=1', '-frames:v', '10'], 'thumb_%03d.png'));
    expect(p.outputs[0]).toMatchObject({ kind: 'numbered', maxFiles: 10, muxer: 'image2' });
    expect(p.maxFiles).toBe(1000);
  });

  test('metadata text goes to ffmpeg as given, even when it looks like a path or protocol', () => {
    // ffmpeg writes -metadata values into the container and never opens them.
    const options = [
      '-metadata',
      'title=concat:/etc/passwd|/etc/hosts',
      '-metadata',
      'comment=file:///etc/passwd',
      '-metadata:s:a:0',
      'language=/etc/passwd',
    ];
    expect(plan(single(options)).outputs[0]!.args).toEqual(options);
  });

  test('the frame bound of a numbered output is its largest -frames value', () => {
    const out = (options: string[]) => plan(single(options, 'fr%d.png')).outputs[0]!;
    expect(out(['-frames:v', '5'])).toMatchObject({ maxFiles: 5 });
    // ffmpeg gives the video the last matching -frames (here 900), so 900 files are counted.
    expect(out(['-frames:v', '5', '-frames:v:0', '900'])).toMatchObject({ maxFiles: 900 });
    // In any order and with any specifier: an upper bound, even where ffmpeg would stop sooner (at 5, at 7).
    expect(out(['-frames:v:0', '900', '-frames:v', '5'])).toMatchObject({ maxFiles: 900 });
    expect(out(['-vframes', '7', '-frames:a', '20'])).toMatchObject({ maxFiles: 20 });
  });

  test('filtergraphs are passed in canonical form', () => {
    const p = plan(single(['-vf', "scale=320:-2,select='eq(pict_type\\,I)'"]));
    expect(p.outputs[0]!.args).toEqual(['-vf', 'scale=w=320:h=-2,select=expr=eq(pict_type\\,I)']);
  });

  test('inputs are planned by their source', () => {
    expect(plan(single([], 'out.webm', [`${DIR}/in.mp4`])).inputs[0]).toMatchObject({
      kind: 'media',
      source: { kind: 'uploaded', dirId: DIR, fileName: 'in.mp4' },
    });
    expect(plan(single([], 'out.webm', URL_INPUT)).inputs[0]).toMatchObject({ kind: 'media', source: { kind: 'url', url: URL_INPUT[0] } });
  });
});
