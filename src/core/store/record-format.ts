/*
 * What every kind of stored record shares: the format version, the field schemas the kinds have
 * in common, and how a record's sizes are written in messages.
 */
import { z } from "zod";
import type { Size } from "../ground/geometry.js";

/**
 * Version of the record format written; bumped when a change needs migration. Format 2 added
 * `review` and `rejected`; a format 1 record has neither and reads as accepted, with no rejections.
 */
export const FORMAT = 2;
/** Every format version a reader accepts. */
export const FormatSchema = z.union([z.literal(1), z.literal(FORMAT)]);

/** A point in screenshot pixels. */
export const PointSchema = z.object({ x: z.number(), y: z.number() });
/** An ISO 8601 date-time, as records store times. */
export const IsoDate = z.string().datetime();

/** `1080x2400`, for messages about a record's sizes. */
export function sizeText(size: Size): string {
  return `${size.width}x${size.height}`;
}
