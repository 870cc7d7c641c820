/**
 * Tempo mainnet's consensus constants (chain 4217, "presto"). These are protocol facts, held in the source
 * with their upstream sources; test/chain/consensus-mainnet.test.ts holds them to the recorded copy in
 * `../shared/consensus/mainnet-4217-identity.json`.
 */

/**
 * Mainnet's genesis `extraData`: the epoch-0 `OnchainDkgOutcome` (716 bytes, ./dkg-outcome.ts) whose group key
 * anchors every certificate. tempoxyz/tempo `crates/chainspec/src/genesis/presto.json` (`extraData`; unchanged
 * since commit 9ba26353, read at d656ef55).
 */
export const MAINNET_GENESIS_OUTCOME: `0x${string}` = `0x${[
  '00687c3cb4fb7123e100ca45a358a2df35ab116172489435cc6c61586a4d6317e3000000000403a217bb85001d4dcf8e5c50136f77af88cb2cab1857279b91c6',
  '240f41cca95c4f43f6dcab3e0dfb87dafb3ecbeb6251e90a5df2e6c47432482821cd8b84665ee4642589d2d9628a92b03e2bbfb00e006d038cd98def76d2a41b',
  '7c228c05f5a193a670f82d003fd1941452f02d95c8ff3b9b4fdce1d330b3d1ab3bedb17eb6dfc3e3b3503c1fb1c0050f772badba9b7c6f055cd3c4dd2613fd67',
  '63f245efd5fe83eb8086b10e82d31d6879c44cb04dfd21c22b29b0a967c15b4cd6adcca8868807b1311d01b57f78b6df0c6514271ec6ea944fe76c867002fa69',
  '15d393ec2cf142ba77e7ef53913d666082ea6abdec87da0097596fba8ae3661b0ec0f42b7041fcf44e325d8a6cedd4d228c768fc3a4ccf12e68800460ad29043',
  'cc4a8e5e16e9780445dd2bdd91cf0597b8d6dd0632e0fed836aa7c35addc89752c034801bcb3acae5bb7bf314c85c8753d9f38171420d001268d941c391948ad',
  'd16f33ca7ea8c79882bb74d4a1461bbc72bfdb6988f47fac5e21c36d33c6d84a72e3edf8995d431689dbf7ef3c69bccb6ff5fb68cbebff5145cb4a42bc108b5b',
  'e6453c901f9e6bc80445dd2bdd91cf0597b8d6dd0632e0fed836aa7c35addc89752c034801bcb3acae5bb7bf314c85c8753d9f38171420d001268d941c391948',
  'add16f33ca7ea8c79882bb74d4a1461bbc72bfdb6988f47fac5e21c36d33c6d84a72e3edf8995d431689dbf7ef3c69bccb6ff5fb68cbebff5145cb4a42bc108b',
  '5be6453c901f9e6bc8000445dd2bdd91cf0597b8d6dd0632e0fed836aa7c35addc89752c034801bcb3acae5bb7bf314c85c8753d9f38171420d001268d941c39',
  '1948add16f33ca7ea8c79882bb74d4a1461bbc72bfdb6988f47fac5e21c36d33c6d84a72e3edf8995d431689dbf7ef3c69bccb6ff5fb68cbebff5145cb4a42bc',
  '108b5be6453c901f9e6bc800',
].join('')}`;

/**
 * Blocks per epoch on mainnet: epoch = height / 21,600 (integer division); an epoch's last block is its
 * boundary. tempoxyz/tempo `crates/chainspec/src/genesis/presto.json` (`config.epochLength`).
 */
export const MAINNET_EPOCH_LENGTH = 21_600;

/**
 * Mainnet's network identity as Tempo's own binary pins it, from epoch 0 (the group key; it changes only on a
 * full DKG). tempoxyz/tempo `crates/chainspec/src/network_identity.rs` (`MAINNET_NETWORK_IDENTITY`,
 * `MAINNET_NETWORK_IDENTITY_EPOCH = 0`). Parsing MAINNET_GENESIS_OUTCOME gives the same key.
 */
export const MAINNET_NETWORK_IDENTITY: `0x${string}` = `0x${[
  'a217bb85001d4dcf8e5c50136f77af88cb2cab1857279b91c6240f41cca95c4f',
  '43f6dcab3e0dfb87dafb3ecbeb6251e90a5df2e6c47432482821cd8b84665ee4',
  '642589d2d9628a92b03e2bbfb00e006d038cd98def76d2a41b7c228c05f5a193',
].join('')}`;
