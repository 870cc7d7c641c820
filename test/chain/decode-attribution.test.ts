/**
 * MPP attribution memos (src/chain/decode/attribution.ts): decoded from the two real Tempo mainnet charges
 * transcribed in ../shared/real-tempo, held to mppx 0.11.0's own encoder and decoder (its unexported
 * `tempo/Attribution` module, loaded by file), and read from memos a real mppx client wrote paying a real mppx
 * server on a real anvil node in Tempo mode.
 */
import fc from 'fast-check';
import { keccak256, stringToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { decodeMppAttribution, mppFingerprint } from '../../src/chain/decode/attribution.js';
import * as MppxAttribution from '../../node_modules/mppx/dist/tempo/Attribution.js';
import { readRecorded } from '../helpers/real-tempo.js';
import { decodeLive, finalize, payMpp } from './live-payments.js';

interface Transcribed {
  receipts: { transactionHash: string; memo: string; to: string }[];
}

describe('decodeMppAttribution on real mainnet charges', () => {
  const [anonymous, fal] = readRecorded<Transcribed>('mainnet-mpp-charges.transcribed.json').receipts;

  it('splits tag, version, server fingerprint, anonymous client and nonce', () => {
    expect(decodeMppAttribution(anonymous.memo)).toEqual({
      version: 1,
      server_fingerprint: '0xc62939e7f7496e1106ef',
      client_fingerprint: null,
      nonce: '0xa166aee7e294f6',
    });
  });

  it('finds the realm of the charge settled to fal.mpp.tempo.xyz: keccak256("fal.mpp.tempo.xyz")[0..9]', () => {
    const memo = decodeMppAttribution(fal.memo)!;
    expect(memo).toEqual({
      version: 1,
      server_fingerprint: '0x8bdbf8cc304c4816750e',
      client_fingerprint: '0x6065bcf287cc18ca700f',
      nonce: '0xbeb5c7584f9206',
    });
    expect(mppFingerprint('fal.mpp.tempo.xyz')).toBe(memo.server_fingerprint);
    expect(mppFingerprint('https://fal.mpp.tempo.xyz')).not.toBe(memo.server_fingerprint);
  });
});

describe('decodeMppAttribution against mppx 0.11.0', () => {
  it('decodes every memo mppx encodes as mppx decodes it, and fingerprints as mppx does (fast-check, fixed seed)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        fc.string(),
        (serverId, clientId, challengeId) => {
          const memo = MppxAttribution.encode({ serverId, clientId, challengeId });
          const theirs = MppxAttribution.decode(memo)!;
          const ours = decodeMppAttribution(memo);
          expect(ours).toEqual({
            version: theirs.version,
            server_fingerprint: theirs.serverFingerprint.toLowerCase(),
            client_fingerprint: theirs.clientFingerprint?.toLowerCase() ?? null,
            nonce: theirs.nonce.toLowerCase(),
          });
          expect(ours!.server_fingerprint).toBe(mppFingerprint(serverId));
          expect(MppxAttribution.verifyServer(memo, serverId)).toBe(true);
          expect(ours!.nonce).toBe(keccak256(stringToBytes(challengeId)).slice(0, 16));
          // Upper-case hex is the same memo.
          expect(decodeMppAttribution(`0x${memo.slice(2).toUpperCase()}`)).toEqual(ours);
        },
      ),
      { seed: 4217, numRuns: 200 },
    );
  });

  it('is not an attribution: another tag or version, another length, non-hex, non-strings (mppx agrees where it answers)', () => {
    const good = MppxAttribution.encode({ serverId: 'api.example.com', challengeId: 'c' });
    const cases: unknown[] = [
      `0xef1ed71202${good.slice(12)}`, // version 2
      `0x00000000${good.slice(10)}`, // no tag
      good.slice(0, 64), // 31 bytes
      `${good}00`, // 33 bytes
      `0xef1ed71201${'g'.repeat(54)}`,
      `ef1ed71201${good.slice(12)}00`, // no 0x
      null,
      42,
      { memo: good },
    ];
    for (const c of cases) {
      expect(decodeMppAttribution(c), String(c)).toBeNull();
      if (typeof c === 'string' && /^0x[0-9a-f]*$/i.test(c)) expect(MppxAttribution.decode(c as `0x${string}`)).toBeNull();
    }
  });
});

describe('memos written by a real mppx client on anvil', () => {
  let node: AnvilNode;
  const recipient = '0x00000000000000000000000000000000000a11ce';
  let named: Awaited<ReturnType<typeof payMpp>>;
  let anonymousPay: Awaited<ReturnType<typeof payMpp>>;

  beforeAll(async () => {
    node = await startAnvil();
    named = await payMpp(node.rpcUrl, { realm: 'search.example', clientId: 'agent-7', payerKey: ANVIL_KEYS[5], recipient, amount: '0.01' });
    anonymousPay = await payMpp(node.rpcUrl, {
      realm: 'search.example',
      clientId: undefined,
      payerKey: ANVIL_KEYS[4],
      recipient,
      amount: '0.02',
    });
    await finalize(node.rpcUrl);
  }, 120_000);
  afterAll(async () => node?.stop());

  it('decodes the realm, client and challenge of the memo into the detail, with payer and protocol mpp', async () => {
    const o = await decodeLive(node.rpcUrl, named.hash);
    expect(o).toMatchObject({ protocol: 'mpp', category: 'payment', recipient, amount: '0.01', execution: 'success' });
    expect(o.detail.attribution).toEqual({
      log_index: o.detail.legs![0].log_index,
      version: 1,
      server_fingerprint: mppFingerprint('search.example'),
      client_fingerprint: mppFingerprint('agent-7'),
      nonce: keccak256(stringToBytes(named.challengeId)).slice(0, 16),
    });
    expect(o.detail.payer).toBe(o.sender);
    expect(o.detail.legs![0]).toMatchObject({ payer: o.sender, settlement: null, x402_proxy: null });
  });

  it('gives a null client fingerprint for a client without clientId', async () => {
    const o = await decodeLive(node.rpcUrl, anonymousPay.hash);
    expect(o.detail.attribution).toMatchObject({ server_fingerprint: mppFingerprint('search.example'), client_fingerprint: null });
  });
});
