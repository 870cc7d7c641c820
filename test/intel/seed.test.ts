import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import { getProvider, searchProviders } from '../../src/intel/queries.js';
import { ProvidersQuery } from '../../src/intel/schemas.js';
import { seedDomain, seedIntel } from '../../src/seed/intel.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

describe.each(DIALECTS)('bench seeder on %s', (dialect) => {
  let t: TestDb;
  let store: Store;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    await seedIntel(store, { providers: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await t?.drop();
  });

  it('writes the last-check copies the collector writes, equal to what the snapshot join reads', async () => {
    const opts = { staleAfterDays: 3650, now: new Date('2030-01-01T00:00:00Z') };
    const profile = await getProvider(store, seedDomain(0), opts);
    const listing = await searchProviders(store, ProvidersQuery.parse({ include_stale: true }), opts);
    const copied = await store.db.selectFrom('intel_services').select('last_offers').where('last_offers', 'is', null).execute();
    expect(copied).toEqual([]);
    await store.db
      .updateTable('intel_services')
      .set({ last_offers: null, last_latency_ms: null, last_error: null, last_evidence_hash: null })
      .execute();
    store.cache.intelWritten();
    expect(await getProvider(store, seedDomain(0), opts)).toEqual(profile);
    expect(await searchProviders(store, ProvidersQuery.parse({ include_stale: true }), opts)).toEqual(listing);
    expect(profile.provider.services[0].offers.length).toBeGreaterThan(0);
  });
});
