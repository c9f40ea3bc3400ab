// Side files: files that a filter option (drawtext fontfile=, subtitles=, lut3d file=...) or
// -attach reads, rather than ffmpeg opening them as media inputs. The value names an input of the
// task (its file name, or its file_path), or, for a filter, by its bare file name alone, a file of
// the directory of the task's uploaded inputs (lut3d=grade.cube, uploaded next to the video). The
// service stages it like a listed one and the option gets the staged path. Anything else (a path,
// a URL, another directory) is refused with the way to name it.
import { extensionOf, fileNameProblem } from '../file-name.js';
import { LIMITS } from '../limits.js';
import { pathOrUrlProblem } from '../path-like.js';
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

const example = (use: SideKind | 'attachment') =>
  use === 'subtitles' ? 'subtitles=subs.srt' : use === 'font' ? 'fontfile=font.ttf' : use === 'data' ? 'lut3d=grade.cube' : "'notes.txt'";

export class SideFiles {
  /** Input index -> what reads it (task inputs, then the files named only in filters). */
  readonly uses = new Map<number, SideUse>();
  /** Side files named only in a filter option, in the uploaded inputs' directory; indexes follow the task's inputs. */
  readonly named: NamedSource[] = [];

  constructor(private readonly inputs: readonly NamedSource[]) {}

  /** Resolves `value` to a task input and records the use; returns the path to give ffmpeg. */
  reference(use: SideKind | 'attachment', value: string, what: string): string {
    const listed = this.inputs.filter((i) => i.source.kind !== 'generated');
    const byPath = listed.filter((i) => i.filePath === value);
    const byName = listed.filter((i) => i.name === value);
    const matches = byPath.length > 0 ? byPath : byName.length > 0 ? byName : this.named.filter((i) => i.name === value);
    if (matches.length > 1) refuse(`${what} names ${show(value)}, which matches several task inputs; name it by its file_path`);
    const input = matches[0] ?? this.nameInDirectory(use, value, what);
    const before = this.uses.get(input.index);
    if (before !== undefined && before !== use && (before === 'subtitles' || use === 'subtitles')) {
      refuse(
        `${input.index < this.inputs.length ? `task.inputs[${input.index}]` : show(input.name)} is used both as ${before === 'subtitles' ? 'subtitles' : `a ${before} file`} and as ${use === 'subtitles' ? 'subtitles' : `a ${use} file`}; list it once for each use`,
      );
    }
    if (before === undefined) this.uses.set(input.index, use);
    return sideFilePath(input.index, input.name);
  }

  /** A bare file name not among the task's inputs: the file of that name in the uploaded inputs' directory. */
  private nameInDirectory(use: SideKind | 'attachment', value: string, what: string): NamedSource {
    // -attach names a task input only: the files a filter reads are the ones looked up.
    if (use === 'attachment') {
      refuse(
        `${what} names ${show(value)}, which is not an input of the task: add the file to task.inputs, after the media inputs, and name it by its file name (for example ${example(use)})`,
      );
    }
    const fix = `name a file of the directory of the task's inputs by its file name alone (for example ${example(use)}), or add the file to task.inputs, after the media inputs`;
    const pathLike = pathOrUrlProblem(value) ?? (value.includes('/') ? 'a path' : null);
    if (pathLike) refuse(`${what} names ${show(value)}, which is not an input of the task but ${pathLike}: ${fix}`);
    const badName = fileNameProblem(value);
    if (badName) refuse(`${what} names ${show(value)}, which is not an input of the task, and a file name ${badName}: ${fix}`);
    const dirs = new Set(this.inputs.flatMap((i) => (i.source.kind === 'uploaded' ? [i.source.dirId] : [])));
    const dirId = [...dirs][0];
    if (dirs.size !== 1 || dirId === undefined) {
      refuse(
        `${what} names ${show(value)}, which is not an input of the task, and the task has no uploaded input whose directory could hold it: add the file to task.inputs, after the media inputs, and name it by its file name (for example ${example(use)})`,
      );
    }
    const index = this.inputs.length + this.named.length;
    if (index >= LIMITS.maxInputs) refuse(`The task reads more than ${LIMITS.maxInputs} files (its inputs and the files its filters name)`);
    const named: NamedSource = { index, source: { kind: 'uploaded', dirId, fileName: value }, filePath: `${dirId}/${value}`, name: value };
    this.named.push(named);
    return named;
  }
}
