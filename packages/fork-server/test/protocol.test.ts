// The protocol between a service and its fork server: requests, wait statuses, frames.
import { decodeStatus, encodeRequest, FrameReader } from '../src/index.js';

describe('protocol', () => {
  it('encodes a request as counted lists of NUL-terminated strings', () => {
    expect(encodeRequest('/w', { A: '1' }, { as: 5 }, ['ffmpeg', '-i', 'x']).toString()).toBe(
      'FS1\0/w\x001\0A=1\x001\0as=5\x003\0ffmpeg\0-i\0x\0',
    );
    expect(() => encodeRequest('/w', {}, {}, ['ffmpeg', 'a\0b'])).toThrow('NUL');
  });

  it('reads wait statuses as a direct run reports them', () => {
    expect(decodeStatus(0)).toEqual({ exitCode: 0, signal: undefined });
    expect(decodeStatus(1 << 8)).toEqual({ exitCode: 1, signal: undefined });
    expect(decodeStatus(9)).toEqual({ exitCode: undefined, signal: 'SIGKILL' });
    expect(decodeStatus(25 | 0x80)).toEqual({ exitCode: undefined, signal: 'SIGXFSZ' }); // core flag set
  });

  it('splits frames that arrive in any pieces', () => {
    const frames: string[] = [];
    const reader = new FrameReader((type, payload) => frames.push(`${String.fromCharCode(type)}:${payload.toString()}`));
    const frame = (type: string, text: string) =>
      Buffer.concat([Buffer.from([type.charCodeAt(0), 0, 0, 0, text.length]), Buffer.from(text)]);
    const all = Buffer.concat([frame('p', '42'), frame('e', 'oops\n'), frame('x', '0 1 2 3')]);
    for (let i = 0; i < all.length; i++) reader.push(all.subarray(i, i + 1));
    expect(frames).toEqual(['p:42', 'e:oops\n', 'x:0 1 2 3']);
  });
});
