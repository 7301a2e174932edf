/**
 * Public surface of @acpkit/compat-1.6. Every export here is public API: named exports only.
 */
export {};
