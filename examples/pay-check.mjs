#!/usr/bin/env node
// Pays for one trust check with x402 and no API key, using @x402/fetch with the `exact` EVM scheme, then prints
// the answer's verdict and the decoded PAYMENT-RESPONSE header (the settlement transaction).
//
//   node examples/pay-check.mjs CHECK_URL TARGET_URL PRIVATE_KEY TOKEN
//
// `paywatch demo` prints this line with its own values: a local chain, a local token and a test account, so
// nothing of value moves. Against a real service, use a wallet you control and the token its 402 asks for.
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const [checkUrl, target, key, token] = process.argv.slice(2);
if (!checkUrl || !target || !/^0x[0-9a-fA-F]{64}$/.test(key ?? '') || !/^0x[0-9a-fA-F]{40}$/.test(token ?? '')) {
  console.error('usage: node examples/pay-check.mjs CHECK_URL TARGET_URL PRIVATE_KEY TOKEN');
  process.exit(2);
}
const client = x402Client.fromConfig({
  schemes: [{ network: 'eip155:4217', client: new ExactEvmScheme(privateKeyToAccount(key)) }],
  // Never pay more than 0.01 of this token (6 decimals) for one check, whatever the 402 asks.
  spendControls: { allowedAssets: [{ network: 'eip155:4217', asset: token, maxAmountPerPayment: '10000' }] },
});
const pay = wrapFetchWithPayment(fetch, client);
const res = await pay(checkUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: target }) });
const body = await res.json();
const header = res.headers.get('payment-response');
console.log(
  JSON.stringify(
    {
      status: res.status,
      verdict: body.verdict ?? null,
      error: body.error ?? null,
      payment_response: header ? decodePaymentResponseHeader(header) : null,
    },
    null,
    2,
  ),
);
process.exitCode = res.ok ? 0 : 1;
