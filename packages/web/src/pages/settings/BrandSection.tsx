import { Box, Button, ColorInput, Group, Input, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useId } from "react";
import { Section } from "../../components/Section.tsx";
import { ErrorAlert, LoadingState } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import { notify } from "../../lib/notify.ts";
import {
  type AgencyBrand,
  useAgencyBrand,
  useRemoveBrandLogo,
  useSaveBrand,
  useSetBrandLogo,
} from "../../lib/queries/brand.ts";

const COLOR = /^#[0-9a-fA-F]{6}$/;

/** An agency's brand (owners and admins): what its sub-accounts' app and chat widgets show. */
export function BrandSection() {
  const state = useAgencyBrand(true);
  return (
    <Section
      title="Brand"
      description="Your clients (sub-accounts) see this name, logo and colour in their app and on their website chat instead of Parley's."
    >
      {state.isPending && <LoadingState />}
      {state.isError && <ErrorAlert error={state.error} />}
      {state.isSuccess && <BrandForm brand={state.data.brand} />}
    </Section>
  );
}

function BrandForm({ brand }: { brand: AgencyBrand | null }) {
  const form = useForm({
    initialValues: {
      name: brand?.name ?? "",
      color: brand?.color ?? "#2563eb",
      publicUrl: brand?.publicUrl ?? "",
    },
  });
  const save = useSaveBrand();
  const setLogo = useSetBrandLogo();
  const removeLogo = useRemoveBrandLogo();
  const logoId = useId();

  const submit = ({ name, color, publicUrl }: typeof form.values) => {
    save.mutate(
      { name: name.trim(), color: color.trim(), publicUrl: publicUrl.trim() || null },
      { onSuccess: () => notify("Brand saved") },
    );
  };

  const upload = (event: React.ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setLogo.mutate(file, {
      onSuccess: () => notify("Logo saved"),
      onSettled: () => {
        input.value = "";
      },
    });
  };

  return (
    <Stack gap="sm">
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="sm">
          <TextInput label="Brand name" required maxLength={60} {...form.getInputProps("name")} />
          <ColorInput
            label="Brand colour"
            description="#rrggbb. Text on it is white or black, whichever reads better."
            format="hex"
            eyeDropperButtonProps={{ "aria-label": "Pick the colour from the screen" }}
            required
            {...form.getInputProps("color")}
          />
          <TextInput
            label="Your address"
            description="Optional: the address (PUBLIC_URL) your clients open Parley at, e.g. https://chat.youragency.com. Its sign-in page shows your brand."
            type="url"
            {...form.getInputProps("publicUrl")}
          />
          {save.isError && <ErrorAlert error={save.error} />}
          <Group>
            <Button
              type="submit"
              loading={save.isPending}
              disabled={!form.values.name.trim() || !COLOR.test(form.values.color.trim())}
            >
              Save
            </Button>
          </Group>
        </Stack>
      </form>
      {brand && <BrandPreview brand={brand} />}
      <Input.Wrapper
        label="Logo"
        labelElement="label"
        id={logoId}
        description={
          brand
            ? "PNG, JPEG or WebP, at most 512 kB."
            : "Save the brand's name and colour first, then add a logo."
        }
        error={setLogo.isError ? errorMessage(setLogo.error) : undefined}
      >
        <Box mt={4}>
          <input
            id={logoId}
            type="file"
            accept="image/png,image/jpeg,image/webp"
            disabled={!brand || setLogo.isPending}
            onChange={upload}
          />
        </Box>
      </Input.Wrapper>
      {brand?.logoUrl && (
        <Group>
          <Button
            variant="default"
            loading={removeLogo.isPending}
            onClick={() => removeLogo.mutate(undefined, { onSuccess: () => notify("Logo removed") })}
          >
            Remove logo
          </Button>
        </Group>
      )}
      {removeLogo.isError && <ErrorAlert error={removeLogo.error} />}
    </Stack>
  );
}

/** How the brand looks: the logo and the name on the colour. */
function BrandPreview({ brand }: { brand: AgencyBrand }) {
  return (
    <Group
      gap="sm"
      p="sm"
      style={{ background: brand.color, color: brand.textColor, borderRadius: 8 }}
      aria-label="Brand preview"
      role="img"
    >
      {brand.logoUrl && (
        <img src={brand.logoUrl} alt="" height={32} style={{ maxWidth: 128, objectFit: "contain" }} />
      )}
      <Text fw={700} c="inherit">
        {brand.name}
      </Text>
    </Group>
  );
}
