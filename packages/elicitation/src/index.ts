/**
 * Public surface of @acpkit/elicitation. Every export here is public API: named exports only.
 */
export {};
