/**
 * Public surface of @acpkit/remote. Every export here is public API: named exports only.
 */
export {};
