/** The demo's one error: a local step (anvil activity, a paid service's terms, the payment token) that went wrong. */
import { PaywatchError } from '../domain/errors.js';

/** A demo step failed or was asked something impossible; the message says which. */
export class DemoError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'demo' });
  }
}
