/**
 * Public surface of @acpkit/compat-1.6 (deprecated). Every export here is public API: named exports only.
 */
export {
  LEGACY_FALLBACK_WARNING_CODE,
  type LegacyChoiceFallback,
  legacyFallback,
} from './legacy-fallback.js';
