// The one decision of a save, shared by the SQL stores: given the stored header (or none), is the write current,
// does it fit the bound, and what is written (the new version, title, state and the encoded entries).
import { byteLength, encodeValue } from '../codec.js';
import { type CheckedSave, sessionNotStored, sessionTooLarge, staleWrite } from '../validate.js';

/** A session's header as a store reads it before a save. */
export interface StoredHeader {
  readonly version: number;
  readonly title: string | null;
  readonly createdAt: string;
  readonly stateText: string;
  readonly stateBytes: number;
  readonly bytes: number;
}

/** What a save writes. */
export interface SavePlan extends StoredHeader {
  /** The session is new: insert its header rather than update it. */
  readonly create: boolean;
  /** The save's entries, encoded. */
  readonly entriesText: string;
}

/**
 * Decides a save against what is stored.
 *
 * @throws SessionStoreError `SESSION_NOT_FOUND`, `STALE_WRITE`, `SESSION_TOO_LARGE`.
 */
export function planSave(
  save: CheckedSave<unknown>,
  stored: StoredHeader | undefined,
  maxSessionBytes: number,
): SavePlan {
  if (stored === undefined && save.expectedVersion > 0)
    throw sessionNotStored(save.sessionId, save.expectedVersion);
  const actual = stored?.version ?? 0;
  if (actual !== save.expectedVersion) throw staleWrite(save.sessionId, save.expectedVersion, actual);
  const entriesText = encodeValue(save.append);
  const stateText = save.state === undefined ? (stored?.stateText ?? '{}') : encodeValue(save.state);
  const stateBytes =
    save.state === undefined && stored !== undefined ? stored.stateBytes : byteLength(stateText);
  const bytes = (stored?.bytes ?? 0) - (stored?.stateBytes ?? 0) + stateBytes + byteLength(entriesText);
  if (bytes > maxSessionBytes) throw sessionTooLarge(save.sessionId, bytes, maxSessionBytes);
  return {
    create: stored === undefined,
    version: actual + 1,
    title: save.title === undefined ? (stored?.title ?? null) : save.title,
    createdAt: stored?.createdAt ?? save.updatedAt,
    stateText,
    stateBytes,
    bytes,
    entriesText,
  };
}
