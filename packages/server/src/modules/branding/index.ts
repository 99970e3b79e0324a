// Agency branding (issue 38). Owns agency_brands and the brands/ files (logos); its web-app routes are in
// app-api/brand-routes.ts, and the session, the widget's config and the sign-in page ask brandFor /
// brandForHost.
import type { Module } from "../../context.ts";
import { type OrphanSweep, registerSweep } from "../../platform/storage-sweep.ts";
import { namedLogoKeys } from "./repo.ts";
import { LOGO_PREFIX } from "./service.ts";

/** A logo file whose brand row never committed (a crash between the two) is removed. */
export const logosSweep: OrphanSweep = {
  type: "brands.sweep",
  prefixes: [LOGO_PREFIX],
  nameOf: (key) => (key.startsWith(LOGO_PREFIX) ? key : null),
  named: namedLogoKeys,
};

export const brandingModule: Module = {
  name: "branding",
  jobs(worker, ctx) {
    registerSweep(worker, ctx, logosSweep);
  },
};
