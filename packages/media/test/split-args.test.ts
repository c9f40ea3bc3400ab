// The options of a split run's parts and of its join, derived from the task's output options.
import { joinArgs, mapProblem, partArgs } from '../src/ffmpeg/split/split-args.js';

const MP4 = ['-c:v', 'libx264', '-preset', 'fast', '-crf', '23', '-x264-params', 'ref=2', '-vf', 'scale=w=640:h=-2', '-pix_fmt', 'yuv420p'];
const AUDIO = ['-c:a', 'aac', '-b:a', '128k', '-af', 'volume=0.5', '-ar', '44100'];
const MUXER = ['-movflags', '+faststart', '-tag:v', 'avc1', '-metadata', 'title=x', '-f', 'mp4'];

describe('partArgs', () => {
  it("keeps the video encode, drops the muxer's and the audio's options, and writes video alone into Matroska", () => {
    expect(partArgs([...MP4, ...AUDIO, ...MUXER], 250)).toEqual([...MP4, '-an', '-sn', '-dn', '-frames:v', '250', '-f', 'matroska']);
  });

  it('leaves the last part without a frame count, and drops HLS options', () => {
    const hls = ['-c:v', 'libvpx-vp9', '-b:v', '1M', '-g', '48', '-hls_time', '4', '-hls_segment_filename', 'file:out/out%d.ts'];
    expect(partArgs(hls, undefined)).toEqual(['-c:v', 'libvpx-vp9', '-b:v', '1M', '-g', '48', '-an', '-sn', '-dn', '-f', 'matroska']);
  });
});

describe('joinArgs', () => {
  it("drops what shapes the video encode, keeps the audio's and the muxer's, and copies the video", () => {
    expect(joinArgs([...MP4, ...AUDIO, ...MUXER])).toEqual([...AUDIO, ...MUXER, '-c:v', 'copy']);
  });

  it('reads aliases (-vcodec, -vtag, -b is -b:v) and keeps options of no stream type, which reach the audio encoder too', () => {
    const args = ['-vcodec', 'libx265', '-b', '900k', '-tune', 'grain', '-vtag', 'hvc1', '-threads', '2', '-ab', '96k'];
    expect(joinArgs(args)).toEqual(['-vtag', 'hvc1', '-threads', '2', '-ab', '96k', '-c:v', 'copy']);
    expect(partArgs(args, 10)).toEqual([
      '-vcodec',
      'libx265',
      '-b',
      '900k',
      '-tune',
      'grain',
      '-threads',
      '2',
      '-an',
      '-sn',
      '-dn',
      '-frames:v',
      '10',
      '-f',
      'matroska',
    ]);
  });
});

describe('maps', () => {
  const args = ['-map', '1:v:0', '-map', '1:a?', '-map', '0:a', '-c:v', 'libx264'];

  it("take the parts' video in the join (the parts' input comes last), and only the video in a part", () => {
    expect(mapProblem(args, 1)).toBeUndefined();
    expect(joinArgs(args, 1, 2)).toEqual(['-map', '2:v:0', '-map', '1:a?', '-map', '0:a', '-c:v', 'copy']);
    expect(partArgs(args, 5, 1)).toEqual(['-map', '0:v:0', '-c:v', 'libx264', '-an', '-sn', '-dn', '-frames:v', '5', '-f', 'matroska']);
  });

  it.each([
    [['-map', '0'], "the output map 0 is not split (map the input's streams by type)"],
    [['-map', '0:1'], "the output map 0:1 is not split (map the input's streams by type)"],
    [['-map', '0:a'], 'the output maps no video of the split input'],
  ])('say why %j is not split', (maps, reason) => {
    expect(mapProblem([...maps, '-c:v', 'libx264'], 0)).toBe(reason);
  });
});
