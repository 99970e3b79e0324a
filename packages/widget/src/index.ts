// Parley's website chat widget. A business pastes
//   <script src="https://PARLEY/widget.js" data-channel="ch_…" async></script>
// into its pages; this script draws a launcher and a chat panel inside a shadow root (the page's CSS
// cannot reach it, its CSS cannot leak out) and talks to Parley's public widget endpoints. The visitor
// token is kept in the page's own localStorage (first-party: no third-party cookies). Plain DOM, no
// framework: the whole file stays a few kB.
import { STYLES } from "./styles.ts";

interface WidgetConfig {
  title: string;
  greeting: string;
  color: string;
  /** White or near-black, whichever reads on `color`. */
  textColor?: string;
  position: "right" | "left";
  collectEmail: boolean;
  /** A sub-account's agency's brand: its name (and logo) in the header instead of nothing of Parley's. */
  brand?: { name: string; logoUrl: string | null } | null;
}

interface Message {
  id: string;
  direction: "inbound" | "outbound";
  body: string;
  sender: "visitor" | "bot" | "agent";
  agentName?: string;
  createdAt: string;
  attachment?: { contentType: string; size: number | null };
  /** A bot's "Did you mean": the choices, shown as buttons under it while it is the last message. */
  suggestions?: { id: string; title: string }[];
  /** Shown while its POST is in flight. */
  pending?: boolean;
}

interface Visitor {
  token: string;
  visitorId: string;
}

const TYPING_MS = 5000;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function findScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current instanceof HTMLScriptElement && current.dataset.channel) return current;
  return document.querySelector<HTMLScriptElement>('script[data-channel][src*="widget.js"]');
}

function newId(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

async function start(): Promise<void> {
  const script = findScript();
  const channelId = script?.dataset.channel;
  if (!script || !channelId || (window as { __parleyWidget?: boolean }).__parleyWidget) return;
  (window as { __parleyWidget?: boolean }).__parleyWidget = true;
  const origin = new URL(script.src, location.href).origin;
  const api = `${origin}/widget/v1/channels/${encodeURIComponent(channelId)}`;

  // A page Parley does not know (not in allowedOrigins), a paused chat: nothing is drawn.
  let config: WidgetConfig;
  try {
    const res = await fetch(`${api}/config`, { credentials: "omit" });
    if (!res.ok) return;
    config = (await res.json()) as WidgetConfig;
  } catch {
    return;
  }

  const storeKey = `parley-widget:${channelId}`;
  const loadVisitor = (): Visitor | null => {
    try {
      const v = JSON.parse(localStorage.getItem(storeKey) ?? "null") as Visitor | null;
      return v && typeof v.token === "string" ? v : null;
    } catch {
      return null;
    }
  };
  let visitor = loadVisitor();

  // ---- the DOM ---------------------------------------------------------------------------------------
  const host = el("div", { "data-parley-widget": "" });
  const root = host.attachShadow({ mode: "open" });
  const style = el("style");
  style.textContent = STYLES;
  root.append(style);
  const wrap = el("div", { class: `wrap ${config.position === "left" ? "left" : "right"}` });
  wrap.style.setProperty("--accent", /^#[0-9a-f]{6}$/i.test(config.color) ? config.color : "#2563eb");
  const onAccent = config.textColor ?? "";
  wrap.style.setProperty("--on-accent", /^#[0-9a-f]{6}$/i.test(onAccent) ? onAccent : "#fff");
  root.append(wrap);

  const panelId = "parley-panel";
  const launcher = el("button", {
    type: "button",
    class: "launcher",
    "aria-label": "Open chat",
    "aria-expanded": "false",
    "aria-controls": panelId,
  });
  launcher.innerHTML =
    '<svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false"><path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';

  const panel = el("section", { class: "panel", id: panelId, role: "dialog", "aria-label": config.title });
  panel.hidden = true;
  const header = el("header");
  const title = el("h2", {}, config.title);
  const close = el("button", { type: "button", class: "close", "aria-label": "Close chat" }, "×");
  const heading = el("div", { class: "heading" });
  if (config.brand?.logoUrl) {
    heading.append(el("img", { class: "logo", src: new URL(config.brand.logoUrl, origin).href, alt: "" }));
  }
  const titles = el("div");
  titles.append(title);
  if (config.brand) titles.append(el("p", { class: "brand" }, config.brand.name));
  heading.append(titles);
  header.append(heading, close);
  const log = el("div", {
    class: "log",
    role: "log",
    "aria-live": "polite",
    "aria-label": "Messages",
    tabindex: "0",
  });
  const greeting = el("p", { class: "bubble them greeting" }, config.greeting);
  const list = el("ol", { class: "messages" });
  log.append(greeting, list);
  const typing = el("p", { class: "typing", "aria-live": "polite" });
  const status = el("p", { class: "status", role: "status" });
  const form = el("form", { class: "compose" });
  const input = el("input", {
    type: "text",
    "aria-label": "Message",
    placeholder: "Write a message…",
    maxlength: "2000",
    autocomplete: "off",
  });
  const fileInput = el("input", {
    type: "file",
    accept: "image/png,image/jpeg,image/gif,image/webp,application/pdf",
    class: "file",
    "aria-label": "Attach a file",
    tabindex: "-1",
  });
  const attach = el("button", { type: "button", class: "attach", "aria-label": "Attach a file" }, "+");
  const send = el("button", { type: "submit", class: "send" }, "Send");
  form.append(attach, fileInput, input, send);
  // collectEmail: when no person has answered yet, the visitor may leave an e-mail address.
  const emailForm = el("form", { class: "email" });
  emailForm.hidden = true;
  const emailLabel = el("label", {}, "No one here yet? Leave your e-mail and we will answer there too.");
  const emailInput = el("input", { type: "email", autocomplete: "email", placeholder: "you@example.com" });
  emailLabel.append(emailInput);
  emailForm.append(emailLabel, el("button", { type: "submit", class: "send" }, "Save email"));
  panel.append(header, log, emailForm, typing, status, form);
  wrap.append(panel, launcher);
  document.body.append(host);

  // ---- state -----------------------------------------------------------------------------------------
  const messages = new Map<string, Message>();
  let events: EventSource | null = null;
  let typingTimer: ReturnType<typeof setTimeout> | undefined;
  let loaded = false;

  const authHeaders = (): Record<string, string> =>
    visitor ? { authorization: `Bearer ${visitor.token}` } : {};

  const render = () => {
    const sorted = [...messages.values()].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
    );
    const last = sorted.at(-1);
    list.replaceChildren(
      ...sorted.flatMap((m) => {
        const mine = m.sender === "visitor";
        const item = el("li", { class: `bubble ${mine ? "me" : "them"}${m.pending ? " pending" : ""}` });
        const who = mine ? "You" : m.sender === "bot" ? "Assistant" : (m.agentName ?? "Team");
        item.append(el("span", { class: "who" }, who));
        if (m.body) item.append(el("span", { class: "text" }, m.body));
        if (m.attachment) item.append(attachmentView(m));
        // The choices answer only the message right after them: once anything follows, they go.
        return m === last && m.sender === "bot" && m.suggestions?.length ? [item, choicesView(m)] : [item];
      }),
    );
    log.scrollTop = log.scrollHeight;
  };

  /** The bot's choices as buttons; a press sends the choice's question as the visitor's message. */
  const choicesView = (m: Message): HTMLElement => {
    const item = el("li", { class: "choices" });
    const group = el("div", { role: "group", "aria-label": "Suggested questions" });
    for (const choice of m.suggestions ?? []) {
      const button = el("button", { type: "button", class: "choice" }, choice.title);
      button.addEventListener("click", () => {
        sendText(choice.title);
        input.focus();
      });
      group.append(button);
    }
    item.append(group);
    return item;
  };

  const attachmentView = (m: Message): HTMLElement => {
    const btn = el(
      "button",
      { type: "button", class: "file-link" },
      `Open attachment (${m.attachment?.contentType})`,
    );
    btn.addEventListener("click", async () => {
      const res = await fetch(`${api}/messages/${encodeURIComponent(m.id)}/attachment`, {
        headers: authHeaders(),
      });
      if (!res.ok) return;
      window.open(URL.createObjectURL(await res.blob()), "_blank", "noopener");
    });
    return btn;
  };

  // The business's newest reply the visitor has had on screen, once told to the server (Seen in the inbox).
  let seenReported: string | null = null;
  const reportSeen = () => {
    if (!visitor || panel.hidden || document.visibilityState !== "visible") return;
    let newest: Message | null = null;
    for (const m of messages.values()) {
      if (m.sender !== "visitor" && (!newest || m.createdAt > newest.createdAt)) newest = m;
    }
    if (!newest || newest.id === seenReported) return;
    seenReported = newest.id;
    void fetch(`${api}/seen`, { method: "POST", headers: authHeaders() }).catch(() => {
      seenReported = null;
    });
  };
  document.addEventListener("visibilitychange", reportSeen);

  const emailKey = `${storeKey}:email`;
  const merge = (incoming: Message[]) => {
    for (const m of incoming) {
      messages.set(m.id, m);
      if (m.sender !== "visitor") showTyping(false);
    }
    render();
    reportSeen();
    const all = [...messages.values()];
    emailForm.hidden = !(
      config.collectEmail &&
      !localStorage.getItem(emailKey) &&
      all.some((m) => m.sender === "bot") &&
      !all.some((m) => m.sender === "agent")
    );
  };

  const showTyping = (on: boolean) => {
    clearTimeout(typingTimer);
    typing.textContent = on ? "typing…" : "";
    if (on) typingTimer = setTimeout(() => showTyping(false), TYPING_MS);
  };

  const connect = () => {
    if (!visitor || events) return;
    events = new EventSource(`${api}/events?token=${encodeURIComponent(visitor.token)}`);
    events.addEventListener("message", (e) =>
      merge([JSON.parse((e as MessageEvent<string>).data) as Message]),
    );
    events.addEventListener("typing", () => showTyping(true));
  };

  const loadHistory = async () => {
    if (!visitor || loaded) return;
    const res = await fetch(`${api}/messages`, { headers: authHeaders() });
    if (res.status === 401) {
      // The business deleted this visitor (or the chat was recreated): start afresh on the next message.
      localStorage.removeItem(storeKey);
      visitor = null;
      return;
    }
    if (!res.ok) return;
    loaded = true;
    merge((await res.json()) as Message[]);
    connect();
  };

  const ensureVisitor = async (): Promise<boolean> => {
    if (visitor) return true;
    const res = await fetch(`${api}/visitors`, { method: "POST" });
    if (!res.ok) {
      await showError(res);
      return false;
    }
    const v = (await res.json()) as { visitorToken: string; visitorId: string };
    visitor = { token: v.visitorToken, visitorId: v.visitorId };
    try {
      localStorage.setItem(storeKey, JSON.stringify(visitor));
    } catch {}
    loaded = true;
    connect();
    return true;
  };

  const showError = async (res: Response) => {
    let text = "Your message could not be sent. Please try again.";
    if (res.status === 429) {
      text = `Too many messages. Please wait ${res.headers.get("retry-after") ?? "a few"} seconds.`;
    } else {
      try {
        const body = (await res.json()) as { error?: { message?: string } };
        if (body.error?.message && res.status < 500) text = body.error.message;
      } catch {}
    }
    status.textContent = text;
  };

  const post = async (path: string, payload: Record<string, unknown>, preview: Message) => {
    status.textContent = "";
    if (!(await ensureVisitor())) return;
    messages.set(preview.id, preview);
    render();
    try {
      const res = await fetch(`${api}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...authHeaders() },
        body: JSON.stringify(payload),
      });
      messages.delete(preview.id);
      if (res.ok) merge([(await res.json()) as Message]);
      else {
        render();
        await showError(res);
      }
    } catch {
      messages.delete(preview.id);
      render();
      status.textContent = "You seem to be offline. Please try again.";
    }
  };

  const setOpen = (open: boolean) => {
    panel.hidden = !open;
    launcher.setAttribute("aria-expanded", String(open));
    launcher.setAttribute("aria-label", open ? "Close chat" : "Open chat");
    wrap.classList.toggle("open", open);
    if (open) {
      void loadHistory();
      reportSeen();
      input.focus();
    } else launcher.focus();
  };

  launcher.addEventListener("click", () => setOpen(!wrap.classList.contains("open")));
  close.addEventListener("click", () => setOpen(false));
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") setOpen(false);
  });
  const sendText = (body: string) => {
    const clientMessageId = newId();
    void post(
      "/messages",
      { body, clientMessageId },
      {
        id: `pending-${clientMessageId}`,
        direction: "inbound",
        body,
        sender: "visitor",
        createdAt: new Date().toISOString(),
        pending: true,
      },
    );
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = input.value.trim();
    if (!body) return;
    input.value = "";
    sendText(body);
  });
  emailForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const email = emailInput.value.trim();
    if (!email || !visitor) return;
    const res = await fetch(`${api}/email`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders() },
      body: JSON.stringify({ email }),
    });
    if (!res.ok) return showError(res);
    try {
      localStorage.setItem(emailKey, "1");
    } catch {}
    emailForm.hidden = true;
    status.textContent = "";
    typing.textContent = `Thanks! We will also answer at ${email}.`;
  });
  attach.addEventListener("click", () => fileInput.click());
  fileInput.addEventListener("change", () => {
    const file = fileInput.files?.[0];
    fileInput.value = "";
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      const data = String(reader.result).split(",")[1] ?? "";
      const clientMessageId = newId();
      void post(
        "/attachments",
        { clientMessageId, contentType: file.type, data, body: input.value.trim() },
        {
          id: `pending-${clientMessageId}`,
          direction: "inbound",
          body: file.name,
          sender: "visitor",
          createdAt: new Date().toISOString(),
          pending: true,
        },
      );
      input.value = "";
    };
    reader.readAsDataURL(file);
  });
  // A returning visitor's conversation is ready before the panel opens.
  if (visitor) void loadHistory();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => void start());
else void start();
