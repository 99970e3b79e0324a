// Agency → Brand (/app/api/brand): the agency's own brand, for its owners and admins.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ApiResponse } from "../api-types.ts";
import { useGet } from "./get.ts";

export type AgencyBrand = ApiResponse<"appSetBrand">;
type BrandState = ApiResponse<"appGetBrand">;

const brandKey = ["brand", "agency"] as const;

export function useAgencyBrand(enabled: boolean) {
  return useGet<BrandState>(brandKey, "/brand", enabled);
}

function useBrandWrite<I>(send: (input: I) => Promise<AgencyBrand>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: (brand) => client.setQueryData<BrandState>(brandKey, { brand }),
  });
}

export function useSaveBrand() {
  return useBrandWrite((input: { name: string; color: string; publicUrl: string | null }) =>
    api<AgencyBrand>("PUT", "/brand", input),
  );
}

/** Uploads the logo file (base64 in JSON; the server tells the type from the bytes). */
export function useSetBrandLogo() {
  return useBrandWrite(async (file: File) => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return api<AgencyBrand>("PUT", "/brand/logo", { data: btoa(binary) });
  });
}

export function useRemoveBrandLogo() {
  return useBrandWrite(() => api<AgencyBrand>("DELETE", "/brand/logo"));
}
