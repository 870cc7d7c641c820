/**
 * The User-Agent paywatch sends to providers and directories, so an operator can tell who is knocking
 * (the probes' politeness rule, docs/intelligence.md): `paywatch/<version> (+<repository or homepage URL>)`, the URL taken from
 * package.json `repository`/`homepage`; without one, only `paywatch/<version>`.
 */
import { createRequire } from 'node:module';

interface PackageJson {
  version: string;
  homepage?: string;
  repository?: string | { url?: string };
}

// Two folders up from src/net, dist/net and dist/bundle alike (scripts/bundle.mjs): the one read of package.json.
const pkg = createRequire(import.meta.url)('../../package.json') as PackageJson;

/** The package version from package.json, e.g. "0.1.0". */
export const PAYWATCH_VERSION: string = pkg.version;

function projectUrl(): string | null {
  const repo = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const url = (repo ?? pkg.homepage ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
  return /^https?:\/\//.test(url) ? url : null;
}

/** The identifying User-Agent string, e.g. "paywatch/0.1.0 (+https://github.com/…)". */
export const USER_AGENT: string = projectUrl() ? `paywatch/${PAYWATCH_VERSION} (+${projectUrl()})` : `paywatch/${PAYWATCH_VERSION}`;
