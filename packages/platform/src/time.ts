import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';

/** ISO 8601 UTC with milliseconds, the spec's <timestamp>. */
export const iso = (date: Date): string => date.toISOString();
export const toTimestamp = (date: Date): Timestamp => timestampFromDate(date);
export const fromTimestamp = (ts: Timestamp | undefined): Date | undefined => (ts ? timestampDate(ts) : undefined);
export const isoFromTimestamp = (ts: Timestamp | undefined): string | null => (ts ? iso(timestampDate(ts)) : null);
