/*
 * An act's image: its steps' crops stacked top to bottom in one PNG (the "sheet"), so a record
 * keeps one image beside its JSON as every record does (src/core/store/record-io.ts).
 */
import { cutRegion } from "../../pixels/crop.js";
import { encodePng } from "../../pixels/image-encode.js";
import type { RawImage } from "../../pixels/image-decode.js";
import type { ActStep } from "../../store/act-record.js";
import type { DoneStep } from "./learn.js";

/** The stored steps with their places on the sheet, and the sheet as PNG. */
export async function buildSheet(done: DoneStep[]): Promise<{ steps: ActStep[]; image: Buffer; sheet: RawImage }> {
  const width = Math.max(1, ...done.map((d) => d.crop?.width ?? 0));
  const height = Math.max(
    1,
    done.reduce((sum, d) => sum + (d.crop?.height ?? 0), 0),
  );
  const data = Buffer.alloc(width * height * 4);
  let y = 0;
  const steps: ActStep[] = done.map(({ step, crop }) => {
    if (!step.control || !crop) return { ...step, control: undefined } as ActStep;
    for (let row = 0; row < crop.height; row++) {
      crop.data.copy(data, (y + row) * width * 4, row * crop.width * 4, (row + 1) * crop.width * 4);
    }
    const placed = { ...step, control: { ...step.control, sheetY: y } } as ActStep;
    y += crop.height;
    return placed;
  });
  const sheet = { data, width, height };
  return { steps: steps.map(dropUndefined), image: await encodePng(sheet), sheet };
}

/** A stored step's crop, cut from the decoded sheet. */
export function cropOf(sheet: RawImage, control: NonNullable<ActStep["control"]>): RawImage {
  const { width, height } = control.crop;
  return cutRegion(sheet, { x: 0, y: control.sheetY, width, height });
}

function dropUndefined(step: ActStep): ActStep {
  return Object.fromEntries(Object.entries(step).filter(([, v]) => v !== undefined)) as ActStep;
}
