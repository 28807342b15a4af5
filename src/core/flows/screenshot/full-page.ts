/*
 * Whole-page baselines (docs/api.md "Whole-page baselines"): the parts of a baseline's
 * `StoredKind` that differ when `fullPage` is set. A use takes the page (page-capture.ts) and
 * compares it (page-check.ts); a learn takes it and has the model judge the whole page,
 * downscaled by the provider to its image limits; mode update stores the page taken, with no
 * model. The rest (not stored, failing) is the single screen's (baseline-kind.ts).
 */
import { InputError, RejectedError, ScreenshotMismatchError, clause } from "../../ground/errors.js";
import type { Call } from "../../run/call.js";
import { toAiImage } from "../../run/call.js";
import type { NewValue, StoredKind } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/baseline-record.js";
import type { ScreenshotParams } from "./input.js";
import { baselineFields, checkVarying, refuseBlank, type BaselinePlace } from "./judge.js";
import { capturePage, describePage, type CapturedPage } from "./page-capture.js";
import { comparePage, pageMasks } from "./page-check.js";
import { reportMismatch, type PixelMismatch, type ScreenshotDone, type StoredBaseline } from "./pixel-check.js";
import { updateBaseline } from "./update.js";

type BaselineKind = StoredKind<BaselineRecord, ScreenshotDone, PixelMismatch>;

/** `kind` for a whole page: its use, learn and heal replaced. */
export function fullPageKind(
  call: Call,
  params: ScreenshotParams,
  place: BaselinePlace,
  kind: BaselineKind,
): BaselineKind {
  const fullPage = params.fullPage!;
  const take = (until: number, stored?: StoredBaseline) =>
    capturePage(call, { fullPage, settle: params.settle, until, ...(stored && { storedPage: stored.image }) });
  return {
    ...kind,

    use: async (stored, until) => {
      refuseOtherKind(call, params, stored, place);
      return comparePage(call, stored, await take(until, stored), params);
    },

    useNow: async (stored) => {
      refuseOtherKind(call, params, stored, place);
      const used = await comparePage(call, stored, await take(call.deadline.end, stored), params);
      return "done" in used ? used.done : null;
    },

    // The page takes at most half of what is left, keeping the rest for the model.
    learn: async () => learnPage(call, params, place, await take(call.deadline.after("matchBeforeHeal"))),

    // Mode update stores the page the failed comparison took; autoHeal asks the model about it first.
    heal: async (stored, mismatch) =>
      call.config.mode === "update"
        ? updatePage(call, params, stored, mismatch)
        : healPage(call, params, { stored, mismatch, place }),
  };
}

/**
 * A single-screen call on a whole-page baseline, or the reverse: a clear error, never a
 * comparison of a screen with a page.
 */
export function refuseOtherKind(
  call: Call,
  params: Pick<ScreenshotParams, "name" | "fullPage">,
  stored: StoredBaseline,
  { where }: BaselinePlace,
): void {
  const storedPage = stored.record.fullPage;
  if (Boolean(storedPage) === Boolean(params.fullPage)) return;
  const subject = `toMatchScreenshot "${params.name}" on ${call.deviceSlug}`;
  throw new InputError(
    storedPage
      ? `${subject}: the baseline stored under this name (${where}.json) is a whole page of ${storedPage.screens} ` +
          `screens (${storedPage.height} px), so a single screen cannot be compared with it. Pass { fullPage: true }, ` +
          `or give this check another name.`
      : `${subject}: the baseline stored under this name (${where}.json) is a single screen, so a whole page ` +
          `cannot be compared with it. Drop fullPage, or give this check another name.`,
  );
}

function fullPageField(page: CapturedPage) {
  return { screens: page.layout.offsets.length, height: page.layout.height };
}

/** Judge the whole page against the prompt; what to store. */
async function learnPage(
  call: Call,
  params: ScreenshotParams,
  { key }: BaselinePlace,
  page: CapturedPage,
): Promise<NewValue<BaselineRecord, ScreenshotDone>> {
  const size = { width: page.raw.width, height: page.raw.height };
  const shot = { png: page.png, raw: page.raw };
  await refuseBlank(call, shot, pageMasks({ device: call.device, varying: [] }, size.height, params), params);
  // Other devices' baselines are not sent: a page's references would be pages, and one tall image is enough to read.
  const answer = await call.ask({
    kind: "judge",
    screen: await toAiImage(page.png),
    prompt: params.prompt,
    references: [],
  });
  if (!answer.accept) {
    await call.report("screenshot", page.png);
    throw new RejectedError(
      `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: the model (${answer.model}) found that the page ` +
        `(${describePage(page)}) does not show "${params.prompt}": ${clause(answer.reason)}. Nothing was stored. ` +
        `If the page is right, describe it more precisely in the prompt; otherwise fix the app.`,
    );
  }
  const varying = checkVarying(call, answer.varying ?? [], { model: answer.model, kind: "judge", size });
  return {
    fields: {
      ...baselineFields(call, params, { varying, model: answer.model, reason: answer.reason }),
      fullPage: fullPageField(page),
    },
    image: page.png,
    done: {
      outcome: "stored",
      result: { diffPixels: 0 },
      detail: `${key}.json, a whole page of ${describePage(page)}`,
    },
  };
}

/**
 * Mode update: the page of the failed comparison replaces the stored one, no model asked, as a
 * single screen is updated (a page with a screen still changing is not stored).
 */
async function updatePage(
  call: Call,
  params: ScreenshotParams,
  stored: StoredBaseline,
  mismatch: PixelMismatch,
): Promise<NewValue<BaselineRecord, ScreenshotDone>> {
  const updated = await updateBaseline(call, { stored, mismatch, params });
  const screens = mismatch.pageScreens ?? stored.record.fullPage?.screens ?? 1;
  return { ...updated, fields: { ...updated.fields, fullPage: { screens, height: mismatch.shot.raw.height } } };
}

/**
 * autoHeal: the model compares the page taken with the stored one (with the diff image); a real
 * change fails, anything else becomes the baseline. A page of another height has no diff image:
 * it fails as the mismatch it is, to be stored by mode update if intended.
 */
async function healPage(
  call: Call,
  params: ScreenshotParams,
  { stored, mismatch, place }: { stored: StoredBaseline; mismatch: PixelMismatch; place: BaselinePlace },
): Promise<NewValue<BaselineRecord, ScreenshotDone>> {
  const subject = `toMatchScreenshot "${params.name}" on ${call.deviceSlug}`;
  const { shot, baseline, diffPng, text, diffPixels } = mismatch;
  const size = { width: shot.raw.width, height: shot.raw.height };
  if (!diffPng || size.height !== baseline.raw.height) {
    await reportMismatch(call, baseline, shot, diffPng);
    throw new ScreenshotMismatchError(
      `${subject}: ${text}; autoHeal heals a page of the same height only. If the new page is right, rerun with ` +
        `TAPSHOT_MODE=update, or delete ${place.where}.json and .png so the next run judges a new baseline.`,
      diffPixels,
      diffPixels / (baseline.raw.width * baseline.raw.height),
    );
  }
  await refuseBlank(call, shot, pageMasks(stored.record, size.height, params), params);
  const answer = await call.ask({
    kind: "compare",
    screen: await toAiImage(shot.png),
    baseline: await toAiImage(stored.image),
    diff: await toAiImage(diffPng),
    prompt: params.prompt,
  });
  if (answer.realChange) {
    await reportMismatch(call, baseline, shot, diffPng);
    throw new RejectedError(
      `${subject}: ${text}, and the model (${answer.model}) found it a real change: ${clause(answer.reason)}. ` +
        `The baseline was kept. Fix the app; or, if the new page is right, rerun with TAPSHOT_MODE=update.`,
    );
  }
  const varying = answer.varying
    ? checkVarying(call, answer.varying, { model: answer.model, kind: "compare", size })
    : stored.record.varying;
  return {
    fields: {
      ...baselineFields(call, params, { varying, model: answer.model, reason: answer.reason }),
      fullPage: { screens: mismatch.pageScreens ?? stored.record.fullPage?.screens ?? 1, height: size.height },
    },
    image: shot.png,
    done: { outcome: "healed", result: { diffPixels }, detail: `${text}; the model: ${answer.reason}` },
  };
}
