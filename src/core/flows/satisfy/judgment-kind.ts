/*
 * Judgments as stored values (docs/design.md section 4): one per statement and evidence hash on a
 * device, learned by asking the model and used as stored with no model call. A judgment is never
 * healed: other evidence has another hash, so it is another judgment. Like every stored value it is
 * pending until reviewed; a reverted one is deleted, so it is never used again.
 */
import { NotStoredError } from "../../ground/errors.js";
import { toAiImage, type Call } from "../../run/call.js";
import { runStored, type Done, type Mismatch, type StoredKind } from "../../run/lifecycle.js";
import { judgmentKey } from "../../store/keys.js";
import { JudgmentRecordSchema, JudgmentValueSchema, type JudgmentRecord } from "../../store/judgment-record.js";
import { storedImage, type Snapshot } from "./snapshot.js";

/** What the model said about one snapshot. */
export interface Judgment {
  probability: number;
  model: string;
  reason: string;
  /** The store key it is kept under. */
  key: string;
  /** `true` when it was stored before this call (no model call). */
  reused: boolean;
}

/** The statement as judged: what the key and the request carry. */
export interface Statement {
  statement: string;
  context: string | undefined;
}

/** The key of the judgment of `snapshot`. */
function judgmentKeyOf(call: Call, statement: Statement, snapshot: Snapshot): string {
  return judgmentKey(call.device.platform, call.deviceSlug, { ...statement, evidenceHash: snapshot.hash });
}

/** The stored judgment of `snapshot`, or a new one the model gives (stored pending review). */
export async function judge(call: Call, statement: Statement, snapshot: Snapshot): Promise<Done<Judgment>> {
  const key = judgmentKeyOf(call, statement, snapshot);
  return runStored(call, key, judgmentKind(call, key, statement, snapshot));
}

function judgmentKind(
  call: Call,
  key: string,
  statement: Statement,
  snapshot: Snapshot,
): StoredKind<JudgmentRecord, Judgment, Mismatch> {
  const used = (record: JudgmentRecord): Done<Judgment> => ({
    outcome: "replayed",
    result: { probability: record.probability, model: record.model, reason: record.reason, key, reused: true },
    detail: `judgment ${snapshot.hash.slice(0, 12)} stored by ${record.model}`,
  });
  const never = (): never => {
    throw new Error("tapshot bug: a judgment is never healed; please report it with this message.");
  };
  return {
    noun: "judgment",
    schema: JudgmentRecordSchema,
    valueSchema: JudgmentValueSchema,
    healing: false,
    notStored: () =>
      new NotStoredError(
        `No judgment of ${JSON.stringify(statement.statement)} is stored for this evidence on ${call.deviceSlug} ` +
          `(snapshot ${snapshot.hash.slice(0, 12)}, ${key}.json), and mode is "replay". Text judged: ` +
          `${textJudged(snapshot)}. Run once in mode "auto" to judge it, or mask what varies with ignore.`,
      ),
    use: async (stored) => ({ done: used(stored.record) }),
    useNow: async (stored) => used(stored.record),
    fail: never,
    healsTo: async () => undefined,
    heal: never,
    async learn() {
      const answer = await call.ask({
        kind: "satisfy",
        statement: statement.statement,
        evidence: snapshot.text,
        ...(snapshot.image ? { screen: await toAiImage(snapshot.image) } : {}),
        ...(statement.context ? { context: statement.context } : {}),
      });
      const image = await storedImage(call, snapshot);
      return {
        fields: {
          kind: "judgment",
          statement: statement.statement,
          context: statement.context ?? null,
          evidenceHash: snapshot.hash,
          evidence: snapshot.text,
          imageSent: !!snapshot.image,
          shot: snapshot.shot,
          device: call.device,
          probability: answer.probability,
          model: answer.model,
          reason: answer.reason,
        },
        image,
        done: {
          outcome: "learned",
          result: { probability: answer.probability, model: answer.model, reason: answer.reason, key, reused: false },
          detail: `judged snapshot ${snapshot.hash.slice(0, 12)}`,
        },
      };
    },
  };
}

/** The text judged, quoted and cut, for messages (typed text is never in it). */
export function textJudged(snapshot: Snapshot, max = 300): string {
  const text =
    snapshot.evidence.text.map((t) => JSON.stringify(t)).join(" ") ||
    (snapshot.image ? "(no text: judged from the image)" : "(no text)");
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
