/**
 * The demo lets the trust check reach loopback targets only while it listens on loopback alone (src/cli/demo.ts):
 * exposed on another address, a check of 127.0.0.1:PORT would tell anyone which local ports answer.
 */
import { expect, it } from 'vitest';
import { loopbackOnly } from '../../src/cli/demo.js';

it('loopback names and addresses are loopback-only; wildcard, LAN, public and other names are not', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]']) expect(loopbackOnly(h), h).toBe(true);
  for (const h of ['0.0.0.0', '::', '192.168.1.10', '203.0.113.5', '2001:db8::1', 'example.com', '::ffff:0.0.0.0'])
    expect(loopbackOnly(h), h).toBe(false);
});
