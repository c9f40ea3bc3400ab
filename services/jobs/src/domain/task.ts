// A task after validation: where each input comes from and the checked argv of each output.
import type { StageableInput } from '@media/media';

export type TaskInput = StageableInput;

export interface PlannedOutput {
  /** Output file name (may hold a numbered pattern such as thumb_%03d.png). */
  fileName: string;
  /** Allow-listed option tokens. */
  args: string[];
}

export interface PlannedTask {
  inputs: TaskInput[];
  outputs: PlannedOutput[];
}
