// Ordinary conversion and thumbnail tasks, as users of an FFmpeg API send them. Used by
// policy-ordinary.test.ts: every row must pass the policy.
import { body, DIR, single } from './policy-fixtures.js';

export const TWO = [`${DIR}/in.mp4`, `${DIR}/logo.png`];
export const URL_INPUT = ['https://media.example.com/videos/clip.mp4'];

export type Row = [title: string, task: unknown];

export const ORDINARY_TASKS: Row[] = [
  ['mp4 to webm with libvpx-vp9 and libopus', single(['-c:v', 'libvpx-vp9', '-crf', '32', '-b:v', '0', '-row-mt', '1', '-deadline', 'good', '-cpu-used', '2', '-c:a', 'libopus', '-b:a', '96k'], 'out.webm')],
  ['H.264 with crf, preset, profile, level, tune, pix_fmt and faststart', single(['-c:v', 'libx264', '-crf', '23', '-preset', 'medium', '-profile:v', 'high', '-level', '4.1', '-tune', 'film', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-c:a', 'aac', '-b:a', '128k'])],
  ['thumbnail at one second', single(['-ss', '00:00:01', '-frames:v', '1', '-vf', 'scale=320:-2'], 'thumb.jpg')],
  ['numbered thumbnails, one per second', single(['-vf', 'fps=1', '-frames:v', '10'], 'thumb_%03d.png')],
  ['audio extract to mp3', single(['-vn', '-c:a', 'libmp3lame', '-b:a', '192k'], 'audio.mp3')],
  ['first audio stream copied', single(['-map', '0:a:0', '-c:a', 'copy'], 'audio.m4a')],
  ['filter_complex with two labelled outputs', single(['-filter_complex', '[0:v]scale=640:-2[v];[0:a]volume=0.5[a]', '-map', '[v]', '-map', '[a]'])],
  ['GIF with palettegen/paletteuse', single(['-vf', 'fps=10,scale=320:-1:flags=lanczos,split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse', '-loop', '0'], 'out.gif')],
  ['metadata title with spaces', single(['-metadata', 'title=My video', '-c', 'copy'])],
  // Metadata values are only written into the file, never opened: text that looks like a protocol or URL is fine.
  ['metadata title starting with a protocol name', single(['-metadata', 'title=Data: results', '-c', 'copy'])],
  ['metadata comment with a URL', single(['-metadata', 'comment=see https://example.com', '-c', 'copy'])],
  ['stream copy to mkv', single(['-c', 'copy'], 'out.mkv')],
  ['copy video, re-encode audio', single(['-c:v', 'copy', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000'])],
  ['trim and atrim with setpts', single(['-filter_complex', '[0:v]trim=start=2:end=5,setpts=PTS-STARTPTS[v];[0:a]atrim=start=2:end=5,asetpts=PTS-STARTPTS[a]', '-map', '[v]', '-map', '[a]'])],
  ['first ten seconds', single(['-t', '10', '-c', 'copy'])],
  ['until five seconds', single(['-to', '00:00:05'])],
  ['drop audio', single(['-an', '-c:v', 'libx264'])],
  ['explicit muxer', single(['-f', 'mp4', '-c', 'copy'], 'out.mp4')],
  ['watermark overlay from a second input', single(['-filter_complex', '[0:v][1:v]overlay=W-w-10:H-h-10', '-c:a', 'copy'], 'out.mp4', TWO)],
  ['stack two inputs', single(['-filter_complex', '[0:v][1:v]vstack=inputs=2[v]', '-map', '[v]'], 'out.mp4', [`${DIR}/a.mp4`, `${DIR}/b.mp4`])],
  ['limit width and force yuv420p', single(['-vf', "scale='min(1280,iw)':-2,format=yuv420p"])],
  ['keyframes as images', single(['-vf', "select='eq(pict_type\\,I)'", '-fps_mode', 'vfr', '-frames:v', '20'], 'key_%04d.jpg')],
  ['loudness normalisation', single(['-af', 'loudnorm=I=-16:TP=-1.5:LRA=11', '-ar', '48000'], 'out.m4a')],
  ['speed up audio', single(['-af', 'atempo=1.5,volume=-3dB'], 'out.mp3')],
  ['rotate and mirror', single(['-vf', 'transpose=1,hflip'])],
  ['contact sheet', single(['-vf', "select='not(mod(n\\,100))',scale=160:-1,tile=4x4", '-frames:v', '1'], 'sheet.png')],
  ['waveform picture', single(['-filter_complex', 'showwavespic=s=1280x240', '-frames:v', '1'], 'wave.png')],
  ['HEVC for Apple players', single(['-c:v', 'libx265', '-crf', '28', '-preset', 'fast', '-tag:v', 'hvc1', '-c:a', 'copy'])],
  ['pillarbox to 16:9', single(['-vf', 'pad=ih*16/9:ih:(ow-iw)/2:0:black'])],
  ['fade in and out', single(['-vf', 'fade=t=in:st=0:d=1,fade=t=out:st=9:d=1', '-af', 'afade=t=in:d=1'])],
  ['concatenate two clips', single(['-filter_complex', '[0:v][0:a][1:v][1:a]concat=n=2:v=1:a=1[v][a]', '-map', '[v]', '-map', '[a]'], 'out.mp4', [`${DIR}/a.mp4`, `${DIR}/b.mp4`])],
  ['all streams but subtitles', single(['-map', '0', '-map', '-0:s', '-c', 'copy'], 'out.mkv')],
  ['constrained bitrate with fixed GOP', single(['-c:v', 'libx264', '-b:v', '2M', '-maxrate', '2M', '-bufsize', '4M', '-g', '48', '-keyint_min', '48', '-sc_threshold', '0'])],
  ['opus voice', single(['-vn', '-c:a', 'libopus', '-b:a', '64k', '-vbr', 'on', '-application', 'voip'], 'voice.opus')],
  ['stream language tag', single(['-c', 'copy', '-metadata:s:a:0', 'language=eng'])],
  ['deinterlace, scale, 30 fps', single(['-vf', 'yadif,scale=1280:720', '-r', '30'])],
  ['size and aspect options', single(['-s', '1280x720', '-aspect', '16:9'])],
  ['animated webp', single(['-c:v', 'libwebp_anim', '-lossless', '0', '-quality', '80', '-loop', '0', '-an'], 'anim.webp')],
  ['strip metadata', single(['-map_metadata', '-1', '-c', 'copy'])],
  ['filter on the first video stream', single(['-filter:v:0', 'scale=640:-2'])],
  ['lavfi alias with waveform video', single(['-lavfi', '[0:a]showwaves=s=640x120:mode=line[v]', '-map', '[v]', '-map', '0:a'])],
  ['public HTTPS input', single(['-c:v', 'libx264', '-crf', '20'], 'out.mp4', URL_INPUT)],
  ['AV1', single(['-c:v', 'libaom-av1', '-crf', '30', '-cpu-used', '6', '-row-mt', '1'], 'out.mkv')],
  ['crop and colour', single(['-vf', 'crop=in_w/2:in_h/2,eq=brightness=0.06:saturation=1.2'])],
  ['box on the picture', single(['-vf', 'drawbox=x=10:y=10:w=100:h=100:color=red@0.5:t=fill'])],
  ['upscale two times', single(['-vf', 'scale=iw*2:-2:flags=lanczos'])],
  ['keyframe every two seconds', single(['-c:v', 'libx264', '-force_key_frames', 'expr:gte(t,n_forced*2)'])],
  ['two outputs: video and poster', body([
    { file: 'out.mp4', options: ['-c:v', 'libx264', '-crf', '23'] },
    { file: 'poster.jpg', options: ['-ss', '2', '-frames:v', '1', '-q:v', '2'] },
  ])],
  ['mono 16 kHz wav for speech', single(['-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le'], 'speech.wav')],
  ['filtergraph with a timeline option', single(['-vf', "hflip=enable='between(t,1,3)'"])],
];
