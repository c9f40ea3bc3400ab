// Side files: task inputs that a filter option (drawtext fontfile=, subtitles=, lut3d file=...) or
// -attach reads, rather than ffmpeg opening them as media inputs. The value must name an input of
// the task (its file name, or its file_path); the service stages it and the option gets the staged
// path. Anything else (a path, a URL, a file the task does not list) is refused.
import { extensionOf } from '../file-name.js';
import { refuse, show } from '../refuse.js';
import type { SideKind } from '../verdicts/types.js';
import type { PlannedSource, SideUse } from './types.js';

export interface NamedSource {
  index: number;
  source: PlannedSource;
  /** task.inputs[i].file_path as given. */
  filePath: string;
  /** Its file name (the URL's last path segment for URL inputs). */
  name: string;
}

/** The directory, in the work directory, side files are staged in. */
export const SIDE_DIR = 'side';

/** Where a side file is staged, relative to the work directory (the extension kept: libass and fontconfig look at it). */
export function sideFilePath(index: number, name: string): string {
  const ext = extensionOf(name);
  return `${SIDE_DIR}/${index}${/^[a-z0-9]{1,10}$/.test(ext) ? `.${ext}` : ''}`;
}

export class SideFiles {
  /** Input index -> what reads it. */
  readonly uses = new Map<number, SideUse>();

  constructor(private readonly inputs: readonly NamedSource[]) {}

  /** Resolves `value` to a task input and records the use; returns the path to give ffmpeg. */
  reference(use: SideKind | 'attachment', value: string, what: string): string {
    const byPath = this.inputs.filter((i) => i.filePath === value);
    const byName = this.inputs.filter((i) => i.name === value);
    const matches = byPath.length > 0 ? byPath : byName;
    if (matches.length === 0) {
      refuse(
        `${what} names ${show(value)}, which is not an input of the task: add the file to task.inputs, after the media inputs, and name it by its file name (for example ${use === 'subtitles' ? 'subtitles=subs.srt' : use === 'font' ? 'fontfile=font.ttf' : "'notes.txt'"})`,
      );
    }
    if (matches.length > 1) refuse(`${what} names ${show(value)}, which matches several task inputs; name it by its file_path`);
    const input = matches[0]!;
    const before = this.uses.get(input.index);
    if (before !== undefined && before !== use && (before === 'subtitles' || use === 'subtitles')) {
      refuse(
        `task.inputs[${input.index}] is used both as ${before === 'subtitles' ? 'subtitles' : `a ${before} file`} and as ${use === 'subtitles' ? 'subtitles' : `a ${use} file`}; list it once for each use`,
      );
    }
    if (before === undefined) this.uses.set(input.index, use);
    return sideFilePath(input.index, input.name);
  }
}
