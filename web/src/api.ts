/**
 * The explorer's only way to the network: GET requests to the public API of the origin it was served from, and the
 * trust check's key and check calls. Errors become ApiError with the API's own `{error}` text; a 429 or 503 says
 * "try again in N s" from Retry-After.
 */

/** An answer that was not 2xx, or a network failure. `status` is 0 when nothing came back. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** The manifest's member this module reads: the server's per-client budget of heavy reads. */
type HeavyBudget = { rate_limits: { heavy_requests_in_flight_per_client: number } };

/**
 * Heavy reads (metrics, series, filtered lists) the server lets one client run at once: its per-client budget, read
 * once from the manifest (1 while the manifest cannot be read, asked again on the next heavy read).
 */
let heavyAtOnce: Promise<number> | null = null;
let heavyRunning = 0;
const heavyWaiting: (() => void)[] = [];

const isHeavy = (path: string) => /^\/api\/(metrics|export)|^\/api\/transactions\?.*(q|asset|exchange|execution)=/.test(path);

function heavyBudget(): Promise<number> {
  heavyAtOnce ??= getJson<HeavyBudget>('/.well-known/paywatch.json').then(
    (m) => Math.max(1, m.rate_limits.heavy_requests_in_flight_per_client),
    () => {
      heavyAtOnce = null;
      return 1;
    },
  );
  return heavyAtOnce;
}

async function heavySlot<T>(run: () => Promise<T>): Promise<T> {
  const budget = await heavyBudget();
  while (heavyRunning >= budget) await new Promise<void>((r) => heavyWaiting.push(r));
  heavyRunning++;
  try {
    return await run();
  } finally {
    heavyRunning--;
    heavyWaiting.shift()?.();
  }
}

/** Turns a non-2xx Response into an ApiError (its `{error}` text; Retry-After on 429/503). */
async function failure(r: Response): Promise<ApiError> {
  let text = `HTTP ${r.status}`;
  try {
    const body = (await r.json()) as { error?: unknown };
    if (typeof body.error === 'string') text = body.error;
  } catch {
    // not JSON: keep the status line
  }
  const after = Number(r.headers.get('retry-after'));
  if ((r.status === 429 || r.status === 503) && Number.isFinite(after) && r.headers.get('retry-after') !== null) {
    return new ApiError(`${text} (try again in ${after} s)`, r.status, after);
  }
  return new ApiError(text, r.status);
}

/**
 * GET `path` (e.g. "/api/status") from the public API and parse its JSON.
 * @throws ApiError with the API's message, or status 0 when the network failed
 */
export async function getJson<T>(path: string): Promise<T> {
  const go = async () => {
    let r: Response;
    try {
      r = await fetch(path, { headers: { accept: 'application/json' } });
    } catch (e) {
      throw new ApiError(`the API could not be reached (${(e as Error).message})`, 0);
    }
    if (!r.ok) throw await failure(r);
    return (await r.json()) as T;
  };
  return isHeavy(path) ? heavySlot(go) : go();
}

/**
 * POST a JSON body to an absolute URL (the trust check's listener), with an optional bearer key.
 * @throws ApiError as getJson
 */
export async function postJson<T>(url: string, body: unknown, key?: string): Promise<T> {
  let r: Response;
  try {
    r = await fetch(url, {
      method: 'POST',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(`the trust check could not be reached (${(e as Error).message})`, 0);
  }
  if (!r.ok) throw await failure(r);
  return (await r.json()) as T;
}

/** A query string from the members that are set (empty strings and undefined are left out). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
