/**
 * Decoding of every transaction of the blocks real Tempo nodes served (mainnet 4217 and Moderato testnet), read
 * from ../shared/real-tempo: concrete expected members per transaction, the fee held to the receipt's own fee
 * log, system transactions, and an ERC-721 Transfer (same topic0 as TIP-20's) that must never be a leg.
 *
 * Token metadata: mainnet tokens from Tempo mainnet's public token list (../shared/real-tempo/tokenlist-4217.json:
 * symbol and decimals; the list carries no currency, so currency is null, which only `nominal` reads and this
 * test does not assert). Moderato tokens are unknown (every member null, as TokenRegistry gives for a contract
 * that does not answer): their amounts stay atomic and `decode` says so.
 */
import { describe, expect, it } from 'vitest';
import { formatUnits } from 'viem';
import { decodeBlock, decodeTransaction, tokenAddressesOf } from '../../src/chain/decode/index.js';
import type { FetchedBlock, RpcLog, TokenMap } from '../../src/chain/types.js';
import type { Integrity } from '../../src/domain/observation.js';
import { mainnetTokens, recordedBlock, type RecordedBlock } from '../helpers/real-tempo.js';

/** Placeholder integrity: these tests are about decoding (test/chain/real-tempo-integrity.test.ts has integrity). */
const INTEGRITY: Integrity = { score: 0, maximum: 5, version: 'test', scope: 'test', stages: [] };
const ZERO = '0x0000000000000000000000000000000000000000';
const FEE_MANAGER = '0xfeec000000000000000000000000000000000000';
const DEX = '0xdec0000000000000000000000000000000000000';
const PATH_USD = '0x20c0000000000000000000000000000000000000';
const USDC_E = '0x20c000000000000000000000b9537d11c60e8b50';
/** Moderato's other predeployed test tokens (their names are not asserted: metadata is unknown here). */
const T1 = '0x20c0000000000000000000000000000000000001';
const T2 = '0x20c0000000000000000000000000000000000002';
const T3 = '0x20c0000000000000000000000000000000000003';
/** The NFT contract of Moderato 6000178's mint (transaction 11). */
const NFT = '0xc21df1bb620ebe7f5ae0144df50de28ce0d47ae7';

/** The decode level when these tokens' decimals are unknown. */
const atomic = (...tokens: string[]) => `partial: atomic amounts, decimals unknown for ${tokens.join(' ')}`;

/** Moderato's tokens as TokenRegistry answers for contracts whose calls fail: every member unknown. */
function unknownTokens(f: FetchedBlock): TokenMap {
  return new Map(tokenAddressesOf(f).map((a) => [a, { address: a, symbol: null, currency: null, decimals: null }]));
}

const tokensFor = (name: RecordedBlock, f: FetchedBlock): TokenMap => (name.startsWith('mainnet') ? mainnetTokens() : unknownTokens(f));

type Row = [
  index: number,
  sender: string | null,
  recipient: string | null,
  asset: string | null,
  assetContract: string | null,
  amount: string | null,
  fee: string | null,
  feePayer: string | null,
  execution: string,
  category: string | null,
  decode: string,
];

/**
 * [tx_index, sender, recipient, asset, asset_contract, amount, fee, fee payer, execution, category, decode] of
 * every recorded transaction. Mainnet 17708868: two 0x76 USDC.e transfers (the second a keychain P-256
 * transaction) and the system transaction; 20660166: two legacy calls to contracts no known ABI describes;
 * Moderato 6000178: transfers, a failed and a filled Stablecoin DEX swap, two contract creations (recipient
 * null), faucet mints (0x76), the NFT mint (11) and the system transaction; Moderato 6541: the system
 * transaction alone.
 */
const EXPECTED: Partial<Record<RecordedBlock, Row[]>> = {
  'mainnet-17708868': [
    [
      0,
      '0x385193793fe875cd9f2341409563932023fb4fab',
      '0x72d140edc92068a58c31b80d3dd698b30a769fde',
      'USDC.e',
      USDC_E,
      '0.61996',
      '0.00566',
      '0x385193793fe875cd9f2341409563932023fb4fab',
      'success',
      'transfer',
      'full',
    ],
    [
      1,
      '0x3cb6b045022c716e7788aaca744f54dbb568cfb4',
      '0x0409f46e40dce03dd0962a0ab1850738ba85953f',
      'USDC.e',
      USDC_E,
      '0.01',
      '0.066242',
      '0x3cb6b045022c716e7788aaca744f54dbb568cfb4',
      'success',
      'transfer',
      'full',
    ],
    [2, ZERO, ZERO, null, null, null, null, ZERO, 'success', 'system', 'full'],
  ],
  'mainnet-20660166': [
    [
      0,
      '0x257cd69b0069494240757c66e6aa341ec578b3e1',
      '0xb30b5b27cb23356de1d3100e0e120d481da97b1f',
      null,
      null,
      null,
      '0.007196',
      '0x257cd69b0069494240757c66e6aa341ec578b3e1',
      'success',
      'contract_call',
      'partial: 1 undecoded log(s); 1 undecoded call(s)',
    ],
    [
      1,
      '0xd95d7761a585bbc1b59b4b6f441b9edc2878dade',
      '0x76faff60799021b301b45dc1bbede53f261f9961',
      null,
      null,
      null,
      '0.007382',
      '0xd95d7761a585bbc1b59b4b6f441b9edc2878dade',
      'success',
      'contract_call',
      'partial: 1 undecoded log(s); 1 undecoded call(s)',
    ],
  ],
  'moderato-6000178': [
    [
      0,
      '0x5cc4ec062c77ce46a7291c2fdc88e17ebb40e806',
      '0xe3b0c1ee5319f0808f600e5c8c674b4d0d467fbc',
      null,
      T1,
      '2378500735043',
      '0.001116',
      '0x5cc4ec062c77ce46a7291c2fdc88e17ebb40e806',
      'success',
      'transfer',
      atomic(T1),
    ],
    [
      1,
      '0x6e136ea8a05d7bfae4913d1185e3e493de342b94',
      '0x009f3df0871c3773cc65976b010e147bcd0a7bfd',
      null,
      null,
      null,
      '0.00054',
      '0x6e136ea8a05d7bfae4913d1185e3e493de342b94',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      2,
      '0x79e1e52d3d8d5cb78ccc28d4aad8968d332cff8a',
      '0xf7b09a0f52dc08b90e2604f0c0dd11ca682a0048',
      null,
      T1,
      '655056207549',
      '0.00078',
      '0x79e1e52d3d8d5cb78ccc28d4aad8968d332cff8a',
      'success',
      'transfer',
      atomic(T1),
    ],
    [
      3,
      '0x28f83d8383080ef9b0f0528db4ea997554387e5f',
      '0x70a57af45cd15f1565808cf7b1070bac363afd8a',
      null,
      null,
      null,
      '0.000455',
      '0x28f83d8383080ef9b0f0528db4ea997554387e5f',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      4,
      '0xf378c5b7c81928db9a06f501d1d4dbaa2803fb39',
      '0xaa3aa71a8e88048026845bcec658c08424c1a6a0',
      null,
      null,
      null,
      '0.00054',
      '0xf378c5b7c81928db9a06f501d1d4dbaa2803fb39',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      5,
      '0x799c9d8f128ad7d5dd3d48c7d878eed1d040e330',
      '0xe53d6178e22532587bb02792c048e9241bd6cc1e',
      null,
      T3,
      '874523064251',
      '0.00078',
      '0x799c9d8f128ad7d5dd3d48c7d878eed1d040e330',
      'success',
      'transfer',
      atomic(T3),
    ],
    [
      6,
      '0xebcf07fa7bc8b023259fb8723ab34223de5e3d94',
      '0x960601a1180570ccec973e524301d688e20a24c2',
      null,
      null,
      null,
      '0.000457',
      '0xebcf07fa7bc8b023259fb8723ab34223de5e3d94',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      7,
      '0x4058ae0d5ac695c5dc4db7edad51838c435e2fca',
      '0x70a57af45cd15f1565808cf7b1070bac363afd8a',
      null,
      null,
      null,
      '0.000456',
      '0x4058ae0d5ac695c5dc4db7edad51838c435e2fca',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      8,
      '0xae9854ce3cb40c4ced13045c068bea160821f4d8',
      '0x129776592607badd111f4d735f96270558095787',
      null,
      T2,
      '1475265522961',
      '0.000781',
      '0xae9854ce3cb40c4ced13045c068bea160821f4d8',
      'success',
      'transfer',
      atomic(T2),
    ],
    [
      9,
      '0x853c400a5e706b8a0d3535c4232cfa464cfa48ac',
      '0x98c217c231633216f21a3d78b4fa7ccbcc7e972f',
      null,
      T2,
      '7060409763478',
      '0.000717',
      '0x853c400a5e706b8a0d3535c4232cfa464cfa48ac',
      'success',
      'transfer',
      atomic(T2),
    ],
    [
      10,
      '0x0a73a1aa1656644a0f7dfd508bed7b44cd13c6c0',
      '0xe23ed10db80e615eb9fb6dbe02bc4f4ba5b04148',
      null,
      T2,
      '2561223617836',
      '0.000781',
      '0x0a73a1aa1656644a0f7dfd508bed7b44cd13c6c0',
      'success',
      'transfer',
      atomic(T2),
    ],
    [
      11,
      '0x808d1448c725013412cbe7c97b40099619933fb2',
      '0xc21df1bb620ebe7f5ae0144df50de28ce0d47ae7',
      null,
      PATH_USD,
      '15000000',
      '0.011775',
      '0x808d1448c725013412cbe7c97b40099619933fb2',
      'success',
      'transfer',
      `${atomic(PATH_USD)}; 1 undecoded log(s); 1 undecoded call(s)`,
    ],
    [
      12,
      '0xf0d661e633e78e8c32081a3d98cfd959b4379892',
      '0x7011a9a7694a2e69192c32c87b6792bbce1185e5',
      null,
      T2,
      '2798539480003',
      '0.000717',
      '0xf0d661e633e78e8c32081a3d98cfd959b4379892',
      'success',
      'transfer',
      atomic(T2),
    ],
    [
      13,
      '0x4f78a3623da379327a171b95e504bea63146a496',
      DEX,
      null,
      null,
      null,
      '0.00347',
      '0x4f78a3623da379327a171b95e504bea63146a496',
      'failed',
      'swap',
      'full',
    ],
    [
      14,
      '0xb55740a1840d742c9f1587b2149c0e71500e3746',
      DEX,
      null,
      PATH_USD,
      '20329175',
      '0.002934',
      '0xb55740a1840d742c9f1587b2149c0e71500e3746',
      'success',
      'swap',
      atomic(PATH_USD, T1),
    ],
    [
      15,
      '0x1a320981abb4a698b036e7c8638a6736571ec6d0',
      '0x1a320981abb4a698b036e7c8638a6736571ec6d0',
      null,
      T2,
      '52860',
      '0.0005',
      '0x1a320981abb4a698b036e7c8638a6736571ec6d0',
      'success',
      'transfer',
      atomic(T2),
    ],
    [
      16,
      '0x1de4b6273318c8a6664d16893d56770b1e8f31c6',
      PATH_USD,
      null,
      null,
      null,
      '0.000568',
      '0x1de4b6273318c8a6664d16893d56770b1e8f31c6',
      'success',
      'contract_call',
      'full',
    ],
    [
      17,
      '0x824b6326875d664c54d3c0fd1795a95e147282e5',
      '0x824b6326875d664c54d3c0fd1795a95e147282e5',
      null,
      T1,
      '99985',
      '0.0005',
      '0x824b6326875d664c54d3c0fd1795a95e147282e5',
      'success',
      'transfer',
      atomic(T1),
    ],
    [
      18,
      '0xf13d6e04707d1d481b0dcc1d49bb1c598ea98a54',
      '0xe1ef54d8aca357b67c7c0dc8e3f8b7503f507306',
      null,
      null,
      null,
      '0.000424',
      '0xf13d6e04707d1d481b0dcc1d49bb1c598ea98a54',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      19,
      '0x497d65c166372983ba32111e5ca64f20ad5b540c',
      DEX,
      null,
      null,
      null,
      '0.000613',
      '0x497d65c166372983ba32111e5ca64f20ad5b540c',
      'failed',
      'liquidity',
      'full',
    ],
    [
      20,
      '0x5866ac49a5c605af2ec0837c80b2a656e97fbc41',
      '0x5866ac49a5c605af2ec0837c80b2a656e97fbc41',
      null,
      T1,
      '1',
      '0.000499',
      '0x5866ac49a5c605af2ec0837c80b2a656e97fbc41',
      'success',
      'transfer',
      atomic(T1),
    ],
    [
      21,
      '0xec3149bb5a5438b2aab2002bc1af2b5a95282dbd',
      '0xec3149bb5a5438b2aab2002bc1af2b5a95282dbd',
      null,
      T1,
      '6787',
      '0.000499',
      '0xec3149bb5a5438b2aab2002bc1af2b5a95282dbd',
      'success',
      'transfer',
      atomic(T1),
    ],
    [
      22,
      '0xa377bac302f35c7c62b8cb85d05cf60f737804af',
      '0xa377bac302f35c7c62b8cb85d05cf60f737804af',
      null,
      T1,
      '70357903',
      '0.0005',
      '0xa377bac302f35c7c62b8cb85d05cf60f737804af',
      'success',
      'transfer',
      atomic(T1),
    ],
    [
      23,
      '0x114b56eefd6ec386b004e30f53b4427051793245',
      '0x6021c80710dff388c701c77819ef0dcce9fd391e',
      null,
      PATH_USD,
      '387277523428',
      '0.00078',
      '0x114b56eefd6ec386b004e30f53b4427051793245',
      'success',
      'transfer',
      atomic(PATH_USD),
    ],
    [
      24,
      '0x7010655130654e97aef90f8ce715be9ec88c2dae',
      null,
      null,
      null,
      null,
      '0.036194',
      '0x7010655130654e97aef90f8ce715be9ec88c2dae',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      25,
      '0x68fefa302e614f1193381d7fb6c8f41a177dda27',
      '0x58611f480c4070ff30f6c2c535d689e2a081fc63',
      null,
      null,
      null,
      '0.005001',
      '0x68fefa302e614f1193381d7fb6c8f41a177dda27',
      'failed',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      26,
      '0x4cbadebc0ce2ebd02b4836f9ee6bc020dd4fb9f5',
      null,
      null,
      null,
      null,
      '0.031854',
      '0x4cbadebc0ce2ebd02b4836f9ee6bc020dd4fb9f5',
      'success',
      'contract_call',
      'partial: 1 undecoded call(s)',
    ],
    [
      27,
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      '0xa071c13d29e84fda9dd423c3ea315165832f77d2',
      null,
      T3,
      '1000000000000',
      '0.001252',
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      'success',
      'mint',
      atomic(T3),
    ],
    [
      28,
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      '0x9bf28fe32e8e1790cdeaa8e5f1869ed63efc2008',
      null,
      T2,
      '1000000000000',
      '0.001316',
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      'success',
      'mint',
      atomic(T2),
    ],
    [
      29,
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      '0x9bf28fe32e8e1790cdeaa8e5f1869ed63efc2008',
      null,
      T3,
      '1000000000000',
      '0.001316',
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      'success',
      'mint',
      atomic(T3),
    ],
    [
      30,
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      '0x9ee8ae7a1f9413c9282b319637cc352f0ca68a27',
      null,
      PATH_USD,
      '1000000000000',
      '0.001316',
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      'success',
      'mint',
      atomic(PATH_USD),
    ],
    [
      31,
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      '0x9ee8ae7a1f9413c9282b319637cc352f0ca68a27',
      null,
      T1,
      '1000000000000',
      '0.001236',
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      'success',
      'mint',
      atomic(T1),
    ],
    [
      32,
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      '0xe3d51e3403b3013a82535ded6c5161c23a7ac8bb',
      null,
      PATH_USD,
      '1000000000000',
      '0.001316',
      '0x5bc1473610754a5ca10749552b119df90c1a1877',
      'success',
      'mint',
      atomic(PATH_USD),
    ],
    [
      33,
      '0xa15bb7e2fef9504c7fd0565ed4a6d1a959eada09',
      T1,
      null,
      null,
      null,
      '0.000568',
      '0xa15bb7e2fef9504c7fd0565ed4a6d1a959eada09',
      'success',
      'contract_call',
      'full',
    ],
    [34, ZERO, ZERO, null, null, null, null, ZERO, 'success', 'system', 'full'],
  ],
  'moderato-6541': [[0, ZERO, ZERO, null, null, null, null, ZERO, 'success', 'system', 'full']],
};

describe.each(Object.keys(EXPECTED) as RecordedBlock[])('every transaction of recorded block %s', (name) => {
  const f = recordedBlock(name);
  const observations = decodeBlock(f, tokensFor(name, f), []).observations;

  it('decodes to the expected sender, recipient, asset, amount, fee, fee payer, execution, category and decode level', () => {
    const got = observations.map(
      (o): Row => [
        o.tx_index,
        o.sender,
        o.recipient,
        o.asset,
        o.asset_contract,
        o.amount,
        o.fee,
        (o.detail.receipt?.fee_payer as string | null) ?? null,
        o.execution,
        o.category,
        o.decode,
      ],
    );
    expect(got).toEqual(EXPECTED[name]);
  });

  it("the sender is the node's `from`, and the fee and fee payer are those of the receipt's own fee log", () => {
    for (const [i, o] of observations.entries()) {
      const tx = f.block.transactions[i]!;
      expect(o.hash).toBe(tx.hash.toLowerCase());
      expect(o.sender).toBe(tx.from.toLowerCase());
      const logs = f.receipts[i]!.logs;
      const last: RpcLog | undefined = logs[logs.length - 1];
      const feeLog = last && last.topics.length === 3 && `0x${last.topics[2]!.slice(26)}` === FEE_MANAGER ? last : null;
      if (feeLog === null) {
        // Only system transactions pay nothing.
        expect([o.category, o.fee, o.detail.receipt!.fee_log_atomic]).toEqual(['system', null, null]);
        continue;
      }
      expect(o.fee).toBe(formatUnits(BigInt(feeLog.data), 6));
      expect(o.detail.receipt!.fee_log_atomic).toBe(BigInt(feeLog.data).toString());
      expect(o.detail.receipt!.fee_atomic).toBe(o.detail.receipt!.fee_log_atomic);
      expect(o.detail.receipt!.fee_payer).toBe(`0x${feeLog.topics[1]!.slice(26)}`);
      expect(o.detail.forensics).toEqual([]);
    }
  });

  it("amounts: scaled by the list's decimals and named by its symbol on mainnet; atomic and unnamed when metadata is unknown (Moderato)", () => {
    const tokens = tokensFor(name, f);
    for (const o of observations)
      for (const leg of o.detail.legs ?? []) {
        const info = tokens.get(leg.asset_contract);
        // The symbol is stored once per token (detail.assets), never copied into the leg.
        const asset = o.detail.assets![leg.asset_contract];
        expect(leg).not.toHaveProperty('asset');
        if (info?.decimals != null)
          expect([asset, leg.amount]).toEqual([info.symbol, formatUnits(BigInt(leg.amount_atomic), info.decimals)]);
        else expect([asset, leg.amount]).toEqual([null, leg.amount_atomic]);
        expect(name.startsWith('mainnet')).toBe(info?.decimals != null);
      }
  });
});

describe('system transactions (legacy, r = s = 0, from 0x0; their input is RLP data for the protocol)', () => {
  const cases: [RecordedBlock, number][] = [
    ['mainnet-17708868', 2],
    ['moderato-6000178', 34],
    ['moderato-6541', 0],
  ];
  it.each(cases)('%s transaction %i decodes fully as system: one call with no selector, no fee, no leg', (name, index) => {
    const f = recordedBlock(name);
    const tx = f.block.transactions[index]!;
    expect([tx.type, tx.from, BigInt(tx.r as string), BigInt(tx.s as string)]).toEqual(['0x0', ZERO, 0n, 0n]);
    expect((tx.input as string).length).toBeGreaterThan(10);
    const o = decodeTransaction(f, index, tokensFor(name, f), INTEGRITY);
    expect([o.category, o.decode, o.fee, o.amount]).toEqual(['system', 'full', null, null]);
    expect(o.detail.calls).toEqual([{ index: 0, target: ZERO, selector: null, function: null, args: null, value: '0' }]);
    expect(o.detail.legs).toEqual([]);
  });
});

describe('an ERC-721 Transfer (Moderato 6000178 transaction 11, an NFT mint paid in pathUSD)', () => {
  const f = recordedBlock('moderato-6000178');
  const nftLog = f.receipts[11]!.logs.find((l) => l.address.toLowerCase() === NFT && l.topics.length === 4)!;
  const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

  it('the recording holds it: Transfer topic0, four topics (tokenId indexed), no data', () => {
    expect([nftLog.topics[0], nftLog.topics.length, nftLog.data]).toEqual([TRANSFER, 4, '0x']);
  });

  it('is no token to read: tokenAddressesOf leaves the NFT contract out', () => {
    expect(tokenAddressesOf(f)).toEqual([T1, T3, PATH_USD, T2]);
  });

  it('is described as an ERC-721 Transfer with its tokenId, and is neither a leg nor an undecoded log', () => {
    const o = decodeTransaction(f, 11, unknownTokens(f), INTEGRITY);
    const logs = o.detail.receipt!.logs as {
      log_index: number;
      address: string;
      event: string | null;
      args: Record<string, string> | null;
    }[];
    const nft = logs.find((l) => l.address === NFT && l.event === 'Transfer')!;
    expect(nft.args).toEqual({
      from: ZERO,
      to: '0x808d1448c725013412cbe7c97b40099619933fb2',
      tokenId: BigInt(nftLog.topics[3]!).toString(),
    });
    expect(o.detail.legs!.map((g) => [g.asset_contract, g.from, g.to, g.amount_atomic])).toEqual([
      [PATH_USD, '0x808d1448c725013412cbe7c97b40099619933fb2', NFT, '15000000'],
      [PATH_USD, NFT, '0x7500a83df2af99b2755c47b6b321a8217d876a85', '15000000'],
    ]);
    expect((o.detail.unknown as { address: string }[]).map((l) => l.address)).toEqual([NFT]);
  });

  it('is never a TIP-20 transfer even when its data holds a 32-byte word (altered log: the topic count decides)', () => {
    const altered = structuredClone(f);
    const log = altered.receipts[11]!.logs.find((l) => l.address.toLowerCase() === NFT && l.topics.length === 4)!;
    log.data = `0x${'00'.repeat(31)}01`;
    expect(tokenAddressesOf(altered)).not.toContain(NFT);
    const o = decodeTransaction(altered, 11, unknownTokens(altered), INTEGRITY);
    expect(o.detail.legs!.some((g) => g.asset_contract === NFT)).toBe(false);
  });
});
