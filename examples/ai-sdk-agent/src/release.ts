// What the example releases.

/**
 * The service the example releases.
 *
 * @example
 * ```ts
 * import { SERVICE } from '@acpkit/example-ai-sdk-agent';
 *
 * console.log(SERVICE); // 'checkout-service'
 * ```
 */
export const SERVICE = 'checkout-service';

/**
 * The version the example releases.
 *
 * @example
 * ```ts
 * import { VERSION } from '@acpkit/example-ai-sdk-agent';
 *
 * console.log(VERSION); // '1.4.2'
 * ```
 */
export const VERSION = '1.4.2';
