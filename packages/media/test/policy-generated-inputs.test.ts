// Generated inputs (-f lavfi with a filter graph as file_path) and side files named only by their
// file name in a filter: what the planner accepts, how it bounds them, and what it refuses.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { DomainError } from '@media/platform';
import { ffmpegArgv } from '../src/ffmpeg/argv.js';
import { EMPTY_CIDR_LIST, resolvePlan, stagePlan, type StagingDeps } from '../src/index.js';
import { splitVerdict } from '../src/policy/index.js';
import { body, DIR, plan, refused, single } from './policy-fixtures.js';

const IN = `${DIR}/in.mp4`;
const lavfi = (graph: string, ...options: string[]) => ({ file_path: graph, options: ['-f', 'lavfi', ...options] });
const out = (options: string[], maps?: string[]) => [{ file: 'out.mp4', options, ...(maps ? { maps } : {}) }];

describe('generated inputs', () => {
  test('a source graph is a generated input, kept in canonical form, with its stream types', () => {
    const p = plan(body(out([]), [lavfi('color=black:s=1280x720:d=5')]));
    expect(p.inputs[0]).toMatchObject({
      kind: 'generated',
      source: { kind: 'generated', graph: 'color=color=black:s=1280x720:d=5' },
      streams: ['video'],
      endless: false,
      args: [],
      durationSec: 5,
    });
    expect(plan(body(out([]), [lavfi('testsrc2', '-t', '3')])).inputs[0]!.durationSec).toBe(3);
    // Its length is its sources' d= (a fade's d= is not), cut by its -t.
    expect(plan(body(out([]), [lavfi('sine=d=3,afade=t=out:st=1:d=9')])).inputs[0]!.durationSec).toBe(3);
    expect(plan(body(out([]), [lavfi('color=black:d=1', '-t', '10')])).inputs[0]!.durationSec).toBe(1);
    expect(plan(body(out([]), [lavfi('color=black:d=8', '-t', '2')])).inputs[0]!.durationSec).toBe(2);
    const two = plan(body(out([]), [lavfi('testsrc2=d=2[out0];sine=d=2[out1]')])).inputs[0]!;
    expect(two.streams).toEqual(['video', 'audio']);
  });

  test('it opens with the lavfi demuxer alone, the graph as its input', () => {
    const argv = ffmpegArgv({
      inputs: [{ path: '', demuxer: 'lavfi', built: 'lavfi', graph: 'sine=d=1', args: ['-t', '1'] }],
      outputs: [{ fileName: 'a.wav', args: [] }],
    });
    expect(argv.join(' ')).toContain('-protocol_whitelist file -format_whitelist lavfi -f lavfi -t 1 -i sine=d=1');
    // Only the service builds it: a task or a probe naming lavfi for a file gets no graph opened.
    expect(() =>
      ffmpegArgv({ inputs: [{ path: 'in/0', demuxer: 'lavfi', args: [] }], outputs: [{ fileName: 'a.wav', args: [] }] }),
    ).toThrow('the lavfi format is not accepted');
  });

  test('a source without an end is an endless input: -shortest, -t or its own -t bound it', () => {
    const silence = lavfi('anullsrc=r=48000:cl=stereo');
    expect(plan(body(out(['-c:v', 'copy', '-shortest'], ['0:v', '1:a']), [IN, silence])).inputs[1]).toMatchObject({
      kind: 'generated',
      endless: true,
    });
    expect(() => plan(body(out(['-t', '5']), [lavfi('testsrc2')]))).not.toThrow();
    expect(plan(body(out([]), [lavfi('testsrc2', '-t', '3')])).inputs[0]!.endless).toBe(false);
    expect(refused(body(out(['-c:v', 'copy'], ['0:v', '1:a']), [IN, silence]))).toBe(
      "Output 'out.mp4' would never end: input 1 is generated without end (filter 'anullsrc' has no duration (d=)). Bound it: give the source a duration (d=<seconds> or duration=<seconds>), add -t <seconds> to its options (or to the generated input's options), or -shortest if it also takes a finite stream such as an audio track",
    );
    expect(refused(body(out(['-shortest'], ['0:a']), [silence]))).toContain(
      '-shortest ends it when its shortest stream ends, but all the streams it maps play without end',
    );
  });

  test('the graph is judged by the filter policy: nothing in it reads files or the network', () => {
    expect(refused(body(out([]), [lavfi('movie=/etc/passwd')]))).toContain(
      "Filter 'movie' is not allowed: it reads files the service did not stage",
    );
    expect(refused(body(out([]), [lavfi('amovie=x.wav')]))).toContain("Filter 'amovie' is not allowed");
    expect(refused(body(out([]), [lavfi("'mo''vie'=x.mp4")]))).toContain("Filter 'movie' is not allowed");
    expect(refused(body(out([]), [lavfi('sine=d=1,azmq')]))).toContain("Filter 'azmq' is not allowed");
    expect(refused(body(out([]), [lavfi('testsrc2=d=1,lut3d=grade.cube')]))).toContain(
      "Option 'file' of filter 'lut3d' names a file; it can only be used in a filter of an output or of task.filter_complex",
    );
    expect(refused(body(out([]), [lavfi('sine=d=1', '-graph_file', 'g.txt')]))).toContain(
      "Option '-graph_file' (lavfi) is not allowed: it reads files the service did not stage",
    );
    expect(refused(body(out([]), [lavfi('sine=d=1', '-graph', 'movie=x')]))).toContain("Option '-graph' (lavfi) is not allowed");
  });

  test('it starts from sources and names its several outputs as lavfi needs', () => {
    expect(refused(body(out([]), [lavfi('scale=320:240')]))).toContain(
      "Filter 'scale' starts a chain of the graph of task.inputs[0].file_path",
    );
    expect(refused(body(out([]), [IN, lavfi('[0:v]scale=320:240')]))).toContain(
      'Input label [0:v] in the graph of task.inputs[1].file_path',
    );
    expect(refused(body(out([]), [lavfi('color=d=1;sine=d=1')]))).toContain('label them [out0], [out1]');
    expect(refused(body(out([]), [lavfi('color=d=1[v];sine=d=1[a]')]))).toContain('label them [out0], [out1]');
  });

  test('-f lavfi on an uploaded file or a URL says what -f lavfi means', () => {
    expect(refused(body(out([]), [{ file_path: IN, options: ['-f', 'lavfi'] }]))).toBe(
      `task.inputs[0] has -f lavfi, which makes its file_path a filter graph such as color=black:s=1280x720:d=5, but '${IN}' names a file: leave out -f lavfi to read the file`,
    );
  });

  test('without -f lavfi a graph is a bad file_path, and the sentence says how to generate an input', () => {
    expect(refused(single([], 'out.mp4', ['color=black:s=1280x720:d=5']))).toBe(
      "Invalid file_path format. Expected <dir_id>/<file_name>; to generate an input, give -f lavfi in the input's options and a source graph such as color=black:s=1280x720:d=5 as its file_path",
    );
  });

  test('generated inputs take no directory: outputs need none, and they mix with uploads of one directory', () => {
    const p = plan(body(out([]), [IN, lavfi('color=d=1')]));
    expect(p.inputs.map((i) => i.source.kind)).toEqual(['uploaded', 'generated']);
    expect(splitVerdict(p)).toEqual({ split: false, reason: 'input 1 is generated (-f lavfi), which is not split' });
  });
});

describe('side files named only in a filter', () => {
  test('a bare file name is looked up in the inputs directory and staged like a listed side file', () => {
    const p = plan(single(['-vf', 'lut3d=grade.cube,subtitles=subs.srt']));
    expect(p.inputs.slice(1)).toEqual([
      expect.objectContaining({
        index: 1,
        kind: 'side',
        source: { kind: 'uploaded', dirId: DIR, fileName: 'grade.cube' },
        side: { use: 'data', path: 'side/1.cube', named: true },
      }),
      expect.objectContaining({
        index: 2,
        source: { kind: 'uploaded', dirId: DIR, fileName: 'subs.srt' },
        side: { use: 'subtitles', path: 'side/2.srt', named: true },
      }),
    ]);
    expect(p.outputs[0]!.args[1]).toBe('lut3d=file=side/1.cube,subtitles=filename=side/2.srt');
    // Named twice, staged once; a listed input of that name is used as listed.
    expect(plan(single(['-vf', 'lut3d=file=grade.cube,lut3d=grade.cube'])).inputs).toHaveLength(2);
    expect(plan(body(out(['-vf', 'lut3d=grade.cube']), [IN, `${DIR}/grade.cube`])).inputs[1]!.side).toEqual({
      use: 'data',
      path: 'side/1.cube',
    });
  });

  test('anything but a bare name of the inputs directory is refused with the way to name it', () => {
    for (const [vf, why] of [
      ['lut3d=../x.cube', 'a path'],
      ['lut3d=/etc/x.cube', 'a path'],
      ['subtitles=dir_other0123456789/x.srt', 'a path'],
      ["lut3d='https\\://evil.example/x.cube'", 'a URL'],
      ["lut3d='file\\:x.cube'", "the protocol 'file:'"],
    ] as const) {
      expect(refused(single(['-vf', vf]))).toMatch(
        new RegExp(
          `which is not an input of the task but ${why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: name a file of the directory of the task's inputs by its file name alone`,
        ),
      );
    }
    expect(refused(body([{ file: 'grade.cube', options: ['-vf', 'lut3d=grade.cube', '-f', 'mp4'] }]))).toBe(
      "Output filename 'grade.cube' conflicts with an existing input file",
    );
    // -attach is not a filter: it names a listed input only.
    expect(refused(single(['-attach', 'font.ttf'], 'out.mkv'))).toContain(
      "Option '-attach' names 'font.ttf', which is not an input of the task: add the file to task.inputs",
    );
    expect(refused(single(['-vf', 'subtitles=x.srt'], 'out.mp4', ['https://media.example.com/a.mp4']))).toContain(
      'and the task has no uploaded input whose directory could hold it: add the file to task.inputs',
    );
  });
});

describe('staging', () => {
  const logger = { warn: () => {} };

  test('a generated input is neither resolved, staged nor probed: it opens as its graph, its duration known', async () => {
    const storage = new Proxy({}, { get: (_t, name) => () => Promise.reject(new Error(`Storage.${String(name)} called`)) });
    const deps = { storage, allowlist: EMPTY_CIDR_LIST, timeoutMs: 5_000 } as unknown as StagingDeps;
    const p = plan(body(out([]), [lavfi('color=black:s=320x240:d=2')]));
    const resolved = await resolvePlan(deps, 'acc', p);
    expect(resolved[0]!.files).toEqual([]);
    const workDir = await mkdtemp(join(tmpdir(), 'generated-'));
    try {
      const staged = await stagePlan(deps, 'acc', resolved, { workDir, logger });
      expect(staged).toEqual({
        open: [
          {
            path: '',
            demuxer: 'lavfi',
            built: 'lavfi',
            graph: 'color=color=black:s=320x240:d=2',
            args: [],
            streams: ['video'],
            durationSec: 2,
          },
        ],
        bytes: 0,
      });
      expect(await readdir(join(workDir, 'in'))).toEqual([]);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });

  test('a side file named in a filter that its directory lacks: 404 naming the directory and the fix', async () => {
    const storage = {
      resolveFile: ({ file }: { file: { fileName: string } }) =>
        file.fileName === 'in.mp4'
          ? Promise.resolve({ fileInfo: { fileSize: 10n } })
          : Promise.reject(new ConnectError('File not found in directory', Code.NotFound)),
    };
    const deps = { storage, allowlist: EMPTY_CIDR_LIST, timeoutMs: 5_000 } as unknown as StagingDeps;
    const err = await resolvePlan(deps, 'acc', plan(single(['-vf', 'lut3d=grade.cube']))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({
      status: 404,
      message: `File 'grade.cube', named in a filter of the task, is not in directory ${DIR} (the directory of the task's inputs): upload it there, or add it to task.inputs`,
    });
  });
});
