/** The UTC calendar month containing `at`: [start, end), "YYYY-MM" and the next month's first day. */
export function utcMonth(at: Date): { start: Date; end: Date; yearMonth: string; resetsOn: string } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end, yearMonth: start.toISOString().slice(0, 7), resetsOn: end.toISOString().slice(0, 10) };
}
