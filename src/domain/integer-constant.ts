/**
 * A constant integer member (chain id 4217, integrity maximum 5…) as a zod schema whose JSON Schema says
 * `type: integer`: zod writes a numeric literal as `type: number`, and the contract types these members integer.
 */
import { z } from 'zod';

/**
 * @param value the constant (a safe integer)
 * @returns z.literal(value), described in JSON Schema as `{type: "integer", enum: [value]}`
 * @example integerConstant(4217) // accepts 4217 only; OpenAPI: {"type":"integer","enum":[4217]}
 */
export function integerConstant<const N extends number>(value: N) {
  return z.literal(value).meta({ type: 'integer' });
}
