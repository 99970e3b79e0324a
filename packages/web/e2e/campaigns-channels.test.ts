// A campaign's outgoing message through a provider channel, end to end: with a WhatsApp channel made
// through the API, an owner picks it under "Send through" on the campaign page, gets the template fields
// (and no custom channel label), is told what is missing before anything is sent, sees the server's
// message next to the form when it refuses, saves the template and finds it kept after a reload. Started,
// the member with a phone gets the template (a local stand-in of the Graph API takes the sends) and the
// member without one shows as skipped with "no phone". Against a real `parley serve` on SQLite, in Chromium.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetaStandIn, startMetaStandIn } from "../../server/test/stand-ins/meta.ts";
import { eventually, expectAccessible, useBrowserSuite } from "./harness.ts";

interface GraphSend {
  to?: string;
  type?: string;
  template?: {
    name?: string;
    language?: { code?: string };
    components?: { type?: string; parameters?: { type?: string; text?: string }[] }[];
  };
}

interface OutgoingJson {
  message: string;
  listId: string;
  channel: string | null;
  channelId: string | null;
  template: { name: string; language: string; parameters: string[] } | null;
  ratePerMinute: number;
}

describe.skipIf(Boolean(process.env.DATABASE_URL))("a campaign's outgoing message through a channel", () => {
  let graph: MetaStandIn;
  beforeAll(async () => {
    graph = await startMetaStandIn();
    graph.tokens.add("EAAGtoken123456");
  });
  afterAll(async () => {
    await graph?.close();
  });
  const suite = useBrowserSuite({ env: () => ({ META_GRAPH_URL: graph.url }), business: "Bike Campaigns" });
  let whatsappId = "";
  let campaignId = "";

  const headers = () => ({ "x-api-key": suite.apiKey });
  const post = <T>(path: string, data: unknown) => suite.v1<T>("POST", path, data);
  const outgoing = async (): Promise<OutgoingJson | null> => {
    const res = await suite.api.get(`/v1/campaigns/${campaignId}`, { headers: headers() });
    expect(res.status(), await res.text()).toBe(200);
    return ((await res.json()) as { outgoing: OutgoingJson | null }).outgoing;
  };
  const region = () => suite.page.getByRole("region", { name: "Outgoing message" });
  const sendThrough = () => region().getByRole("combobox", { name: "Send through" });

  beforeAll(async () => {
    const whatsapp = await post<{ id: string; type: string }>("/v1/channels", {
      type: "whatsapp",
      name: "Shop WhatsApp",
      config: {
        phoneNumberId: "106540352242922",
        accessToken: "EAAGtoken123456",
        appSecret: "secret123456",
        verifyToken: "verify123",
      },
    });
    expect(whatsapp.type).toBe("whatsapp");
    whatsappId = whatsapp.id;
    // The website chat is no way to send a first message: it is never offered.
    await post("/v1/channels", {
      type: "web",
      name: "Site chat",
      config: { allowedOrigins: ["https://shop.example"] },
    });

    // A list of two: one with a phone (WhatsApp reaches it), one with an email only (skipped: no phone).
    const list = await post<{ id: string }>("/v1/lists", { name: "Spring customers" });
    for (const contact of [
      { firstName: "Ada", phone: "+14155550101" },
      { firstName: "Bo", email: "bo@example.com" },
    ]) {
      const { id } = await post<{ id: string }>("/v1/contacts", contact);
      await post(`/v1/lists/${list.id}/contacts`, { contactId: id });
    }
    const campaigns = (await (await suite.api.get("/v1/campaigns", { headers: headers() })).json()) as {
      data: { id: string; isDefault: boolean }[];
    };
    campaignId = campaigns.data.find((c) => c.isDefault)?.id ?? "";
  });

  it("an owner picks the WhatsApp channel, fills the template, and finds it kept after a reload", async () => {
    await suite.page.getByRole("link", { name: "Campaigns", exact: true }).click();
    await suite.page.getByRole("table", { name: "Campaigns" }).getByRole("link", { name: "Default" }).click();
    await region().waitFor();
    // The custom channel to begin with: its label field, no template.
    expect(await sendThrough().inputValue()).toBe("Custom channel");
    await region().getByRole("textbox", { name: "Custom channel" }).waitFor();
    expect(await region().getByRole("textbox", { name: "Template name" }).count()).toBe(0);

    await region().getByLabel("First message").fill("Hi {{firstName|there}}, spring is here!");
    await region().getByRole("combobox", { name: "To the list" }).click();
    await suite.page.getByRole("option", { name: /Spring customers/ }).click();
    await sendThrough().click();
    // The custom channel and the provider channels by name and type; never the website chat.
    const options = suite.page.getByRole("option");
    expect(await options.allTextContents()).toEqual(["Custom channel", "Shop WhatsApp (WhatsApp)"]);
    await suite.page.getByRole("option", { name: "Shop WhatsApp (WhatsApp)" }).click();

    // WhatsApp: the template fields, and no custom channel label.
    await region().getByRole("textbox", { name: "Template name" }).waitFor();
    await region().getByRole("textbox", { name: "Template language" }).waitFor();
    await region().getByRole("textbox", { name: "Template parameters" }).waitFor();
    await region().getByText("{{firstName|there}} is each member's first name").waitFor();
    expect(await region().getByRole("textbox", { name: "Custom channel" }).count()).toBe(0);
    await region().getByText("as a template approved in WhatsApp Manager").waitFor();
    await expectAccessible(suite.page, "campaign: outgoing through WhatsApp");

    // Saving without a template: the form says what is missing, and nothing is saved.
    await region().getByRole("button", { name: "Save outgoing message" }).click();
    await region().getByText("Give the name of the approved template").waitFor();
    await region().getByText("Give the template's language code, like en_US").waitFor();
    expect(await region().getByRole("textbox", { name: "Template name" }).getAttribute("aria-invalid")).toBe(
      "true",
    );
    expect(await outgoing()).toBeNull();
    await expectAccessible(suite.page, "campaign: the template's missing fields");

    await region().getByRole("textbox", { name: "Template name" }).fill("spring_offer");
    await region().getByRole("textbox", { name: "Template language" }).fill("en_US");
    await region()
      .getByRole("textbox", { name: "Template parameters" })
      .fill("{{firstName|there}}\n20% off\n");
    expect(await region().getByText("Give the name of the approved template").count()).toBe(0);

    // What only the server knows is wrong comes back next to the form, and what was typed stays.
    await region().getByRole("textbox", { name: "Messages per minute" }).fill("100000");
    await region().getByRole("button", { name: "Save outgoing message" }).click();
    await region().getByRole("alert").getByText("outgoing.ratePerMinute must be at most").waitFor();
    expect(await region().getByRole("textbox", { name: "Template name" }).inputValue()).toBe("spring_offer");
    expect(await outgoing()).toBeNull();
    await expectAccessible(suite.page, "campaign: the server's message");

    await region().getByRole("textbox", { name: "Messages per minute" }).fill("600");
    await region().getByRole("button", { name: "Save outgoing message" }).click();
    await suite.page.getByText("Outgoing message saved").waitFor();
    expect(await outgoing()).toMatchObject({
      message: "Hi {{firstName|there}}, spring is here!",
      channelId: whatsappId,
      template: { name: "spring_offer", language: "en_US", parameters: ["{{firstName|there}}", "20% off"] },
      ratePerMinute: 600,
    });

    // After a reload: the channel and the template as saved.
    await suite.page.reload();
    await region().getByRole("textbox", { name: "Template name" }).waitFor();
    expect(await sendThrough().inputValue()).toBe("Shop WhatsApp (WhatsApp)");
    expect(await region().getByRole("textbox", { name: "Template name" }).inputValue()).toBe("spring_offer");
    expect(await region().getByRole("textbox", { name: "Template language" }).inputValue()).toBe("en_US");
    expect(await region().getByRole("textbox", { name: "Template parameters" }).inputValue()).toBe(
      "{{firstName|there}}\n20% off",
    );
    expect(await region().getByRole("textbox", { name: "Custom channel" }).count()).toBe(0);
    await expectAccessible(suite.page, "campaign: outgoing through WhatsApp, saved");
  });

  it("started, the member with a phone gets the template and the one without is skipped: no phone", async () => {
    await region().getByRole("button", { name: "Start sending" }).click();
    const confirm = suite.page.getByRole("dialog", { name: "Start sending?" });
    await confirm.getByText("2 members of the list will get the first message now").waitFor();
    await confirm.getByRole("button", { name: "Send" }).click();
    await region().getByText("Done", { exact: true }).waitFor({ timeout: 30_000 });
    await region().getByText("Skipped 1: 1 with no phone.").waitFor();
    await region().getByRole("link", { name: "Bo" }).waitFor();
    await region().getByText(": no phone").waitFor();

    const sends = () => graph.sends().map((r) => ({ path: r.path, body: (r.body ?? {}) as GraphSend }));
    const send = await eventually(() => sends().find((s) => s.body.type === "template"));
    expect(send.path).toMatch(/\/106540352242922\/messages$/);
    expect(send.body.to).toBe("14155550101");
    expect(send.body.template?.name).toBe("spring_offer");
    expect(send.body.template?.language?.code).toBe("en_US");
    expect(send.body.template?.components?.[0]?.parameters?.map((p) => p.text)).toEqual(["Ada", "20% off"]);
    expect(sends()).toHaveLength(1);
    await expectAccessible(suite.page, "campaign: sent through WhatsApp, one skipped");
  });

  it("back on the custom channel, the template fields go and the label field comes back", async () => {
    await sendThrough().click();
    await suite.page.getByRole("option", { name: "Custom channel" }).click();
    await region().getByRole("textbox", { name: "Custom channel" }).waitFor();
    expect(await region().getByRole("textbox", { name: "Template name" }).count()).toBe(0);
    await region().getByText("each on the custom channel it wrote in on").waitFor();
  });
});
