/**
 * Real local paid services for the demo and the tests: an x402 v2 server, an x402 v1 server and an MPP server
 * (see ./services.ts), plus one directory server that is both their x402 facilitator (./facilitator.ts) and the
 * discovery directory listing them (./directory.ts). Everything listens on loopback at free ports; probing them
 * needs `allowLoopback: true`.
 */
import { DemoError } from '../errors.js';
import { Hono } from 'hono';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from '../../chain/anvil.js';
import type { SourceConfig } from '../../intel/sources/index.js';
import { mountDirectory, type ListedService } from './directory.js';
import { mountFacilitator } from './facilitator.js';
import { listen, type Listening } from './listen.js';
import {
  ALPHA_USD,
  BASE_SEPOLIA_USDC,
  buildService,
  PATH_USD,
  type BuiltService,
  type DemoProtocol,
  type ServiceDefinition,
  type ServiceTerms,
} from './services.js';

/**
 * The intel sources that read the directory at `directoryUrl`: its Bazaar and its MPP registry (what `paywatch demo`
 * and the tests collect).
 */
export function directorySources(directoryUrl: string): SourceConfig[] {
  return [
    { name: 'demo-bazaar', kind: 'bazaar', url: directoryUrl },
    { name: 'demo-mpp-registry', kind: 'mpp-registry', url: `${directoryUrl}/api/services` },
  ];
}

export { PATH_USD, ALPHA_USD, BASE_SEPOLIA_USDC, type DemoProtocol, type ServiceTerms } from './services.js';

export interface PaidServicesOptions {
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** JSON-RPC the facilitator verifies/settles against and the MPP server reads payments from (a local anvil node); default http://127.0.0.1:8545. */
  rpcUrl?: string;
  /** mppx server secret; default a fixed demo value (these services hold no funds). */
  mppSecret?: string;
}

/** One running demo service. */
export interface RunningService {
  name: string;
  protocol: DemoProtocol;
  /** Upper-case HTTP method. */
  method: string;
  /** The paid endpoint's absolute URL. */
  url: string;
  /** Its origin (the provider). */
  origin: string;
  description: string;
}

export interface PaidServices {
  services: RunningService[];
  /** Base URL of the directory: Bazaar at `/discovery/resources`, MPP registry at `/api/services`. */
  directoryUrl: string;
  /** Base URL of the local x402 facilitator (the same server as the directory). */
  facilitatorUrl: string;
  /** Current terms of a service (a copy). @throws Error for an unknown name */
  terms(name: string): ServiceTerms;
  /** Sets the price (atomic integer string, applies to every offer of the service). */
  setPrice(name: string, atomic: string): void;
  /** Makes the directory list `atomic` instead of the live price (directory drift); null follows the live price. */
  setDirectoryPrice(name: string, atomic: string | null): void;
  /** Sets the payTo / recipient (0x address). */
  setPayTo(name: string, address: string): void;
  /** Makes the route answer `status` with `{error}` (e.g. 404) instead of 402; null restores the challenge. */
  setStatus(name: string, status: number | null): void;
  /** Removes the offer in `asset`. @throws Error when it is the service's last offer or not offered */
  removeOffer(name: string, asset: string): void;
  /**
   * Lists a paid x402 v2 resource served elsewhere (the demo's trust check, a test's resource server) in the Bazaar,
   * with one offer on Tempo (eip155:4217), so probing the directory finds it.
   */
  listResource(resource: ListedResource): void;
  /** Stops every server. */
  stop(): Promise<void>;
}

/** A paid x402 v2 resource served outside the paid services, as the directory lists it. */
export interface ListedResource {
  name: string;
  /** Absolute URL of the paid endpoint. */
  url: string;
  /** Upper-case HTTP method; default GET. */
  method?: string;
  description: string;
  /** Atomic integer string. */
  price: string;
  payTo: string;
  /** The token (lower-case address) of its one offer. */
  asset: string;
}

/** Default service definitions: payTo addresses are anvil test accounts 1–3. */
function definitions(): ServiceDefinition[] {
  const addr = (i: number) => privateKeyToAccount(ANVIL_KEYS[i]).address.toLowerCase();
  const now = new Date().toISOString();
  return [
    {
      name: 'x402-v2-weather',
      protocol: 'x402-v2',
      path: '/weather',
      description: 'Weather report (x402 v2 demo)',
      terms: { price: '10000', payTo: addr(1), assets: [PATH_USD, ALPHA_USD], status: null, updatedAt: now, listedPrice: null },
    },
    {
      name: 'x402-v1-joke',
      protocol: 'x402-v1',
      path: '/joke',
      description: 'A joke (x402 v1 demo)',
      terms: { price: '2000', payTo: addr(2), assets: [BASE_SEPOLIA_USDC], status: null, updatedAt: now, listedPrice: null },
    },
    {
      name: 'mpp-search',
      protocol: 'mpp',
      path: '/search',
      description: 'Web search (MPP demo)',
      terms: { price: '10000', payTo: addr(3), assets: [PATH_USD], status: null, updatedAt: now, listedPrice: null },
    },
  ];
}

/**
 * Starts the directory/facilitator and the three paid services on loopback.
 * @returns their URLs and setters that change advertised terms at run time
 * @throws Error when a socket cannot be bound
 */
export async function startPaidServices(opts: PaidServicesOptions = {}): Promise<PaidServices> {
  const host = opts.host ?? '127.0.0.1';
  const rpcUrl = opts.rpcUrl ?? 'http://127.0.0.1:8545';
  const dirApp = new Hono();
  const running: { built: BuiltService; listening: Listening }[] = [];
  const outside: ListedService[] = [];
  mountFacilitator(dirApp, { rpcUrl, privateKey: ANVIL_KEYS[0] });
  mountDirectory(dirApp, () => [...running.map((r) => ({ def: r.built.def, origin: r.listening.origin })), ...outside]);
  const dir = await listen(dirApp, host);
  try {
    for (const def of definitions()) {
      const built = buildService(def, dir.origin, opts.mppSecret ?? 'paywatch-demo-mpp-secret-not-for-funds', rpcUrl);
      running.push({ built, listening: await listen(built.app, host) });
    }
  } catch (err) {
    await Promise.all([dir.close(), ...running.map((r) => r.listening.close())]);
    throw err;
  }
  const find = (name: string) => {
    const r = running.find((x) => x.built.def.name === name);
    if (!r) throw new DemoError(`no demo service named ${name}`);
    return r.built;
  };
  const change = (name: string, apply: (t: ServiceTerms) => void) => {
    const b = find(name);
    apply(b.def.terms);
    b.def.terms.updatedAt = new Date().toISOString();
    b.rebuild();
  };
  return {
    services: running.map(({ built: { def }, listening }) => ({
      name: def.name,
      protocol: def.protocol,
      method: 'GET',
      url: `${listening.origin}${def.path}`,
      origin: listening.origin,
      description: def.description,
    })),
    directoryUrl: dir.origin,
    facilitatorUrl: dir.origin,
    terms: (name) => structuredClone(find(name).def.terms),
    setPrice: (name, atomic) => {
      if (!/^\d+$/.test(atomic)) throw new DemoError(`price must be an atomic integer string, got ${atomic}`);
      change(name, (t) => (t.price = atomic));
    },
    setDirectoryPrice: (name, atomic) => {
      if (atomic !== null && !/^\d+$/.test(atomic)) throw new DemoError(`price must be an atomic integer string, got ${atomic}`);
      change(name, (t) => (t.listedPrice = atomic));
    },
    setPayTo: (name, address) => {
      if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new DemoError(`payTo must be a 0x address, got ${address}`);
      change(name, (t) => (t.payTo = address.toLowerCase()));
    },
    setStatus: (name, status) => change(name, (t) => (t.status = status)),
    removeOffer: (name, asset) =>
      change(name, (t) => {
        const rest = t.assets.filter((a) => a !== asset.toLowerCase());
        if (rest.length === t.assets.length) throw new DemoError(`${name} does not offer ${asset}`);
        if (rest.length === 0) throw new DemoError(`${name} would have no offer left; use setStatus instead`);
        t.assets = rest;
      }),
    listResource: (r) => {
      const u = new URL(r.url);
      const terms = {
        price: r.price,
        payTo: r.payTo.toLowerCase(),
        assets: [r.asset.toLowerCase()],
        status: null,
        updatedAt: new Date().toISOString(),
        listedPrice: null,
      };
      const def = { name: r.name, protocol: 'x402-v2' as const, path: `${u.pathname}${u.search}`, description: r.description, terms };
      outside.push({ def, origin: u.origin, method: r.method?.toUpperCase() });
    },
    stop: async () => {
      await Promise.all([dir.close(), ...running.map((r) => r.listening.close())]);
    },
  };
}
