// Private to the workspace: each published package bundles this (tsup `noExternal`), and its `.d.ts` never names it.
export { type BrandableClass, brandErrorClass, type ErrorMarker, isBrandedInstance } from './class-brand.js';
