/** Display helpers. Every value from the API is shown as text (never as markup); unknown is "unknown", never 0. */

/** "unknown" for null/undefined, else the value as text. */
export const known = (v: unknown): string => (v === null || v === undefined ? 'unknown' : String(v));

/** UTC date-time of Unix seconds, "2026-11-25 03:44:01 UTC"; "unknown" for null. */
export function utc(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'unknown';
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** An ISO time as "2026-11-25 03:44:01 UTC"; "unknown" for null. */
export function iso(t: string | null | undefined): string {
  if (!t) return 'unknown';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** "0xabcd…1234" for long hex strings. */
export const short = (h: string | null | undefined): string => (!h ? 'unknown' : h.length > 14 ? `${h.slice(0, 8)}…${h.slice(-6)}` : h);

/** Seconds as "3 s", "4 min", "2 h 5 min", "3 d 4 h". */
export function duration(s: number | null | undefined): string {
  if (s === null || s === undefined) return 'unknown';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

export const HASH = /^0x[0-9a-fA-F]{64}$/;
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const SERVICE_ID = /^[a-f0-9]{64}$/;
