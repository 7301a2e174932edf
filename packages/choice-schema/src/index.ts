/**
 * Public surface of @acpkit/choice-schema. Every export here is public API: named exports only.
 */
export {};
