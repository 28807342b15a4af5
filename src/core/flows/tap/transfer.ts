/**
 * Transfer: a tap learned on one device model, used on another model of the platform without a
 * model request when the evidence is unambiguous (docs/transfer.md).
 */

/** The `model` of a transferred record and log entry. */
export const TRANSFER_MODEL = "local:transfer";
