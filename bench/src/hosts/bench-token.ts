/** The bearer token every bench server requires and every bench client sends (the references check it too). */
export const benchToken = process.env.ACPKIT_BENCH_TOKEN ?? 'bench-token';
